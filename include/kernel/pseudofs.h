#ifndef KERNEL_PSEUDOFS_H
#define KERNEL_PSEUDOFS_H

#include <kernel/compiler.h>

/*
 * A small in-memory tree of directories and files (/proc, /sys/kernel/tracing). A file's
 * content is produced by its ops when read and parsed by its ops when written; nothing is
 * stored unless the ops store it. Errors are negative errno values.
 */
struct pfs_node;
struct seqbuf;

#define PFS_READ 0x1
#define PFS_WRITE 0x2
#define PFS_TRUNC 0x4     /* `>`: Linux's O_TRUNC, e.g. clears a trace or a filter */
#define PFS_APPEND 0x8    /* `>>` */
#define PFS_NONBLOCK 0x10 /* Linux's O_NONBLOCK: a read with nothing to return gives -EAGAIN */
/*
 * A blocking read that must not sleep: where it would wait for data it gives -EAGAIN, and
 * otherwise it ends as a blocking read does (end of file once tracing is off and something
 * was read, where PFS_NONBLOCK would say -EAGAIN). For a reader that waits elsewhere: the
 * host, through the host channel's file service.
 */
#define PFS_NOWAIT 0x20

struct pfs_file {
    struct pfs_node *node;
    int flags;
    void *data; /* the node's data, from pfs_create */
    void *priv; /* per-open state owned by the ops */
    size_t pos; /* bytes already returned by read; pfs_read advances it */
};

struct pfs_ops {
    int (*open)(struct pfs_file *f);
    /* Returns bytes read, 0 at end of file, or -errno (-EINTR after Ctrl-C while blocking). */
    ssize_t (*read)(struct pfs_file *f, char *buf, size_t len);
    ssize_t (*write)(struct pfs_file *f, const char *buf, size_t len);
    /* Commit point (filter files install their new state here); returns 0 or -errno. */
    int (*release)(struct pfs_file *f);
    /*
     * read runs without the control mutex: it touches only its open file's own state and
     * data that locks of its own guard (a CPU's ring buffer pages under its reader_lock),
     * so that readers of different CPUs' files never wait for each other or for the shell.
     */
    bool read_unlocked;
};

/*
 * The control mutex (kernel/fs/pseudofs.c says what it covers): pfs_open, pfs_read,
 * pfs_write and pfs_close take it themselves; hold it around any use of node pointers from
 * pfs_lookup or pfs_child, around pfs_remove, and around changes to the state files show
 * when made without a file. Never call the pfs_open family while holding it.
 */
void pfs_control_lock(void);
void pfs_control_unlock(void);
bool pfs_control_held(void);

/* Creates the standard directories: /proc, /sys/kernel/tracing. Call once at boot. */
void pfs_init(void);
struct pfs_node *pfs_root(void);
/* Creates the directory (and parents) if missing; returns it, or NULL on error. */
struct pfs_node *pfs_mkdir(const char *path);
struct pfs_node *pfs_mkdir_at(struct pfs_node *parent, const char *name);
/* The same as pfs_mkdir with path relative to base. */
struct pfs_node *pfs_mkdir_under(struct pfs_node *base, const char *path);
/* mode: permission bits as ls shows them (0444 read-only, 0644 read-write, 0200 write-only). */
struct pfs_node *pfs_create(struct pfs_node *dir, const char *name, unsigned mode,
                            const struct pfs_ops *ops, void *data);

/*
 * The common kind of file: reads show the text produced by show() when the file was opened
 * (so partial reads are consistent), and each write() call is passed to store(), which
 * returns the bytes consumed or -errno. Either may be NULL.
 */
typedef int (*pfs_show_fn)(struct seqbuf *s, void *data);
typedef ssize_t (*pfs_store_fn)(void *data, const char *buf, size_t len);
struct pfs_node *pfs_create_seq(struct pfs_node *dir, const char *name, unsigned mode,
                                pfs_show_fn show, pfs_store_fn store, void *data);
/* The same with data a copy of size bytes, which the node owns (freed with it). */
struct pfs_node *pfs_create_seq_copy(struct pfs_node *dir, const char *name, unsigned mode,
                                     pfs_show_fn show, pfs_store_fn store, const void *data,
                                     size_t size);

/*
 * For ops whose open leaves a snapshot of the text, a kzalloc'd struct seqbuf, in f->priv
 * (NULL: nothing to read): its read and its release.
 */
ssize_t pfs_snapshot_read(struct pfs_file *f, char *buf, size_t len);
int pfs_snapshot_release(struct pfs_file *f);

/*
 * Unlinks and frees a file or an empty directory: -ENOTEMPTY for a directory with
 * entries, -EBUSY while a file is open on it (its ops and data must outlive every open).
 * The caller holds the control mutex.
 */
int pfs_remove(struct pfs_node *n);
/*
 * Removes a directory and everything under it, deepest first: -EBUSY, with nothing removed,
 * while a file anywhere in it is open. The caller holds the control mutex.
 */
int pfs_remove_tree(struct pfs_node *dir);
/* Whether a file is open anywhere under dir now. */
bool pfs_tree_is_open(const struct pfs_node *dir);

