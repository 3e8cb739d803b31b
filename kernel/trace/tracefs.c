/*
 * /sys/kernel/tracing: creates every registered tracefs file at boot. The files
 * themselves live with the code they expose.
 */
#include <kernel/errno.h>
#include <kernel/init.h>
#include <kernel/printk.h>
#include <kernel/tracefs.h>
#include <lib/string.h>

#include "trace_internal.h"

struct pfs_node *tracefs_mkdirs_at(struct pfs_node *dir, const char *path, const char **leaf)
{
    char dirs[192];
    const char *slash = strrchr(path, '/');
    *leaf = slash ? slash + 1 : path;
    if (!slash)
        return dir;
    if ((size_t)(slash - path) >= sizeof(dirs))
        return NULL;
    memcpy(dirs, path, (size_t)(slash - path));
    dirs[slash - path] = '\0';
    return pfs_mkdir_under(dir, dirs);
}

struct pfs_node *tracefs_dir(const char *name, struct pfs_node *parent)
{
    struct pfs_node *n;
    if (parent && pfs_lookup_at(parent, name, &n) == 0)
        return pfs_is_dir(n) ? n : NULL;
    return tracefs_create_dir(name, parent);
}

struct pfs_node *tracefs_create_at(struct pfs_node *dir, const char *path, unsigned mode,
                                   const struct pfs_ops *ops, pfs_show_fn show, pfs_store_fn store,
                                   void *data)
{
    const char *name;
    dir = tracefs_mkdirs_at(dir, path, &name);
    if (!dir)
        return NULL;
    if (ops)
        return pfs_create(dir, name, mode, ops, data);
    return pfs_create_seq(dir, name, mode, show, store, data);
}

struct pfs_node *tracefs_create(const char *path, unsigned mode, const struct pfs_ops *ops,
                                pfs_show_fn show, pfs_store_fn store, void *data)
{
    return tracefs_create_at(pfs_mkdir(TRACEFS_ROOT), path, mode, ops, show, store, data);
}

int tracefs_create_array_files(struct trace_array *tr, struct pfs_node *dir)
{
    for (const struct tracefs_file *f = __start_tracefs_files; f < __stop_tracefs_files; f++)
        if (f->instance &&
            !tracefs_create_at(dir, f->path, f->mode, f->ops, f->show, f->store, &tr->all_cpus))
            return -ENOMEM;
    int err = trace_files_create_options(tr, dir);
    if (!err)
        err = trace_files_create_pids(tr, dir);
    return err ? err : trace_files_create_per_cpu(tr, dir);
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
        if (!tracefs_create(f->path, f->mode, f->ops, f->show, f->store,
                            f->instance ? &trace_global.all_cpus : f->data))
            printk("tracefs: cannot create %s\n", f->path);
}
LATE_INITCALL(tracefs_init);
