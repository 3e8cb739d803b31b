#ifndef KERNEL_SHELL_SHELL_INTERNAL_H
#define KERNEL_SHELL_SHELL_INTERNAL_H

/* Shared between the files of the shell; nothing outside kernel/shell/ includes this. */

#include <kernel/pseudofs.h>
#include <kernel/shell.h>

#define SHELL_LINE_MAX 1023
#define SHELL_PATH_MAX 256
#define SHELL_HISTORY_SIZE 32

#define SHELL_STATUS_SYNTAX 2
#define SHELL_STATUS_NOT_FOUND 127
#define SHELL_STATUS_INTERRUPTED 130

/* ---- parser.c: the line becomes tokens, checked against the grammar up front ---- */

enum shell_token_kind {
    SHELL_TOK_WORD,
    SHELL_TOK_PIPE,     /* | */
    SHELL_TOK_SEMI,     /* ; or a newline */
    SHELL_TOK_REDIRECT, /* > */
    SHELL_TOK_APPEND,   /* >> */
};

/* A token is a span of the line; a word keeps its quotes until shell_expand_word. */
struct shell_token {
    enum shell_token_kind kind;
    const char *text;
    size_t len;
};

struct shell_tokens {
    struct shell_token *tok;
    size_t count;
};

/*
 * Returns 0 with the tokens, or -EINVAL with the message to print after "fentros: " in err
 * (e.g. "syntax error: unterminated quote"), or -ENOMEM. Words are expanded later, when
 * their command runs, because `$?` must see the status of the command before.
 */
int shell_tokenize(const char *line, struct shell_tokens *out, char *err, size_t err_len);
void shell_tokens_free(struct shell_tokens *t);
/* The word's final text: quotes removed, escapes applied, `$?` replaced. kmalloc'd. */
char *shell_expand_word(const struct shell_token *tok, int status);

/* ---- sink.c: where a command's output goes ---- */

struct shell_sink {
    /* Returns 0 or -errno; may accept fewer bytes only by failing. */
    int (*write)(struct shell_sink *sink, const char *buf, size_t len);
    int error; /* the first error write returned, kept for the executor's report */
};

struct shell_ctx {
    const struct shell_command *cmd;
    struct shell_sink *out;
    const char *input_name; /* the FILE operand a filter is reading */
};

/* Writes into a sink and remembers its first failure; shell_write goes through here. */
int shell_sink_write(struct shell_sink *sink, const char *buf, size_t len);

/* The console, or the capture buffer while shell_run_line_capture runs. */
extern struct shell_sink shell_terminal_sink;
/* Takes nothing: the stage after it is not reading. */
extern struct shell_sink shell_discard_sink;
void shell_terminal_write(const char *buf, size_t len);
void shell_terminal_puts(const char *s);

struct shell_capture {
    char *buf;
    size_t len;
    size_t used;
};
/* Returns the capture it replaces, to be restored when done. */
struct shell_capture *shell_capture_begin(struct shell_capture *cap);
void shell_capture_end(struct shell_capture *previous);

struct shell_file_sink {
    struct shell_sink sink;
    struct pfs_file *file;
};
void shell_file_sink_init(struct shell_file_sink *fs, struct pfs_file *file);

/* Splits what is written into lines and hands each to a filter. */
struct shell_line_sink {
    struct shell_sink sink;
    struct shell_ctx *ctx; /* the filter's own context, whose output is the next stage */
    const struct shell_filter *filter;
    void *state;
    char *partial; /* the line being assembled, NUL-terminated when delivered */
    size_t len;
    size_t cap;
};
void shell_line_sink_init(struct shell_line_sink *ls, struct shell_ctx *ctx,
                          const struct shell_filter *filter, void *state);
/* Delivers a last line that had no newline. */
int shell_line_sink_flush(struct shell_line_sink *ls);
void shell_line_sink_free(struct shell_line_sink *ls);

/* ---- exec.c: running lines, shell state ---- */

const char *shell_cwd(void);
/* For lines that never reach the executor: Ctrl-C at the prompt, a line too long. */
void shell_set_status(int status);
/* Changes the working directory; returns 0 or -errno. */
int shell_chdir(const char *path);
const struct shell_command *shell_commands_begin(void);
const struct shell_command *shell_commands_end(void);

/* ---- line_editor.c ---- */

enum shell_edit_result {
    SHELL_EDIT_MORE,     /* keep feeding bytes */
    SHELL_EDIT_DONE,     /* a line is ready in ed->line */
    SHELL_EDIT_CANCEL,   /* Ctrl-C: the line is dropped */
    SHELL_EDIT_TOO_LONG, /* Enter after more than SHELL_LINE_MAX bytes were typed */
};

enum shell_escape_state {
    SHELL_ESC_NONE,
    SHELL_ESC_START, /* after ESC */
    SHELL_ESC_CSI,   /* after ESC [ */
    SHELL_ESC_SS3,   /* after ESC O */
};

struct shell_editor {
    char line[SHELL_LINE_MAX + 1];
    size_t len;
    bool too_long;
    enum shell_escape_state esc;
    bool csi_has_params;
    /* A CR ended the last line; an LF right after it belongs to the same Enter. */
    bool after_cr;
    /* History entry shown, counted back from the newest; 0 = the line being typed. */
    size_t history_back;
    char draft[SHELL_LINE_MAX + 1];
};

void shell_editor_init(struct shell_editor *ed);
/* Starts a new line; keeps after_cr, which spans the boundary between two lines. */
void shell_editor_new_line(struct shell_editor *ed);
enum shell_edit_result shell_editor_feed(struct shell_editor *ed, int c);
void shell_editor_insert(struct shell_editor *ed, const char *text, size_t len);
void shell_editor_redraw(const struct shell_editor *ed);

/* ---- completion.c ---- */

void shell_complete(struct shell_editor *ed);

#endif
