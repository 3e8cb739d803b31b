/*
 * tracefs's directories (include/kernel/tracefs.h): the tracer's files are made by
 * kernel/trace/tracefs.c, which is not traced; every directory a tracefs user creates or
 * causes (an event's, a system's, an instance's) is made here, where it can be traced.
 */
#include <kernel/pseudofs.h>
#include <kernel/tracefs.h>

struct pfs_node *tracefs_create_dir(const char *name, struct pfs_node *parent)
{
    return pfs_mkdir_at(parent, name);
}
