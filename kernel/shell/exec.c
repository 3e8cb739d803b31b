#include <kernel/console.h>
#include <kernel/errno.h>
#include <kernel/fault_inject.h>
#include <kernel/mm.h>
#include <lib/string.h>

#include "shell_internal.h"

/*
 * The executor. A pipeline runs in one thread, stage after stage, yet streams: before the
 * first stage runs, every filter stage is set up as a line sink, and each stage writes into
 * the sink of the next. A line written by `cat trace_pipe` is therefore pushed through grep
 * and onto the console before cat reads again. A filter's turn comes when the stages before
 * it have finished: it then reads its FILE operands, if any, and its finish() flushes what
 * it kept (tail's ring, wc's count) into the stage after it.
 */

#define SHELL_READ_CHUNK 4096

/* Bounds of the table SHELL_COMMAND fills, placed by the linker script. */
extern const struct shell_command __start_shell_commands[];
extern const struct shell_command __stop_shell_commands[];

static char shell_cwd_path[SHELL_PATH_MAX] = "/";
static int shell_last_status;
/* Lines run inside a command (self-tests) must not clear the Ctrl-C of the outer line. */
static int shell_run_depth;

const struct shell_command *shell_commands_begin(void) { return __start_shell_commands; }

const struct shell_command *shell_commands_end(void) { return __stop_shell_commands; }

const struct shell_command *shell_find_command(const char *name)
{
    const struct shell_command *cmd;

    for (cmd = shell_commands_begin(); cmd < shell_commands_end(); cmd++) {
        if (strcmp(cmd->name, name) == 0)
            return cmd;
    }
    return NULL;
}

const char *shell_cwd(void) { return shell_cwd_path; }

int shell_chdir(const char *path)
{
    char resolved[SHELL_PATH_MAX];
    struct pfs_node *n;
    int err;

    pfs_control_lock();
    err = pfs_lookup(shell_cwd_path, path, &n);
    if (!err && !pfs_is_dir(n))
        err = -ENOTDIR;
    if (!err)
        err = pfs_path(n, resolved, sizeof(resolved));
    pfs_control_unlock();
    if (err)
        return err;
    strlcpy(shell_cwd_path, resolved, sizeof(shell_cwd_path));
    return 0;
}

void shell_set_status(int status) { shell_last_status = status; }

const char *shell_filter_input_name(struct shell_ctx *ctx) { return ctx->input_name; }

/* Returns 0, SHELL_STATUS_INTERRUPTED, or the filter's error status. */
static int shell_filter_feed_file(struct shell_ctx *ctx, struct shell_line_sink *in,
                                  const char *path)
{
    const struct shell_filter *filter = ctx->cmd->filter;
    struct pfs_file *f;
    char *buf;
    int status = 0;
    int err;

    err = pfs_open(shell_cwd_path, path, PFS_READ, &f);
    if (err) {
        shell_eprintf(ctx, "%s: %s: %s\n", ctx->cmd->name, path, strerror(-err));
        return filter->error_status;
    }
    buf = kmalloc(SHELL_READ_CHUNK);
    if (!buf) {
        pfs_close(f);
        shell_eprintf(ctx, "%s: %s\n", ctx->cmd->name, strerror(ENOMEM));
        return filter->error_status;
    }

    ctx->input_name = path;
    for (;;) {
        ssize_t n = pfs_read(f, buf, SHELL_READ_CHUNK);
        if (n == -EINTR || shell_interrupted()) {
            status = SHELL_STATUS_INTERRUPTED;
            break;
        }
        if (n < 0) {
            shell_eprintf(ctx, "%s: %s: %s\n", ctx->cmd->name, path, strerror((int)-n));
            status = filter->error_status;
            break;
        }
        if (n == 0 || shell_sink_write(&in->sink, buf, (size_t)n))
            break;
    }
    if (!status) {
        shell_line_sink_flush(in);
        if (filter->input_end)
            filter->input_end(ctx, in->state);
    }
    ctx->input_name = NULL;

    kfree(buf);
    pfs_close(f);
    return status;
}

