#include <kernel/errno.h>
#include <kernel/mm.h>
#include <lib/printf.h>
#include <lib/string.h>

#include "shell_internal.h"

/*
 * Grammar: line = [pipeline] { sep [pipeline] }, pipeline = command { '|' command },
 * command = { word | ('>' | '>>') word }, sep = ';' or newline. A ';' needs a command before
 * it; a newline does not, so scripts may contain blank lines. '#' at the start of a word
 * comments out the rest of the line.
 */

static bool shell_is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

/* Characters that end an unquoted word. */
static bool shell_is_word_end(char c)
{
    return c == '\0' || c == '\n' || shell_is_blank(c) || c == ';' || c == '|' || c == '>' ||
           c == '<' || c == '&';
}

static size_t shell_put_status(char *out, int status)
{
    char digits[12];
    int n = scnprintf(digits, sizeof(digits), "%d", status);

    if (out)
        memcpy(out, digits, (size_t)n);
    return (size_t)n;
}

/*
 * One scanner serves both passes so they cannot disagree about where a word ends: the
 * tokenizer runs it with out == NULL to find the end and check the quotes, the expansion
 * runs it again on the same text with a buffer. Returns the source length consumed, or -1
 * for an unterminated quote.
 */
static ssize_t shell_scan_word(const char *s, char *out, int status)
{
    size_t i = 0, o = 0;

#define EMIT(ch)                                                                                   \
    do {                                                                                           \
        if (out)                                                                                   \
            out[o] = (ch);                                                                         \
        o++;                                                                                       \
    } while (0)

    while (!shell_is_word_end(s[i])) {
        char c = s[i];

        if (c == '\'') {
            i++;
            for (; s[i] && s[i] != '\''; i++)
                EMIT(s[i]);
            if (!s[i])
                return -1;
            i++;
        } else if (c == '"') {
            i++;
            while (s[i] && s[i] != '"') {
                if (s[i] == '\\' && (s[i + 1] == '"' || s[i + 1] == '\\' || s[i + 1] == '$')) {
                    EMIT(s[i + 1]);
                    i += 2;
                } else if (s[i] == '$' && s[i + 1] == '?') {
                    o += shell_put_status(out ? out + o : NULL, status);
                    i += 2;
                } else {
                    EMIT(s[i]);
                    i++;
                }
            }
            if (!s[i])
                return -1;
            i++;
        } else if (c == '\\') {
            /* A backslash ending the line stays literal, as bash -c leaves it. */
            if (s[i + 1] == '\0') {
                EMIT('\\');
                i++;
            } else {
                EMIT(s[i + 1]);
                i += 2;
            }
        } else if (c == '$' && s[i + 1] == '?') {
            o += shell_put_status(out ? out + o : NULL, status);
            i += 2;
        } else {
            EMIT(c);
            i++;
        }
    }
    if (out)
        out[o] = '\0';
    return (ssize_t)i;
#undef EMIT
}

char *shell_expand_word(const struct shell_token *tok, int status)
{
    /* "$?" (2 bytes) becomes at most 11 digits and a sign; everything else only shrinks. */
    size_t cap = tok->len * 6 + 1;
    char *out = kmalloc(cap);

    if (out)
        shell_scan_word(tok->text, out, status);
    return out;
}

static int shell_push_token(struct shell_tokens *t, size_t *cap, enum shell_token_kind kind,
                            const char *text, size_t len)
{
    if (t->count == *cap) {
        size_t grown_cap = *cap ? *cap * 2 : 16;
        struct shell_token *grown = krealloc(t->tok, grown_cap * sizeof(*grown));
        if (!grown)
            return -ENOMEM;
        t->tok = grown;
        *cap = grown_cap;
    }
    t->tok[t->count++] = (struct shell_token){kind, text, len};
    return 0;
}

static const char *shell_token_name(enum shell_token_kind kind)
{
    switch (kind) {
    case SHELL_TOK_PIPE:
        return "|";
    case SHELL_TOK_SEMI:
        return ";";
    case SHELL_TOK_REDIRECT:
        return ">";
    case SHELL_TOK_APPEND:
        return ">>";
    default:
        return "";
    }
}

