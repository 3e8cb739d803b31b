#include <kernel/errno.h>
#include <kernel/mm.h>
#include <kernel/pseudofs.h>
#include <lib/printf.h>
#include <lib/string.h>

#define SEQBUF_MIN_CAP 256

/*
 * Makes room for extra more bytes plus the terminating NUL, which is always kept so a
 * finished buffer can be used as a string. Once an allocation failed the buffer refuses
 * everything after, so the text is cut at a write boundary rather than holed in the middle.
 */
static int seq_reserve(struct seqbuf *s, size_t extra)
{
    size_t need, cap;
    char *grown;

    if (s->overflow)
        return -ENOMEM;
    if (extra > SIZE_MAX / 4 - s->len) {
        s->overflow = true;
        return -ENOMEM;
    }
    need = s->len + extra + 1;
    if (need <= s->cap)
        return 0;
    cap = s->cap ? s->cap : SEQBUF_MIN_CAP;
    while (cap < need)
        cap *= 2;
    grown = krealloc(s->buf, cap);
    if (!grown) {
        s->overflow = true;
        return -ENOMEM;
    }
    s->buf = grown;
    s->cap = cap;
    return 0;
}

/* Whether the limit refuses a piece of n bytes more (marking the text full if so). */
static bool seq_past_limit(struct seqbuf *s, size_t n, bool printf)
{
    if (!s->limit)
        return false;
    bool fits = s->len < s->limit && (printf ? n < s->limit - s->len : n <= s->limit - s->len);
    if (!s->full && (fits || (!printf && s->len == s->limit && n == 0)))
        return false;
    s->full = true;
    return true;
}

int seq_write(struct seqbuf *s, const char *buf, size_t len)
{
    if (seq_past_limit(s, len, false))
        return -ENOSPC;
    int err = seq_reserve(s, len);

    if (err)
        return err;
    memcpy(s->buf + s->len, buf, len);
    s->len += len;
    s->buf[s->len] = '\0';
    return 0;
}

int seq_puts(struct seqbuf *s, const char *str) { return seq_write(s, str, strlen(str)); }

int seq_putc(struct seqbuf *s, char c) { return seq_write(s, &c, 1); }

int seq_printf(struct seqbuf *s, const char *fmt, ...)
{
    va_list ap, again;
    int n, err;

    /* Reserving nothing still allocates, so vsnprintf always gets a real buffer. */
    err = seq_reserve(s, 0);
    if (err)
        return err;

    va_start(ap, fmt);
    va_copy(again, ap);
    n = vsnprintf(s->buf + s->len, s->cap - s->len, fmt, ap);
    va_end(ap);
    if (n < 0) {
        va_end(again);
        return -EINVAL;
    }
    if (seq_past_limit(s, (size_t)n, true)) {
        s->buf[s->len] = '\0';
        va_end(again);
        return -ENOSPC;
    }
    if ((size_t)n >= s->cap - s->len) {
        err = seq_reserve(s, (size_t)n);
        if (err) {
            /* The first attempt left a truncated tail; keep the text cut at a write boundary. */
            s->buf[s->len] = '\0';
            va_end(again);
            return err;
        }
        vsnprintf(s->buf + s->len, s->cap - s->len, fmt, again);
    }
    va_end(again);
    s->len += (size_t)n;
    return 0;
}

void seqbuf_free(struct seqbuf *s)
{
    kfree(s->buf);
    s->buf = NULL;
    s->len = 0;
    s->cap = 0;
    s->overflow = false;
}

/* The seq file kind: show() runs once per read-open, store() once per write call. */
struct pfs_seq_file {
    pfs_show_fn show;
    pfs_store_fn store;
    void *data;
};

static int pfs_seq_open(struct pfs_file *f)
{
    const struct pfs_seq_file *seq = f->data;
    struct seqbuf *text;
    int err;

    if (!(f->flags & PFS_READ) || !seq->show)
        return 0;
    text = kzalloc(sizeof(*text));
    if (!text)
        return -ENOMEM;
    err = seq->show(text, seq->data);
    if (err > 0)
        err = 0;
    if (!err && text->overflow)
        err = -ENOMEM;
    if (err) {
        seqbuf_free(text);
        kfree(text);
        return err;
    }
    f->priv = text;
    return 0;
}

static ssize_t pfs_seq_read(struct pfs_file *f, char *buf, size_t len)
{
    const struct seqbuf *text = f->priv;
    size_t n;

    if (!text || f->pos >= text->len)
        return 0;
    n = MIN(len, text->len - f->pos);
    memcpy(buf, text->buf + f->pos, n);
    return (ssize_t)n;
}

static ssize_t pfs_seq_write(struct pfs_file *f, const char *buf, size_t len)
{
    const struct pfs_seq_file *seq = f->data;

    if (!seq->store)
        return -EINVAL;
    return seq->store(seq->data, buf, len);
}

static int pfs_seq_release(struct pfs_file *f)
{
    struct seqbuf *text = f->priv;

    if (text) {
        seqbuf_free(text);
        kfree(text);
        f->priv = NULL;
    }
    return 0;
}

static const struct pfs_ops pfs_seq_ops = {
    .open = pfs_seq_open,
    .read = pfs_seq_read,
    .write = pfs_seq_write,
    .release = pfs_seq_release,
};

struct pfs_node *pfs_create_seq(struct pfs_node *dir, const char *name, unsigned mode,
                                pfs_show_fn show, pfs_store_fn store, void *data)
{
    struct pfs_seq_file *seq = kzalloc(sizeof(*seq));
    struct pfs_node *n;

    if (!seq)
        return NULL;
    seq->show = show;
    seq->store = store;
    seq->data = data;
    n = pfs_create(dir, name, mode, &pfs_seq_ops, seq);
    if (n)
        pfs_own_data(n);
    else
        kfree(seq);
    return n;
}

struct pfs_node *pfs_create_seq_copy(struct pfs_node *dir, const char *name, unsigned mode,
                                     pfs_show_fn show, pfs_store_fn store, const void *data,
                                     size_t size)
{
    /* One allocation for both, so that the node's one kfree of its data frees the copy. */
    struct pfs_seq_file *seq = kzalloc(sizeof(*seq) + size);
    if (!seq)
        return NULL;
    seq->show = show;
    seq->store = store;
    seq->data = memcpy(seq + 1, data, size);
    struct pfs_node *n = pfs_create(dir, name, mode, &pfs_seq_ops, seq);
    if (n)
        pfs_own_data(n);
    else
        kfree(seq);
    return n;
}