/* A filter's turn: read its FILE operands or flush its piped input, then finish. */
static int shell_filter_complete(struct shell_ctx *ctx, struct shell_line_sink *in, int argc,
                                 char **argv, int files_at)
{
    int status = 0;
    int finished;
    int i;

    for (i = files_at; i < argc && !shell_interrupted(); i++) {
        int err = shell_filter_feed_file(ctx, in, argv[i]);
        if (err)
            status = err;
        /* A new file would start a new stream, but the filter refused this one. */
        if (in->sink.error)
            break;
    }
    if (files_at >= argc)
        shell_line_sink_flush(in);
    finished = ctx->cmd->filter->finish(ctx, in->state);
    if (shell_interrupted())
        return SHELL_STATUS_INTERRUPTED;
    return status ? status : finished;
}

int shell_filter_command(struct shell_ctx *ctx, int argc, char **argv)
{
    const struct shell_filter *filter = ctx->cmd->filter;
    struct shell_line_sink in;
    int files_at = argc;
    void *state;
    int status;

    state = kzalloc(MAX(filter->state_size, (size_t)1));
    if (!state) {
        shell_eprintf(ctx, "%s: %s\n", ctx->cmd->name, strerror(ENOMEM));
        return 1;
    }
    status = filter->start(ctx, state, argc, argv, &files_at);
    if (!status) {
        shell_line_sink_init(&in, ctx, filter, state);
        status = shell_filter_complete(ctx, &in, argc, argv, files_at);
        shell_line_sink_free(&in);
    }
    kfree(state);
    return status;
}

struct shell_stage {
    struct shell_ctx ctx;
    int argc;
    char **argv;
    struct pfs_file *redirect;
    struct shell_file_sink file_sink;
    struct shell_line_sink input;
    void *filter_state;
    int files_at;
    bool ready;       /* set up without error: runs at its turn */
    bool reads_input; /* a filter without FILE operands: the stage before feeds it */
    int status;
};

/* Expands the words and opens the redirections of one stage (tokens [0, count)). */
static void shell_stage_prepare(struct shell_stage *st, const struct shell_token *tok, size_t count,
                                int status_in)
{
    size_t i, words = 0;

    st->ready = true;
    for (i = 0; i < count; i++) {
        if (tok[i].kind == SHELL_TOK_WORD)
            words++;
    }
    st->argv = kzalloc((words + 1) * sizeof(char *));
    if (!st->argv)
        goto nomem;

    for (i = 0; i < count; i++) {
        char *text;
        int flags, err;

        if (tok[i].kind == SHELL_TOK_WORD) {
            text = shell_expand_word(&tok[i], status_in);
            if (!text)
                goto nomem;
            st->argv[st->argc++] = text;
            continue;
        }

        /* The tokenizer guarantees a word after each redirection operator. */
        flags = PFS_WRITE | (tok[i].kind == SHELL_TOK_APPEND ? PFS_APPEND : PFS_TRUNC);
        text = shell_expand_word(&tok[++i], status_in);
        if (!text)
            goto nomem;
        /* As in bash, an earlier redirection of the same command is opened, then dropped. */
        if (st->redirect) {
            pfs_close(st->redirect);
            st->redirect = NULL;
        }
        err = pfs_open(shell_cwd_path, text, flags, &st->redirect);
        if (err)
            shell_eprintf(NULL, "fentros: %s: %s\n", text, strerror(-err));
        kfree(text);
        if (err) {
            st->ready = false;
            st->status = 1;
            return;
        }
        shell_file_sink_init(&st->file_sink, st->redirect);
    }
    return;

nomem:
    shell_eprintf(NULL, "fentros: %s\n", strerror(ENOMEM));
    st->ready = false;
    st->status = 1;
}

