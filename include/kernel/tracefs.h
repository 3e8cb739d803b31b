#ifndef KERNEL_TRACEFS_H
#define KERNEL_TRACEFS_H

struct pfs_node;

/*
 * The file-system side of /sys/kernel/tracing, outside the tracer: like any file-system
 * code it is traced and can be probed, as Linux's fs/tracefs is (ftracetest probes
 * tracefs_create_dir by its first argument, the new directory's name).
 *
 * tracefs_create_dir makes the directory name in parent (or returns the one there);
 * NULL if parent is not a directory, name is not a single component, or memory ran out.
 */
struct pfs_node *tracefs_create_dir(const char *name, struct pfs_node *parent);

#endif
