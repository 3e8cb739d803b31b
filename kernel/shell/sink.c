#include <kernel/console.h>
#include <kernel/errno.h>
#include <kernel/mm.h>
#include <lib/printf.h>
#include <lib/string.h>

#include "shell_internal.h"

/* A line longer than this reaches a filter in pieces rather than exhausting the heap. */
#define SHELL_LINE_SINK_MAX (64 * 1024)

static struct shell_capture *shell_active_capture;

struct shell_capture *shell_capture_begin(struct shell_capture *cap)
{
    struct shell_capture *previous = shell_active_capture;

    if (cap->len)
        cap->buf[0] = '\0';
    cap->used = 0;
    shell_active_capture = cap;
    return previous;
}

void shell_capture_end(struct shell_capture *previous) { shell_active_capture = previous; }

void shell_terminal_write(const char *buf, size_t len)
{
    struct shell_capture *cap = shell_active_capture;

    if (!cap) {
        console_write(buf, len);
        return;
    }
    if (cap->len == 0)
        return;
    if (len > cap->len - 1 - cap->used)
        len = cap->len - 1 - cap->used;
    memcpy(cap->buf + cap->used, buf, len);
    cap->used += len;
    cap->buf[cap->used] = '\0';
}

void shell_terminal_puts(const char *s) { shell_terminal_write(s, strlen(s)); }

static int shell_terminal_sink_write(struct shell_sink *sink, const char *buf, size_t len)
{
    (void)sink;
    shell_terminal_write(buf, len);
    return 0;
}

struct shell_sink shell_terminal_sink = {.write = shell_terminal_sink_write};

static int shell_discard_sink_write(struct shell_sink *sink, const char *buf, size_t len)
{
    (void)sink;
    (void)buf;
    (void)len;
    return -EPIPE;
}

struct shell_sink shell_discard_sink = {.write = shell_discard_sink_write};

/*
 * A file's write handler may take part of the buffer, as write(2) may; the rest is offered
 * again, so a handler that parses one token per call still sees the whole text.
 */
static int shell_file_sink_write(struct shell_sink *sink, const char *buf, size_t len)
{
    struct shell_file_sink *fs = container_of(sink, struct shell_file_sink, sink);

    while (len) {
        ssize_t n = pfs_write(fs->file, buf, len);
        if (n < 0)
            return (int)n;
        if (n == 0 || (size_t)n > len)
            return -EIO;
        buf += n;
        len -= (size_t)n;
    }
    return 0;
}

void shell_file_sink_init(struct shell_file_sink *fs, struct pfs_file *file)
{
    fs->sink = (struct shell_sink){.write = shell_file_sink_write};
    fs->file = file;
}

static int shell_line_sink_append(struct shell_line_sink *ls, const char *buf, size_t len)
{
    if (ls->len + len + 1 > ls->cap) {
        size_t cap = ls->cap ? ls->cap : 256;
        char *grown;
        while (cap < ls->len + len + 1)
            cap *= 2;
        grown = krealloc(ls->partial, cap);
        if (!grown)
            return -ENOMEM;
        ls->partial = grown;
        ls->cap = cap;
    }
    memcpy(ls->partial + ls->len, buf, len);
    ls->len += len;
    ls->partial[ls->len] = '\0';
    return 0;
}

static int shell_line_sink_deliver(struct shell_line_sink *ls)
{
    size_t len = ls->len;

    ls->len = 0;
    return ls->filter->line(ls->ctx, ls->state, ls->partial, len);
}

/*
 * Each complete line is handed over as soon as its newline arrives, so a filter's output
 * keeps pace with a producer that blocks between lines.
 */
