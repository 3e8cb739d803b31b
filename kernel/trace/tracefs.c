/*
 * /sys/kernel/tracing: creates every registered tracefs file at boot. The files
 * themselves live with the code they expose.
 */
#include <kernel/errno.h>
#include <kernel/init.h>
#include <kernel/printk.h>
#include <lib/string.h>

#include "trace_internal.h"

struct pfs_node *tracefs_create(const char *path, unsigned mode, const struct pfs_ops *ops,
                                pfs_show_fn show, pfs_store_fn store, void *data)
{
    char dir[256];
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    size_t n = strlcpy(dir, TRACEFS_ROOT, sizeof(dir));
    if (slash && n + 1 + (size_t)(slash - path) < sizeof(dir)) {
        dir[n] = '/';
        memcpy(dir + n + 1, path, (size_t)(slash - path));
        dir[n + 1 + (slash - path)] = '\0';
    }
    struct pfs_node *parent = pfs_mkdir(dir);
    if (!parent)
        return NULL;
    if (ops)
        return pfs_create(parent, name, mode, ops, data);
    return pfs_create_seq(parent, name, mode, show, store, data);
}

int tracefs_parse_ulong(const char *buf, size_t len, unsigned long *out)
{
    char tmp[32];
    if (len == 0 || len >= sizeof(tmp))
        return -EINVAL;
    memcpy(tmp, buf, len);
    tmp[len] = '\0';
    return kstrtoul(tmp, 10, out);
}

static void tracefs_init(void)
{
    pfs_mkdir(TRACEFS_ROOT);
    for (const struct tracefs_file *f = __start_tracefs_files; f < __stop_tracefs_files; f++)
        if (!tracefs_create(f->path, f->mode, f->ops, f->show, f->store, f->data))
            printk("tracefs: cannot create %s\n", f->path);
}
LATE_INITCALL(tracefs_init);