static void shell_stage_setup_command(struct shell_stage *st)
{
    const struct shell_filter *filter;

    if (!st->ready || st->argc == 0)
        return;
    st->ctx.cmd = shell_find_command(st->argv[0]);
    if (!st->ctx.cmd) {
        shell_eprintf(NULL, "fentros: %s: command not found\n", st->argv[0]);
        st->ready = false;
        st->status = SHELL_STATUS_NOT_FOUND;
        return;
    }
    filter = st->ctx.cmd->filter;
    if (!filter)
        return;

    st->filter_state = kzalloc(MAX(filter->state_size, (size_t)1));
    if (!st->filter_state) {
        shell_eprintf(NULL, "%s: %s\n", st->argv[0], strerror(ENOMEM));
        st->ready = false;
        st->status = 1;
        return;
    }
    st->files_at = st->argc;
    st->status = filter->start(&st->ctx, st->filter_state, st->argc, st->argv, &st->files_at);
    if (st->status) {
        st->ready = false;
        return;
    }
    shell_line_sink_init(&st->input, &st->ctx, filter, st->filter_state);
    st->reads_input = st->files_at >= st->argc;
}

static int shell_stage_run(struct shell_stage *st)
{
    const struct shell_command *cmd = st->ctx.cmd;

    if (!cmd)
        return 0; /* only redirections: opening and closing the file is the effect */
    if (cmd->filter)
        return shell_filter_complete(&st->ctx, &st->input, st->argc, st->argv, st->files_at);
    return cmd->fn(&st->ctx, st->argc, st->argv);
}

/* Closing commits the file (filters install at release), so it happens as the stage ends. */
static void shell_stage_close_redirect(struct shell_stage *st)
{
    int err, release_err;

    if (!st->redirect)
        return;
    err = st->file_sink.sink.error;
    release_err = pfs_close(st->redirect);
    st->redirect = NULL;
    if (!err)
        err = release_err;
    if (err && err != -EINTR) {
        shell_eprintf(NULL, "%s: write error: %s\n", st->ctx.cmd ? st->ctx.cmd->name : "fentros",
                      strerror(-err));
        st->status = 1;
    }
}

static void shell_stage_free(struct shell_stage *st)
{
    int i;

    for (i = 0; i < st->argc; i++)
        kfree(st->argv[i]);
    kfree(st->argv);
    shell_line_sink_free(&st->input);
    kfree(st->filter_state);
}

static int shell_run_pipeline(const struct shell_token *tok, size_t count)
{
    struct shell_stage *stages;
    size_t nr_stages = 1, i, first;
    int status_in = shell_last_status;
    bool interrupted = false;
    int status;

    for (i = 0; i < count; i++) {
        if (tok[i].kind == SHELL_TOK_PIPE)
            nr_stages++;
    }
    stages = kzalloc(nr_stages * sizeof(*stages));
    if (!stages) {
        shell_eprintf(NULL, "fentros: %s\n", strerror(ENOMEM));
        return 1;
    }

    first = 0;
    for (i = 0; i < nr_stages; i++) {
        size_t end = first;
        while (end < count && tok[end].kind != SHELL_TOK_PIPE)
            end++;
        stages[i].ctx.out = &shell_discard_sink;
        shell_stage_prepare(&stages[i], &tok[first], end - first, status_in);
        shell_stage_setup_command(&stages[i]);
        first = end + 1;
    }

    /* Wired only now: a stage's output depends on whether the next one reads input. */
    for (i = 0; i < nr_stages; i++) {
        struct shell_stage *st = &stages[i];
        if (st->redirect)
            st->ctx.out = &st->file_sink.sink;
        else if (i + 1 == nr_stages)
            st->ctx.out = &shell_terminal_sink;
        else if (stages[i + 1].ready && stages[i + 1].reads_input)
            st->ctx.out = &stages[i + 1].input.sink;
        else
            st->ctx.out = &shell_discard_sink;
    }

    for (i = 0; i < nr_stages; i++) {
        struct shell_stage *st = &stages[i];
        if (st->ready) {
            if (!interrupted)
                st->status = shell_stage_run(st);
            else if (st->ctx.cmd && st->ctx.cmd->filter)
                st->ctx.cmd->filter->finish(&st->ctx, st->filter_state);
        }
        shell_stage_close_redirect(st);
        if (shell_interrupted())
            interrupted = true;
    }

    status = interrupted ? SHELL_STATUS_INTERRUPTED : stages[nr_stages - 1].status;
    for (i = 0; i < nr_stages; i++)
        shell_stage_free(&stages[i]);
    kfree(stages);
    return (int)((unsigned)status & 0xff);
}

