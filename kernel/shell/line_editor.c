#include <kernel/console.h>
#include <kernel/fault_inject.h>
#include <kernel/mm.h>
#include <kernel/thread.h>
#include <lib/printf.h>
#include <lib/string.h>

#include "shell_internal.h"

/*
 * Line editing for a serial terminal. The cursor always stays at the end of the line, so
 * every edit is either an append, an erase of the last byte, or a redraw of the whole line.
 */

#define CTRL(c) ((c)&0x1f)
#define KEY_ESC 0x1b
#define KEY_DEL 0x7f

/* Ring of the last lines entered; shell_history_total counts every line ever added. */
static char *shell_history[SHELL_HISTORY_SIZE];
static size_t shell_history_total;

static size_t shell_history_available(void)
{
    return MIN(shell_history_total, (size_t)SHELL_HISTORY_SIZE);
}

/* back = 1 is the newest line. */
static const char *shell_history_get(size_t back)
{
    return shell_history[(shell_history_total - back) % SHELL_HISTORY_SIZE];
}

static void shell_history_add(const char *line)
{
    size_t slot;
    char *copy;

    if (!*line)
        return;
    if (shell_history_total && strcmp(shell_history_get(1), line) == 0)
        return;
    copy = kstrdup(line);
    if (!copy)
        return;
    slot = shell_history_total % SHELL_HISTORY_SIZE;
    kfree(shell_history[slot]);
    shell_history[slot] = copy;
    shell_history_total++;
}

/* In one write, so that a kernel message from another CPU or an interrupt cannot land
 * inside it: the console writes each call whole. */
static size_t shell_format_prompt(char *buf, size_t size)
{
    return (size_t)scnprintf(buf, size, "fentros:%s# ", shell_cwd());
}

static void shell_print_prompt(void)
{
    char prompt[SHELL_PATH_MAX + 16];
    shell_terminal_write(prompt, shell_format_prompt(prompt, sizeof(prompt)));
}

/*
 * Back to the line's start, cleared, then the prompt and the line: one write, as the prompt
 * is, and always starting "\r\x1b[K", which is how a reader of the console (the test
 * harness) tells a prompt redrawn in the middle of a line from one that ends a command.
 * The buffer is on the stack (1.3 KiB of the shell thread's 16), not in .bss, where it
 * moved the tracer's data behind it: under emulation, the probe rows of `bench kprobe`
 * read 15 to 25 ns apart with the same code and the data 1.3 KiB further on.
 */
void shell_editor_redraw(const struct shell_editor *ed)
{
    static const char clear[] = "\r\x1b[K";
    char out[sizeof(clear) - 1 + SHELL_PATH_MAX + 16 + SHELL_LINE_MAX];
    size_t n = sizeof(clear) - 1;
    memcpy(out, clear, n);
    n += shell_format_prompt(out + n, sizeof(out) - n);
    size_t len = ed->len < sizeof(out) - n ? ed->len : sizeof(out) - n;
    memcpy(out + n, ed->line, len);
    shell_terminal_write(out, n + len);
}

void shell_editor_init(struct shell_editor *ed) { memset(ed, 0, sizeof(*ed)); }

void shell_editor_new_line(struct shell_editor *ed)
{
    ed->line[0] = '\0';
    ed->len = 0;
    ed->too_long = false;
    ed->esc = SHELL_ESC_NONE;
    ed->history_back = 0;
}

void shell_editor_insert(struct shell_editor *ed, const char *text, size_t len)
{
    if (len > SHELL_LINE_MAX - ed->len) {
        len = SHELL_LINE_MAX - ed->len;
        ed->too_long = true;
    }
    memcpy(ed->line + ed->len, text, len);
    ed->len += len;
    ed->line[ed->len] = '\0';
    shell_terminal_write(text, len);
}

static void shell_editor_set_line(struct shell_editor *ed, const char *text)
{
    ed->len = strlcpy(ed->line, text, sizeof(ed->line));
    if (ed->len > SHELL_LINE_MAX)
        ed->len = SHELL_LINE_MAX;
    ed->too_long = false;
    shell_editor_redraw(ed);
}

static void shell_editor_history_older(struct shell_editor *ed)
{
    if (ed->history_back >= shell_history_available())
        return;
    if (ed->history_back == 0)
        strlcpy(ed->draft, ed->line, sizeof(ed->draft));
    ed->history_back++;
    shell_editor_set_line(ed, shell_history_get(ed->history_back));
}

static void shell_editor_history_newer(struct shell_editor *ed)
{
    if (ed->history_back == 0)
        return;
    ed->history_back--;
    shell_editor_set_line(ed, ed->history_back ? shell_history_get(ed->history_back) : ed->draft);
}