static int shell_line_sink_write(struct shell_sink *sink, const char *buf, size_t len)
{
    struct shell_line_sink *ls = container_of(sink, struct shell_line_sink, sink);
    int err;

    while (len) {
        const char *nl = memchr(buf, '\n', len);
        size_t take = nl ? (size_t)(nl - buf) + 1 : len;

        if (ls->len + take > SHELL_LINE_SINK_MAX && ls->len) {
            err = shell_line_sink_deliver(ls);
            if (err)
                return err;
        }
        if (take > SHELL_LINE_SINK_MAX)
            take = SHELL_LINE_SINK_MAX;
        err = shell_line_sink_append(ls, buf, take);
        if (err)
            return err;
        buf += take;
        len -= take;
        if (ls->partial[ls->len - 1] == '\n' || ls->len == SHELL_LINE_SINK_MAX) {
            err = shell_line_sink_deliver(ls);
            if (err)
                return err;
        }
    }
    return 0;
}

void shell_line_sink_init(struct shell_line_sink *ls, struct shell_ctx *ctx,
                          const struct shell_filter *filter, void *state)
{
    *ls = (struct shell_line_sink){
        .sink = {.write = shell_line_sink_write},
        .ctx = ctx,
        .filter = filter,
        .state = state,
    };
}

int shell_line_sink_flush(struct shell_line_sink *ls)
{
    if (ls->sink.error || ls->len == 0)
        return 0;
    return shell_line_sink_deliver(ls);
}

void shell_line_sink_free(struct shell_line_sink *ls)
{
    kfree(ls->partial);
    ls->partial = NULL;
    ls->len = 0;
    ls->cap = 0;
}

/*
 * Once a sink failed it stays failed: a producer that ignores one error must not reach a
 * filter that already said it has enough, nor retry a file that refused the text. The two
 * shared sinks never record anything: the terminal does not fail and the discard sink
 * always does.
 */
int shell_sink_write(struct shell_sink *sink, const char *buf, size_t len)
{
    int err;

    if (sink->error)
        return sink->error;
    if (len == 0)
        return 0;
    err = sink->write(sink, buf, len);
    if (err && sink != &shell_terminal_sink && sink != &shell_discard_sink)
        sink->error = err;
    return err;
}

int shell_write(struct shell_ctx *ctx, const char *buf, size_t len)
{
    if (shell_interrupted())
        return -EINTR;
    return shell_sink_write(ctx->out, buf, len);
}

static int shell_vformat(char *stack_buf, size_t stack_len, char **heap, const char *fmt,
                         va_list ap)
{
    va_list again;
    int n;

    *heap = NULL;
    va_copy(again, ap);
    n = vsnprintf(stack_buf, stack_len, fmt, ap);
    if (n >= 0 && (size_t)n >= stack_len) {
        *heap = kmalloc((size_t)n + 1);
        if (*heap)
            vsnprintf(*heap, (size_t)n + 1, fmt, again);
        else
            n = (int)stack_len - 1;
    }
    va_end(again);
    return n;
}

int shell_printf(struct shell_ctx *ctx, const char *fmt, ...)
{
    char stack_buf[256];
    char *heap;
    va_list ap;
    int n, err;

    va_start(ap, fmt);
    n = shell_vformat(stack_buf, sizeof(stack_buf), &heap, fmt, ap);
    va_end(ap);
    if (n < 0)
        return -EINVAL;
    err = shell_write(ctx, heap ? heap : stack_buf, (size_t)n);
    kfree(heap);
    return err;
}

void shell_eprintf(struct shell_ctx *ctx, const char *fmt, ...)
{
    char stack_buf[256];
    char *heap;
    va_list ap;
    int n;

    (void)ctx;
    va_start(ap, fmt);
    n = shell_vformat(stack_buf, sizeof(stack_buf), &heap, fmt, ap);
    va_end(ap);
    if (n > 0)
        shell_terminal_write(heap ? heap : stack_buf, (size_t)n);
    kfree(heap);
}

int shell_usage(struct shell_ctx *ctx)
{
    shell_eprintf(ctx, "usage: %s\n", ctx->cmd ? ctx->cmd->usage : "?");
    return SHELL_STATUS_SYNTAX;
}

bool shell_interrupted(void) { return console_interrupted(); }