/*
 * Whether a pipeline (tokens [0, count)) names a fault-injection file, as an operand or as
 * a redirection's target. Such a pipeline runs with injection paused for the shell's
 * thread, so `echo 0 > probability` turns injection off at the first try even at 100 %:
 * on Linux the shell's own memory is a user process's and a debugfs write allocates
 * nothing, and here the shell's parsing, its argv and the open file are kernel memory.
 * Other pipelines of the same line stay exposed. The check runs paused too.
 */
static bool shell_pipeline_controls_faults(const struct shell_token *tok, size_t count,
                                           int status_in)
{
    bool found = false;
    size_t i;

    fault_inject_pause();
    for (i = 0; i < count && !found; i++) {
        struct pfs_node *n;
        char *text;

        if (tok[i].kind != SHELL_TOK_WORD)
            continue;
        text = shell_expand_word(&tok[i], status_in);
        pfs_control_lock();
        found = text && pfs_lookup(shell_cwd_path, text, &n) == 0 && fault_inject_owns_file(n);
        pfs_control_unlock();
        kfree(text);
    }
    fault_inject_resume();
    return found;
}

static int shell_run_pipeline_checked(const struct shell_token *tok, size_t count)
{
    bool paused = shell_pipeline_controls_faults(tok, count, shell_last_status);
    int status;

    if (paused)
        fault_inject_pause();
    status = shell_run_pipeline(tok, count);
    if (paused)
        fault_inject_resume();
    return status;
}

int shell_run_line(const char *line)
{
    struct shell_tokens tokens;
    char err[96];
    size_t i, start = 0;
    int tokenized;

    shell_run_depth++;
    /* Which pipelines are exempt from injection is known only from the tokens, so the
     * tokenizer, the shell's own parsing, is never failed (see above). */
    fault_inject_pause();
    tokenized = shell_tokenize(line, &tokens, err, sizeof(err));
    fault_inject_resume();
    if (tokenized) {
        shell_eprintf(NULL, "fentros: %s\n", err);
        shell_last_status = SHELL_STATUS_SYNTAX;
        shell_run_depth--;
        return shell_last_status;
    }

    for (i = 0; i <= tokens.count; i++) {
        if (i < tokens.count && tokens.tok[i].kind != SHELL_TOK_SEMI)
            continue;
        if (i > start) {
            if (shell_run_depth == 1)
                console_clear_interrupt();
            shell_last_status = shell_run_pipeline_checked(&tokens.tok[start], i - start);
            /* Ctrl-C stops the whole line, as it stops a bash list. */
            if (shell_interrupted()) {
                shell_last_status = SHELL_STATUS_INTERRUPTED;
                break;
            }
        }
        start = i + 1;
    }
    shell_tokens_free(&tokens);
    shell_run_depth--;
    return shell_last_status;
}

int shell_run_line_capture(const char *line, char *buf, size_t len)
{
    struct shell_capture cap = {.buf = buf, .len = len};
    struct shell_capture *previous = shell_capture_begin(&cap);
    int status = shell_run_line(line);

    shell_capture_end(previous);
    return status;
}