/*
 * A directory whose entries users make and remove with mkdir and rmdir (tracefs's
 * instances/). Both run with the control mutex held: mkdir makes the entry named name
 * under dir (0 or -errno), rmdir takes entry away (usually with pfs_remove_tree).
 */
struct pfs_dir_ops {
    int (*mkdir)(struct pfs_node *dir, const char *name);
    int (*rmdir)(struct pfs_node *dir, struct pfs_node *entry);
};
/* pfs_mkdir_at, and the directory takes user mkdir and rmdir through ops. */
struct pfs_node *pfs_mkdir_user_dir(struct pfs_node *parent, const char *name,
                                    const struct pfs_dir_ops *ops);
/*
 * mkdir and rmdir as a user asks for them (the shell, the host's file service), with the
 * errnos of Linux's VFS: EEXIST for a name that exists, ENOENT and ENOTDIR along the path,
 * EPERM in a directory that does not take them, then whatever its ops say.
 */
int pfs_user_mkdir(const char *cwd, const char *path);
int pfs_user_rmdir(const char *cwd, const char *path);
/* The node's data was allocated for it alone: pfs_remove frees it too. */
void pfs_own_data(struct pfs_node *n);
/* Whether a file is open on n now. */
bool pfs_is_open(const struct pfs_node *n);

/*
 * Path resolution; relative paths start at cwd ("/" when NULL). The node stays valid only
 * while the caller holds the control mutex (or has a file open on it).
 */
int pfs_lookup(const char *cwd, const char *path, struct pfs_node **out);
/* The same for a path under base, of plain names only (no "." or ".."). */
int pfs_lookup_at(struct pfs_node *base, const char *path, struct pfs_node **out);
bool pfs_is_dir(const struct pfs_node *n);
const char *pfs_name(const struct pfs_node *n);
unsigned pfs_mode(const struct pfs_node *n);
/* Absolute path of a node into buf. */
int pfs_path(const struct pfs_node *n, char *buf, size_t len);
/* i-th entry of a directory (sorted by name), or NULL past the end. */
struct pfs_node *pfs_child(const struct pfs_node *dir, size_t i);

int pfs_open(const char *cwd, const char *path, int flags, struct pfs_file **out);
ssize_t pfs_read(struct pfs_file *f, char *buf, size_t len);
ssize_t pfs_write(struct pfs_file *f, const char *buf, size_t len);
int pfs_close(struct pfs_file *f);
/* `echo -n TEXT > PATH` (or `>>` with PFS_APPEND in how): 0 or the errno of the open, the
 * write or the close, for kernel code that drives files as a user would (bench, soak). */
int pfs_write_path(const char *path, const char *text, int how);
/*
 * What a read with nothing to return does before it looks at its data again: sleeps ns
 * (0, or -EINTR after Ctrl-C), or gives -EAGAIN at once for a PFS_NOWAIT file. Called
 * from a read op only: the control mutex is dropped while it sleeps, so state the op
 * looked at before may have changed when it returns.
 */
int pfs_read_wait(struct pfs_file *f, uint64_t ns);

/*
 * For callers on other threads than the shell's, which may race with a removal: each looks
 * the path up and reads what it needs under the tree's lock, so no node pointer escapes.
 * pfs_stat: whether the node at path is a directory, and its mode. pfs_list_names: the
 * names of a directory's entries from index start, each NUL-terminated, as many as fit in
 * len bytes; returns how many (0 past the end), or -errno, and *used the bytes written.
 */
int pfs_stat(const char *path, bool *is_dir, unsigned *mode);
int pfs_list_names(const char *path, size_t start, char *buf, size_t len, size_t *used);

/* Growable text buffer used by show() callbacks (Linux's seq_file). */
struct seqbuf {
    char *buf;
    size_t len;
    size_t cap;
    bool overflow; /* an allocation failed: the content is cut short */
    /*
     * Nonzero: the length the text may reach, as a trace line has a page in Linux (its
     * trace_seq). A write past it is dropped and sets full, and so is every write after
     * it, so the text ends with the last piece that fitted. As in Linux, a printf must end
     * below the limit (its seq_buf keeps a byte for vsnprintf's NUL); a puts, putc or
     * write may reach it.
     */
    size_t limit;
    bool full;
};
int seq_printf(struct seqbuf *s, const char *fmt, ...) __printf(2, 3);
int seq_puts(struct seqbuf *s, const char *str);
int seq_putc(struct seqbuf *s, char c);
int seq_write(struct seqbuf *s, const char *buf, size_t len);
void seqbuf_free(struct seqbuf *s);

/*
 * A write of commands, a line each, as Linux's trace_parse_run_command: each line, its text
 * from a '#' on dropped, goes to run in order; the first that fails ends the write with its
 * errno, the lines before it done. A line of max bytes or more is EINVAL (kernel/fs/lines.c).
 */
int pfs_run_lines(const char *buf, size_t len, size_t max, int (*run)(char *line, void *arg),
                  void *arg);

#endif
