#include <kernel/errno.h>
#include <kernel/mm.h>
#include <kernel/mutex.h>
#include <kernel/panic.h>
#include <kernel/pseudofs.h>
#include <kernel/spinlock.h>
#include <kernel/time.h>
#include <lib/string.h>

/*
 * Two threads use these files at once: the shell and the host channel's file service
 * (plus self-tests and torture commands the shell runs). Two locks keep them apart:
 *
 * pfs_control, a sleeping mutex, serializes everything that touches kernel state through
 * a file, as Linux's event_mutex and ftrace_lock do for its file operations: a file's
 * open (where seq files produce their text and truncating opens clear), each read, each
 * write, and release (the commit point of filter files). The ops of a file therefore never
 * run concurrently with the ops of any file, and need no locking of their own against each
 * other. A read that blocks waiting for data (trace_pipe) drops the mutex while it sleeps
 * in pfs_read_wait, so that the other thread can turn tracing off to end it; its per-open
 * state is its own, and the ring buffer's reader_lock keeps two consumers of one CPU's
 * buffer apart. A file whose ops say read_unlocked (trace_pipe_raw) is read without the
 * mutex at all: the stream's per-CPU workers read a page at a time, and through one mutex
 * each CPU's worker would wait for the other's pages while its own CPU's writers ran on.
 *
 * Node removal (pfs_remove: a kprobe event's files when the probe is deleted) happens only
 * with pfs_control held, and so does every walk that keeps node pointers between calls
 * (ls, Tab completion, cd, the lookups of event file removal): hold pfs_control_lock() for
 * as long as any node pointer from pfs_lookup or pfs_child is used. Removal also refuses a
 * node that an open file holds, so an open file's node and data stay valid until it closes
 * without the mutex. Code that changes the same state outside a file (kprobe commands of
 * self-tests, torture and benchmarks) takes pfs_control_lock() too.
 *
 * The mutex is not recursive: ops and walkers never call pfs_open, pfs_read, pfs_write or
 * pfs_close. That is why ls copies what it lists and prints after letting go: its output
 * may be a tracefs file.
 *
 * pfs_tree_lock, a spinlock, guards each directory's child array and the open counts, for
 * callers that look a path up without keeping a node (pfs_stat, pfs_list_names) and for
 * creation. Creation needs no mutex (boot-time initcalls make most nodes, and nothing is
 * freed), but at run time it comes from writes, so a walker holding pfs_control also sees
 * a directory that does not change under it. A node's name, mode, type, parent and ops
 * never change after it is linked, and those fields are read without either lock.
 */

#define PFS_NAME_MAX 255
#define PFS_DIR_MODE 0555

struct pfs_node {
    const char *name;
    unsigned mode;
    bool is_dir;
    struct pfs_node *parent;    /* the root is its own parent, so ".." stops there */
    struct pfs_node **children; /* sorted by name, for lookup by binary search and for ls */
    size_t nr_children;
    size_t children_cap;
    const struct pfs_ops *ops;
    const struct pfs_dir_ops *dir_ops; /* a directory that takes user mkdir and rmdir */
    void *data;
    unsigned opens; /* files open on it; guarded by pfs_tree_lock */
    bool owns_data; /* data was made for the node (pfs_create_seq): freed with it */
};

static DEFINE_SPINLOCK(pfs_tree_lock);
static DEFINE_MUTEX(pfs_control);

void pfs_control_lock(void) { mutex_lock(&pfs_control); }

void pfs_control_unlock(void) { mutex_unlock(&pfs_control); }

bool pfs_control_held(void) { return mutex_is_mine(&pfs_control); }

static struct pfs_node pfs_root_node = {
    .name = "",
    .mode = PFS_DIR_MODE,
    .is_dir = true,
    .parent = &pfs_root_node,
};

struct pfs_node *pfs_root(void) { return &pfs_root_node; }

bool pfs_is_dir(const struct pfs_node *n) { return n->is_dir; }

const char *pfs_name(const struct pfs_node *n) { return n->name; }