/* Escape sequences: only Up and Down mean something; the rest is read and dropped. */
static void shell_editor_escape(struct shell_editor *ed, int c)
{
    switch (ed->esc) {
    case SHELL_ESC_START:
        if (c == '[') {
            ed->esc = SHELL_ESC_CSI;
            ed->csi_has_params = false;
        } else if (c == 'O') {
            ed->esc = SHELL_ESC_SS3;
        } else {
            ed->esc = SHELL_ESC_NONE;
        }
        return;
    case SHELL_ESC_CSI:
        if (c >= 0x30 && c <= 0x3f) {
            ed->csi_has_params = true;
            return;
        }
        if (c >= 0x20 && c <= 0x2f)
            return;
        ed->esc = SHELL_ESC_NONE;
        /* "ESC [ 1 ; 5 A" is Ctrl-Up: not a plain Up. */
        if (ed->csi_has_params)
            return;
        break;
    case SHELL_ESC_SS3:
        ed->esc = SHELL_ESC_NONE;
        break;
    case SHELL_ESC_NONE:
        return;
    }
    if (c == 'A')
        shell_editor_history_older(ed);
    else if (c == 'B')
        shell_editor_history_newer(ed);
}

static enum shell_edit_result shell_editor_enter(struct shell_editor *ed)
{
    shell_terminal_puts("\n");
    return ed->too_long ? SHELL_EDIT_TOO_LONG : SHELL_EDIT_DONE;
}

enum shell_edit_result shell_editor_feed(struct shell_editor *ed, int c)
{
    bool after_cr = ed->after_cr;

    if (c < 0)
        return SHELL_EDIT_MORE;
    c &= 0xff;
    ed->after_cr = false;

    if (ed->esc != SHELL_ESC_NONE) {
        if (c == KEY_ESC) {
            ed->esc = SHELL_ESC_START;
            return SHELL_EDIT_MORE;
        }
        /* A control byte inside a sequence is acted on, as a terminal would. */
        if (c >= 0x20) {
            shell_editor_escape(ed, c);
            return SHELL_EDIT_MORE;
        }
        ed->esc = SHELL_ESC_NONE;
    }

    switch (c) {
    case '\r':
        ed->after_cr = true;
        return shell_editor_enter(ed);
    case '\n':
        if (after_cr)
            return SHELL_EDIT_MORE;
        return shell_editor_enter(ed);
    case CTRL('C'):
        shell_terminal_puts("^C\n");
        return SHELL_EDIT_CANCEL;
    case '\b':
    case KEY_DEL:
        if (ed->len) {
            ed->line[--ed->len] = '\0';
            shell_terminal_puts("\b \b");
        }
        /* What remains on screen is what will run. */
        ed->too_long = false;
        return SHELL_EDIT_MORE;
    case CTRL('U'):
        ed->line[0] = '\0';
        ed->len = 0;
        ed->too_long = false;
        shell_editor_redraw(ed);
        return SHELL_EDIT_MORE;
    case '\t':
        shell_complete(ed);
        return SHELL_EDIT_MORE;
    case KEY_ESC:
        ed->esc = SHELL_ESC_START;
        return SHELL_EDIT_MORE;
    default:
        break;
    }

    if (c < 0x20 || c >= KEY_DEL)
        return SHELL_EDIT_MORE;
    if (ed->len >= SHELL_LINE_MAX) {
        ed->too_long = true;
        return SHELL_EDIT_MORE;
    }
    ed->line[ed->len++] = (char)c;
    ed->line[ed->len] = '\0';
    shell_terminal_write(ed->line + ed->len - 1, 1);
    return SHELL_EDIT_MORE;
}

/* Typeahead after Ctrl-C is dropped, as a Linux tty flushes its input on an interrupt. */
static void shell_drain_input(void)
{
    while (console_trygetc() >= 0)
        ;
}

void shell_main(void)
{
    static struct shell_editor ed;

    /* Ctrl-C must wake this thread from an interruptible sleep such as `sleep 10`. */
    console_set_foreground(current_thread());
    shell_editor_init(&ed);
    for (;;) {
        enum shell_edit_result result;

        shell_print_prompt();
        shell_editor_new_line(&ed);
        do {
            result = shell_editor_feed(&ed, console_getc());
        } while (result == SHELL_EDIT_MORE);

        switch (result) {
        case SHELL_EDIT_DONE:
            /* Keeping the line is the editor's own work, like parsing it: never failed by
             * injection (see shell_pipeline_controls_faults), else a report would come
             * before the output of the very line that turns injection off. */
            fault_inject_pause();
            shell_history_add(ed.line);
            fault_inject_resume();
            shell_run_line(ed.line);
            if (shell_interrupted()) {
                shell_drain_input();
                console_clear_interrupt();
                shell_terminal_puts("^C\n");
            }
            break;
        case SHELL_EDIT_CANCEL:
            console_clear_interrupt();
            shell_set_status(SHELL_STATUS_INTERRUPTED);
            break;
        case SHELL_EDIT_TOO_LONG:
            shell_terminal_puts("fentros: line too long (max 1023 bytes)\n");
            shell_set_status(1);
            break;
        case SHELL_EDIT_MORE:
            break;
        }
    }
}
