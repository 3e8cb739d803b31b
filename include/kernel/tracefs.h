#ifndef KERNEL_TRACEFS_H
#define KERNEL_TRACEFS_H

#include <kernel/pseudofs.h>

#define TRACEFS_ROOT "/sys/kernel/tracing"

/*
 * A file under /sys/kernel/tracing, registered by linker section so that adding one
 * touches one file. Either `ops` (files with per-open state, like the filter files that
 * commit at close) or `show`/`store` (pfs_create_seq) is given.
 */
struct tracefs_file {
    const char *path; /* relative to TRACEFS_ROOT, may contain directories */
    unsigned mode;
    const struct pfs_ops *ops;
    pfs_show_fn show;
    pfs_store_fn store;
    void *data;
};

#define TRACEFS_FILE(id, ...)                                                                \
    static const struct tracefs_file tracefs_file_##id __used __section(".tracefs_files")    \
        __aligned(8) = {__VA_ARGS__}

/* Creates a file at run time (per-CPU files); path relative to TRACEFS_ROOT. */
struct pfs_node *tracefs_create(const char *path, unsigned mode, const struct pfs_ops *ops,
                                pfs_show_fn show, pfs_store_fn store, void *data);

/* Parses a whole-number write such as "1\n" the way Linux's kstrtoul_from_user does. */
int tracefs_parse_ulong(const char *buf, size_t len, unsigned long *out);

#endif