unsigned pfs_mode(const struct pfs_node *n) { return n->mode; }

struct pfs_node *pfs_child(const struct pfs_node *dir, size_t i)
{
    struct pfs_node *child = NULL;

    if (!dir->is_dir)
        return NULL;
    spin_lock(&pfs_tree_lock);
    if (i < dir->nr_children)
        child = dir->children[i];
    spin_unlock(&pfs_tree_lock);
    return child;
}

/* Orders a node name against a path component, which is not NUL-terminated. */
static int pfs_name_cmp(const char *name, const char *comp, size_t comp_len)
{
    int r = strncmp(name, comp, comp_len);
    if (r)
        return r;
    return name[comp_len] ? 1 : 0;
}

/* Index of the child named comp, or of where it would be inserted; *found says which. */
static size_t pfs_child_index(const struct pfs_node *dir, const char *comp, size_t comp_len,
                              bool *found)
{
    size_t lo = 0, hi = dir->nr_children;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int r = pfs_name_cmp(dir->children[mid]->name, comp, comp_len);
        if (r == 0) {
            *found = true;
            return mid;
        }
        if (r < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    *found = false;
    return lo;
}

static struct pfs_node *pfs_find_child(const struct pfs_node *dir, const char *comp,
                                       size_t comp_len)
{
    bool found;
    size_t i = pfs_child_index(dir, comp, comp_len, &found);
    return found ? dir->children[i] : NULL;
}

static bool pfs_valid_name(const char *name)
{
    size_t len = strnlen(name, PFS_NAME_MAX + 1);

    if (len == 0 || len > PFS_NAME_MAX || strchr(name, '/'))
        return false;
    return strcmp(name, ".") != 0 && strcmp(name, "..") != 0;
}

/*
 * Links a new node under dir, fully initialised before it becomes visible; NULL when the
 * name is taken, invalid, or memory is short. Called with pfs_tree_lock held.
 */
static struct pfs_node *pfs_add_node(struct pfs_node *dir, const char *name, bool is_dir,
                                     unsigned mode, const struct pfs_ops *ops, void *data)
{
    bool found;
    size_t at;
    struct pfs_node *n;

    if (!dir || !dir->is_dir || !pfs_valid_name(name))
        return NULL;
    at = pfs_child_index(dir, name, strlen(name), &found);
    if (found)
        return NULL;

    if (dir->nr_children == dir->children_cap) {
        size_t cap = dir->children_cap ? dir->children_cap * 2 : 8;
        struct pfs_node **grown = krealloc(dir->children, cap * sizeof(*grown));
        if (!grown)
            return NULL;
        dir->children = grown;
        dir->children_cap = cap;
    }

    n = kzalloc(sizeof(*n));
    if (!n)
        return NULL;
    n->name = kstrdup(name);
    if (!n->name) {
        kfree(n);
        return NULL;
    }
    n->is_dir = is_dir;
    n->mode = mode & 0777;
    n->parent = dir;
    n->ops = ops;
    n->data = data;

    memmove(&dir->children[at + 1], &dir->children[at],
            (dir->nr_children - at) * sizeof(dir->children[0]));
    dir->children[at] = n;
    dir->nr_children++;
    return n;
}

struct pfs_node *pfs_mkdir_at(struct pfs_node *parent, const char *name)
{
    struct pfs_node *n;

    if (!parent || !parent->is_dir)
        return NULL;
    spin_lock(&pfs_tree_lock);
    n = pfs_find_child(parent, name, strlen(name));
    if (n)
        n = n->is_dir ? n : NULL;
    else
        n = pfs_add_node(parent, name, true, PFS_DIR_MODE, NULL, NULL);
    spin_unlock(&pfs_tree_lock);
    return n;
}

struct pfs_node *pfs_mkdir(const char *path) { return pfs_mkdir_under(&pfs_root_node, path); }

struct pfs_node *pfs_mkdir_under(struct pfs_node *base, const char *path)
{
    struct pfs_node *n = base;
    char comp[PFS_NAME_MAX + 1];
    const char *p = path;

    while (n && *p) {
        const char *start;
        size_t len;

        while (*p == '/')
            p++;
        if (!*p)
            break;
        start = p;
        while (*p && *p != '/')
            p++;
        len = (size_t)(p - start);
        if (len > PFS_NAME_MAX)
            return NULL;
        memcpy(comp, start, len);
        comp[len] = '\0';
        n = pfs_mkdir_at(n, comp);
    }
    return n;
}

struct pfs_node *pfs_create(struct pfs_node *dir, const char *name, unsigned mode,
                            const struct pfs_ops *ops, void *data)
{
    struct pfs_node *n;

    if (!ops)
        return NULL;
    spin_lock(&pfs_tree_lock);
    n = pfs_add_node(dir, name, false, mode, ops, data);
    spin_unlock(&pfs_tree_lock);
    return n;
}

/*
 * Walks path from cwd, with pfs_tree_lock held. When the walk fails with -ENOENT at the last
 * component inside an existing directory, *missing_last is set: that is where a file would
 * have to be created.
 */
static int pfs_walk(const char *cwd, const char *path, struct pfs_node **out, bool *missing_last)
{
    struct pfs_node *n = &pfs_root_node;
    const char *p = path;
    size_t path_len;

    *out = NULL;
    if (missing_last)
        *missing_last = false;
    if (!path || !*path)
        return -ENOENT;
    path_len = strlen(path);

    if (path[0] != '/' && cwd && *cwd) {
        int err = pfs_walk(NULL, cwd, &n, NULL);
        if (err)
            return err;
        if (!n->is_dir)
            return -ENOTDIR;
    }

    for (;;) {
        const char *comp;
        size_t len;
        struct pfs_node *child;

        while (*p == '/')
            p++;
        if (!*p)
            break;
        comp = p;
        while (*p && *p != '/')
            p++;
        len = (size_t)(p - comp);

        /* Checked before "." and "..": "file/." and "file/.." are errors, as in Linux. */
        if (!n->is_dir)
            return -ENOTDIR;
        if (len == 1 && comp[0] == '.')
            continue;
        if (len == 2 && comp[0] == '.' && comp[1] == '.') {
            n = n->parent;
            continue;
        }
        if (len > PFS_NAME_MAX)
            return -ENAMETOOLONG;
        child = pfs_find_child(n, comp, len);
        if (!child) {
            if (missing_last) {
                const char *rest = p;
                while (*rest == '/')
                    rest++;
                *missing_last = !*rest && *p != '/';
            }
            return -ENOENT;
        }
        n = child;
    }

    if (path[path_len - 1] == '/' && !n->is_dir)
        return -ENOTDIR;
    *out = n;
    return 0;
}

static int pfs_resolve(const char *cwd, const char *path, struct pfs_node **out, bool *missing_last)
{
    int err;

    spin_lock(&pfs_tree_lock);
    err = pfs_walk(cwd, path, out, missing_last);
    spin_unlock(&pfs_tree_lock);
    return err;
}

int pfs_lookup(const char *cwd, const char *path, struct pfs_node **out)
{
    return pfs_resolve(cwd, path, out, NULL);
}

int pfs_lookup_at(struct pfs_node *base, const char *path, struct pfs_node **out)
{
    struct pfs_node *n = base;
    const char *p = path;
    int err = 0;
    spin_lock(&pfs_tree_lock);
    while (*p && !err) {
        while (*p == '/')
            p++;
        const char *comp = p;
        while (*p && *p != '/')
            p++;
        if (p == comp)
            break;
        if (!n->is_dir)
            err = -ENOTDIR;
        else if (!(n = pfs_find_child(n, comp, (size_t)(p - comp))))
            err = -ENOENT;
    }
    spin_unlock(&pfs_tree_lock);
    *out = err ? NULL : n;
    return err;
}

int pfs_path(const struct pfs_node *n, char *buf, size_t len)
{
    size_t need = 0, at;
    const struct pfs_node *p;

    if (len == 0)
        return -ENAMETOOLONG;
    if (n == &pfs_root_node) {
        if (len < 2)
            return -ENAMETOOLONG;
        strcpy(buf, "/");
        return 0;
    }
    for (p = n; p != &pfs_root_node; p = p->parent)
        need += 1 + strlen(p->name);
    if (need + 1 > len)
        return -ENAMETOOLONG;

    at = need;
    buf[at] = '\0';
    for (p = n; p != &pfs_root_node; p = p->parent) {
        size_t name_len = strlen(p->name);
        at -= name_len;
        memcpy(buf + at, p->name, name_len);
        buf[--at] = '/';
    }
    return 0;
}

static void pfs_hold(struct pfs_node *n, int delta)
{
    spin_lock(&pfs_tree_lock);
    n->opens += (unsigned)delta;
    spin_unlock(&pfs_tree_lock);
}

int pfs_remove(struct pfs_node *n)
{
    int err = 0;
    /* Walkers keep node pointers under pfs_control only: see the top of this file. */
    ASSERT(pfs_control_held());
    spin_lock(&pfs_tree_lock);
    struct pfs_node *dir = n->parent;
    bool found = false;
    size_t at = dir == n ? 0 : pfs_child_index(dir, n->name, strlen(n->name), &found);
    if (!found || dir->children[at] != n)
        err = -ENOENT;
    else if (n->is_dir && n->nr_children)
        err = -ENOTEMPTY;
    else if (n->opens)
        err = -EBUSY;
    if (!err) {
        memmove(&dir->children[at], &dir->children[at + 1],
                (dir->nr_children - at - 1) * sizeof(dir->children[0]));
        dir->nr_children--;
    }
    spin_unlock(&pfs_tree_lock);
    if (err)
        return err;
    kfree(n->children);
    kfree((void *)n->name);
    if (n->owns_data)
        kfree(n->data);
    kfree(n);
    return 0;
}

/* Whether a file is open anywhere under n; with pfs_tree_lock held. */
static bool pfs_tree_busy(const struct pfs_node *n)
{
    if (n->opens)
        return true;
    for (size_t i = 0; i < n->nr_children; i++)
        if (pfs_tree_busy(n->children[i]))
            return true;
    return false;
}

bool pfs_tree_is_open(const struct pfs_node *dir)
{
    spin_lock(&pfs_tree_lock);
    bool busy = pfs_tree_busy(dir);
    spin_unlock(&pfs_tree_lock);
    return busy;
}

int pfs_remove_tree(struct pfs_node *dir)
{
    ASSERT(pfs_control_held());
    if (pfs_tree_is_open(dir))
        return -EBUSY;
    /* Nothing can open a file meanwhile: opens take the control mutex, which is held. */
    for (;;) {
        struct pfs_node *child = pfs_child(dir, 0);
        if (!child)
            break;
        int err = child->is_dir ? pfs_remove_tree(child) : pfs_remove(child);
        if (err)
            return err;
    }
    return pfs_remove(dir);
}

struct pfs_node *pfs_mkdir_user_dir(struct pfs_node *parent, const char *name,
                                    const struct pfs_dir_ops *ops)
{
    struct pfs_node *n = pfs_mkdir_at(parent, name);
    if (n) {
        spin_lock(&pfs_tree_lock);
        n->dir_ops = ops;
        spin_unlock(&pfs_tree_lock);
    }
    return n;
}

/*
 * Splits path into its directory and its last component (trailing slashes dropped):
 * *dir gets the directory, name the component. -ENOENT for an empty path, -EINVAL for a
 * last component of "." or "..", as Linux's VFS.
 */
static int pfs_user_split(const char *cwd, const char *path, struct pfs_node **dir, char *name)
{
    char parent[512];
    size_t len = strnlen(path, sizeof(parent));
    if (len == 0)
        return -ENOENT;
    if (len >= sizeof(parent))
        return -ENAMETOOLONG;
    memcpy(parent, path, len + 1);
    while (len > 1 && parent[len - 1] == '/')
        parent[--len] = '\0';
    char *slash = strrchr(parent, '/');
    const char *last = slash ? slash + 1 : parent;
    if (strlen(last) > PFS_NAME_MAX)
        return -ENAMETOOLONG;
    if (!*last)
        return -EEXIST; /* "/": the root exists */
    if (strcmp(last, ".") == 0 || strcmp(last, "..") == 0)
        return -EINVAL;
    strcpy(name, last);
    if (slash)
        slash[slash == parent ? 1 : 0] = '\0';
    else
        strcpy(parent, ".");
    int err = pfs_resolve(cwd, parent, dir, NULL);
    if (!err && !(*dir)->is_dir)
        err = -ENOTDIR;
    return err;
}

int pfs_user_mkdir(const char *cwd, const char *path)
{
    char name[PFS_NAME_MAX + 1];
    struct pfs_node *dir;
    pfs_control_lock();
    int err = pfs_user_split(cwd, path, &dir, name);
    if (!err) {
        spin_lock(&pfs_tree_lock);
        bool exists = pfs_find_child(dir, name, strlen(name)) != NULL;
        spin_unlock(&pfs_tree_lock);
        if (exists)
            err = -EEXIST;
        else if (!dir->dir_ops || !dir->dir_ops->mkdir)
            err = -EPERM;
        else
            err = dir->dir_ops->mkdir(dir, name);
    }
    pfs_control_unlock();
    return err;
}

int pfs_user_rmdir(const char *cwd, const char *path)
{
    char name[PFS_NAME_MAX + 1];
    struct pfs_node *dir;
    pfs_control_lock();
    int err = pfs_user_split(cwd, path, &dir, name);
    if (err == -EEXIST)
        err = -EBUSY; /* the root, as Linux's rmdir / */
    struct pfs_node *entry = NULL;
    if (!err) {
        spin_lock(&pfs_tree_lock);
        entry = pfs_find_child(dir, name, strlen(name));
        spin_unlock(&pfs_tree_lock);
        if (!entry)
            err = -ENOENT;
        else if (!entry->is_dir)
            err = -ENOTDIR;
        else if (!dir->dir_ops || !dir->dir_ops->rmdir)
            err = -EPERM;
        else
            err = dir->dir_ops->rmdir(dir, entry);
    }
    pfs_control_unlock();
    return err;
}

void pfs_own_data(struct pfs_node *n) { n->owns_data = true; }

bool pfs_is_open(const struct pfs_node *n)
{
    spin_lock(&pfs_tree_lock);
    bool open = n->opens != 0;
    spin_unlock(&pfs_tree_lock);
    return open;
}

static int pfs_open_locked(const char *cwd, const char *path, int flags, struct pfs_file **out)
{
    struct pfs_node *n;
    struct pfs_file *f;
    bool missing_last;
    int err;

    err = pfs_resolve(cwd, path, &n, &missing_last);
    /* Files cannot be created here; Linux says the same for tracefs and procfs. */
    if (err == -ENOENT && missing_last && (flags & PFS_WRITE))
        return -EACCES;
    if (err)
        return err;
    if (n->is_dir)
        return -EISDIR;
    if ((flags & PFS_READ) && !(n->mode & 0444))
        return -EACCES;
    if ((flags & PFS_WRITE) && !(n->mode & 0222))
        return -EACCES;

    f = kzalloc(sizeof(*f));
    if (!f)
        return -ENOMEM;
    f->node = n;
    f->flags = flags;
    f->data = n->data;
    pfs_hold(n, 1);
    if (n->ops->open) {
        err = n->ops->open(f);
        if (err) {
            pfs_hold(n, -1);
            kfree(f);
            return err;
        }
    }
    *out = f;
    return 0;
}

int pfs_open(const char *cwd, const char *path, int flags, struct pfs_file **out)
{
    *out = NULL;
    if (!(flags & (PFS_READ | PFS_WRITE)))
        return -EINVAL;
    pfs_control_lock();
    int err = pfs_open_locked(cwd, path, flags, out);
    pfs_control_unlock();
    return err;
}

ssize_t pfs_read(struct pfs_file *f, char *buf, size_t len)
{
    ssize_t n;

    if (!(f->flags & PFS_READ))
        return -EBADF;
    if (!f->node->ops->read)
        return -EINVAL;
    if (len == 0)
        return 0;
    bool locked = !f->node->ops->read_unlocked;
    if (locked)
        pfs_control_lock();
    n = f->node->ops->read(f, buf, len);
    if (locked)
        pfs_control_unlock();
    if (n > 0)
        f->pos += (size_t)n;
    return n;
}

ssize_t pfs_write(struct pfs_file *f, const char *buf, size_t len)
{
    if (!(f->flags & PFS_WRITE))
        return -EBADF;
    if (!f->node->ops->write)
        return -EINVAL;
    pfs_control_lock();
    ssize_t n = f->node->ops->write(f, buf, len);
    pfs_control_unlock();
    return n;
}

int pfs_close(struct pfs_file *f)
{
    int err = 0;

    if (!f)
        return 0;
    pfs_control_lock();
    if (f->node->ops->release)
        err = f->node->ops->release(f);
    pfs_hold(f->node, -1);
    pfs_control_unlock();
    kfree(f);
    return err;
}

int pfs_write_path(const char *path, const char *text, int how)
{
    struct pfs_file *f;
    int err = pfs_open(NULL, path, PFS_WRITE | (how & PFS_APPEND ? PFS_APPEND : PFS_TRUNC), &f);
    if (err)
        return err;
    ssize_t n = pfs_write(f, text, strlen(text));
    int closed = pfs_close(f);
    return n < 0 ? (int)n : closed;
}

int pfs_read_wait(struct pfs_file *f, uint64_t ns)
{
    if (f->flags & PFS_NOWAIT)
        return -EAGAIN;
    /* The other thread may be the one that ends this wait (tracing off, a write). */
    bool held = pfs_control_held();
    if (held)
        pfs_control_unlock();
    int err = sleep_ns_interruptible(ns);
    if (held)
        pfs_control_lock();
    return err;
}

int pfs_stat(const char *path, bool *is_dir, unsigned *mode)
{
    struct pfs_node *n;
    spin_lock(&pfs_tree_lock);
    int err = pfs_walk(NULL, path, &n, NULL);
    if (!err) {
        *is_dir = n->is_dir;
        *mode = n->mode;
    }
    spin_unlock(&pfs_tree_lock);
    return err;
}

int pfs_list_names(const char *path, size_t start, char *buf, size_t len, size_t *used)
{
    struct pfs_node *dir;
    int count = 0;
    *used = 0;
    spin_lock(&pfs_tree_lock);
    int err = pfs_walk(NULL, path, &dir, NULL);
    if (!err && !dir->is_dir)
        err = -ENOTDIR;
    for (size_t i = start; !err && i < dir->nr_children; i++) {
        size_t name_len = strlen(dir->children[i]->name) + 1;
        if (*used + name_len > len) {
            /* A name that fits in no buffer at all would end the listing early. */
            if (count == 0)
                err = -ENAMETOOLONG;
            break;
        }
        memcpy(buf + *used, dir->children[i]->name, name_len);
        *used += name_len;
        count++;
    }
    spin_unlock(&pfs_tree_lock);
    return err ? err : count;
}

void pfs_init(void)
{
    pfs_mkdir("/proc");
    pfs_mkdir("/sys/kernel/tracing");
}

ssize_t pfs_snapshot_read(struct pfs_file *f, char *buf, size_t len)
{
    const struct seqbuf *s = f->priv;
    if (!s || f->pos >= s->len)
        return 0;
    size_t n = MIN(len, s->len - f->pos);
    memcpy(buf, s->buf + f->pos, n);
    return (ssize_t)n;
}

int pfs_snapshot_release(struct pfs_file *f)
{
    if (f->priv) {
        seqbuf_free(f->priv);
        kfree(f->priv);
        f->priv = NULL;
    }
    return 0;
}
