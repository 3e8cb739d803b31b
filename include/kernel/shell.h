#ifndef KERNEL_SHELL_H
#define KERNEL_SHELL_H

#include <kernel/compiler.h>

/*
 * The serial shell. A command is a function registered by SHELL_COMMAND in a linker
 * section; it writes its standard output through shell_write/shell_printf, which lead to
 * the console, to a redirected file, or into the next stage of a pipeline. Error messages
 * go through shell_eprintf, which always reaches the console (or the buffer of
 * shell_run_line_capture), whatever the output is redirected to.
 */
struct shell_ctx;

typedef int (*shell_cmd_fn)(struct shell_ctx *ctx, int argc, char **argv);

struct shell_filter;

struct shell_command {
    const char *name;
    const char *usage; /* e.g. "head [-n N]", printed as "usage: head [-n N]" */
    const char *help;  /* one line for `help` */
    shell_cmd_fn fn;
    /* Set for line filters (SHELL_FILTER): a pipeline pushes its input into them. */
    const struct shell_filter *filter;
};

#define SHELL_COMMAND(cmd_name, usage_text, help_text)                                             \
    static int shell_cmd_fn_##cmd_name(struct shell_ctx *ctx, int argc, char **argv);              \
    static const struct shell_command shell_command_##cmd_name __used __section(".shell_commands") \
        __aligned(8) = {                                                                           \
            .name = #cmd_name,                                                                     \
            .usage = usage_text,                                                                   \
            .help = help_text,                                                                     \
            .fn = shell_cmd_fn_##cmd_name,                                                         \
    };                                                                                             \
    static int shell_cmd_fn_##cmd_name(struct shell_ctx *ctx, int argc, char **argv)

/*
 * A line filter (grep, head, ...) consumes its input as it is produced, so a pipeline streams
 * from a blocking producer such as trace_pipe.
 *
 * start() parses the arguments into the zeroed state and returns 0 or an exit status (it
 * frees what it allocated when it fails); *files_at is set to the index of the first FILE
 * operand (argc when none). A filter with FILE operands reads them instead of its input.
 * line() gets one line at a time, with its '\n' when it had one, NUL-terminated; it returns
 * 0, or a negative errno to refuse further input (-EPIPE: it has all it wants).
 * input_end() (optional) runs after each FILE operand that could be read, while
 * shell_filter_input_name() still names it. finish() runs once at the end of input, also
 * after Ctrl-C (its output is then refused), releases what the state holds and returns the
 * exit status; the state itself is freed by the shell.
 */
struct shell_filter {
    size_t state_size;
    int error_status; /* exit status when a FILE operand cannot be read */
    int (*start)(struct shell_ctx *ctx, void *state, int argc, char **argv, int *files_at);
    int (*line)(struct shell_ctx *ctx, void *state, const char *line, size_t len);
    int (*input_end)(struct shell_ctx *ctx, void *state);
    int (*finish)(struct shell_ctx *ctx, void *state);
};

/* The FILE operand a filter is reading, or NULL while it reads piped input. */
const char *shell_filter_input_name(struct shell_ctx *ctx);
/* Runs a filter as a command with no piped input: it reads its FILE operands, or nothing. */
int shell_filter_command(struct shell_ctx *ctx, int argc, char **argv);

#define SHELL_FILTER(cmd_name, usage_text, help_text, filter_ops)                                  \
    static const struct shell_command shell_command_##cmd_name __used __section(".shell_commands") \
        __aligned(8) = {                                                                           \
            .name = #cmd_name,                                                                     \
            .usage = usage_text,                                                                   \
            .help = help_text,                                                                     \
            .fn = shell_filter_command,                                                            \
            .filter = &(filter_ops),                                                               \
    }

/*
 * Returns 0, or a negative errno, after which the command should stop producing and return:
 * -EPIPE means the reader of this output wants nothing more (`| head -n 3` has its lines),
 * -EINTR that Ctrl-C was typed, anything else that a redirected file refused the text (the
 * shell prints "NAME: write error: ..." itself when the command returns).
 */
int shell_write(struct shell_ctx *ctx, const char *buf, size_t len);
int shell_printf(struct shell_ctx *ctx, const char *fmt, ...) __printf(2, 3);
void shell_eprintf(struct shell_ctx *ctx, const char *fmt, ...) __printf(2, 3);
/* Prints "usage: <usage>" for the running command and returns the exit status to use (2). */
int shell_usage(struct shell_ctx *ctx);
/* True once Ctrl-C was typed while the command runs; long or blocking commands poll it. */
bool shell_interrupted(void);

/* Runs one command line as if typed; returns its exit status. */
int shell_run_line(const char *line);
/*
 * Same, but everything the line prints (output and error messages) goes into buf, which is
 * always NUL-terminated and cut short when full. For self-tests.
 */
int shell_run_line_capture(const char *line, char *buf, size_t len);
/* The interactive loop: prompt, line editing, history; never returns. */
void shell_main(void);

const struct shell_command *shell_find_command(const char *name);

#endif