static bool shell_is_redirect(enum shell_token_kind kind)
{
    return kind == SHELL_TOK_REDIRECT || kind == SHELL_TOK_APPEND;
}

/*
 * Checks that an operator may follow the previous token: a separator needs a command
 * before it and nothing may stand between a redirection and its file.
 */
static bool shell_operator_allowed(const struct shell_tokens *t, enum shell_token_kind kind,
                                   bool command_started)
{
    enum shell_token_kind prev;

    if (t->count == 0)
        return shell_is_redirect(kind);
    prev = t->tok[t->count - 1].kind;
    if (shell_is_redirect(prev))
        return false;
    if (kind == SHELL_TOK_PIPE || kind == SHELL_TOK_SEMI)
        return command_started;
    return true;
}

int shell_tokenize(const char *line, struct shell_tokens *out, char *err, size_t err_len)
{
    struct shell_tokens t = {NULL, 0};
    size_t cap = 0;
    const char *p = line;
    /* The current command has a word or a redirection: a separator may end it. */
    bool command_started = false;
    int ret;

    while (*p) {
        enum shell_token_kind kind;
        size_t op_len = 1;

        if (shell_is_blank(*p)) {
            p++;
            continue;
        }
        if (*p == '#') {
            while (*p && *p != '\n')
                p++;
            continue;
        }
        if (*p == '\n') {
            if (t.count && shell_is_redirect(t.tok[t.count - 1].kind)) {
                scnprintf(err, err_len, "syntax error near unexpected token 'newline'");
                ret = -EINVAL;
                goto fail;
            }
            if (t.count && t.tok[t.count - 1].kind == SHELL_TOK_PIPE) {
                p++; /* a pipeline continues on the next line */
                continue;
            }
            if (command_started) {
                ret = shell_push_token(&t, &cap, SHELL_TOK_SEMI, p, 1);
                if (ret)
                    goto fail;
                command_started = false;
            }
            p++;
            continue;
        }
        if (*p == '<' || *p == '&') {
            scnprintf(err, err_len, "syntax error: '%c' is not supported", *p);
            ret = -EINVAL;
            goto fail;
        }

        if (*p == ';') {
            kind = SHELL_TOK_SEMI;
        } else if (*p == '|') {
            kind = SHELL_TOK_PIPE;
        } else if (*p == '>') {
            kind = p[1] == '>' ? SHELL_TOK_APPEND : SHELL_TOK_REDIRECT;
            op_len = kind == SHELL_TOK_APPEND ? 2 : 1;
        } else {
            ssize_t len = shell_scan_word(p, NULL, 0);
            if (len < 0) {
                scnprintf(err, err_len, "syntax error: unterminated quote");
                ret = -EINVAL;
                goto fail;
            }
            ret = shell_push_token(&t, &cap, SHELL_TOK_WORD, p, (size_t)len);
            if (ret)
                goto fail;
            command_started = true;
            p += len;
            continue;
        }

        if (!shell_operator_allowed(&t, kind, command_started)) {
            scnprintf(err, err_len, "syntax error near unexpected token '%s'",
                      shell_token_name(kind));
            ret = -EINVAL;
            goto fail;
        }
        ret = shell_push_token(&t, &cap, kind, p, op_len);
        if (ret)
            goto fail;
        command_started = shell_is_redirect(kind);
        p += op_len;
    }

    if (t.count) {
        enum shell_token_kind last = t.tok[t.count - 1].kind;
        if (last == SHELL_TOK_PIPE || shell_is_redirect(last)) {
            scnprintf(err, err_len, "syntax error near unexpected token 'newline'");
            ret = -EINVAL;
            goto fail;
        }
    }
    *out = t;
    return 0;

fail:
    if (ret == -ENOMEM)
        scnprintf(err, err_len, "%s", strerror(ENOMEM));
    shell_tokens_free(&t);
    out->tok = NULL;
    out->count = 0;
    return ret;
}

void shell_tokens_free(struct shell_tokens *t)
{
    kfree(t->tok);
    t->tok = NULL;
    t->count = 0;
}
