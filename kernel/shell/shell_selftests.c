#include <kernel/errno.h>
#include <kernel/mm.h>
#include <kernel/selftest.h>
#include <lib/printf.h>
#include <lib/string.h>

#include "shell_internal.h"

/*
 * Shell tests run lines with their output captured. Their files live under /selftest-shell,
 * built on first use. Tests that change the working directory put it back.
 */

#define SHELL_TEST_DIR "/selftest-shell"

/* A file that records how it was used, to check what the shell does to it. */
struct shell_test_record {
    int opens;
    int open_flags;
    int writes;
    int releases;
    int release_after_writes; /* writes seen when the release came */
    char text[128];
    size_t text_len;
    int write_error;   /* returned by every write when set */
    int release_error; /* returned by release when set */
    size_t max_take;   /* a write takes at most this much when set */
};

static struct shell_test_record shell_test_record;

static int shell_test_record_open(struct pfs_file *f)
{
    struct shell_test_record *r = f->data;

    r->opens++;
    r->open_flags = f->flags;
    return 0;
}

static ssize_t shell_test_record_write(struct pfs_file *f, const char *buf, size_t len)
{
    struct shell_test_record *r = f->data;
    size_t n;

    r->writes++;
    if (r->write_error)
        return r->write_error;
    if (r->max_take && len > r->max_take)
        len = r->max_take;
    n = MIN(len, sizeof(r->text) - 1 - r->text_len);
    memcpy(r->text + r->text_len, buf, n);
    r->text_len += n;
    r->text[r->text_len] = '\0';
    return (ssize_t)len;
}

static int shell_test_record_release(struct pfs_file *f)
{
    struct shell_test_record *r = f->data;

    r->releases++;
    r->release_after_writes = r->writes;
    return r->release_error;
}

static const struct pfs_ops shell_test_record_ops = {
    .open = shell_test_record_open,
    .write = shell_test_record_write,
    .release = shell_test_record_release,
};

/*
 * Produces one line per read call and counts the calls, to see that a pipeline stops its
 * producer and that output moves downstream before the next read.
 */
struct shell_test_stream {
    int reads;
    int lines;
    const char *capture; /* the capture buffer of the running test */
    bool streamed;       /* each line reached the capture before the next read */
};

static struct shell_test_stream shell_test_stream;

static ssize_t shell_test_stream_read(struct pfs_file *f, char *buf, size_t len)
{
    struct shell_test_stream *s = f->data;
    char expect[32];

    if (s->reads > 0 && s->capture) {
        scnprintf(expect, sizeof(expect), "line %d\n", s->reads);
        if (!strstr(s->capture, expect))
            s->streamed = false;
    }
    if (s->reads >= s->lines)
        return 0;
    s->reads++;
    return scnprintf(buf, len, "line %d\n", s->reads);
}

static const struct pfs_ops shell_test_stream_ops = {
    .read = shell_test_stream_read,
};

static int shell_test_show_lines(struct seqbuf *s, void *data)
{
    int i;

    (void)data;
    for (i = 1; i <= 20; i++)
        seq_printf(s, "row %02d%s\n", i, i % 5 == 0 ? " FIVE" : "");
    return 0;
}

static void shell_test_tree(void)
{
    struct pfs_node *dir;

    if (pfs_lookup(NULL, SHELL_TEST_DIR, &dir) == 0)
        return;
    dir = pfs_mkdir(SHELL_TEST_DIR "/sub");
    pfs_lookup(NULL, SHELL_TEST_DIR, &dir);
    pfs_create(dir, "record", 0644, &shell_test_record_ops, &shell_test_record);
    pfs_create(dir, "stream", 0444, &shell_test_stream_ops, &shell_test_stream);
    pfs_create_seq(dir, "rows", 0444, shell_test_show_lines, NULL, NULL);
}

static void shell_test_record_reset(void)
{
    memset(&shell_test_record, 0, sizeof(shell_test_record));
}

/* Tokenizes and expands every word, joined as "[word]" and operators as they are. */
static int shell_test_tokens(const char *line, int status, char *out, size_t len, char *err)
{
    struct shell_tokens t;
    size_t i, used = 0;
    int ret = shell_tokenize(line, &t, err, 96);

    out[0] = '\0';
    if (ret)
        return ret;
    for (i = 0; i < t.count; i++) {
        if (t.tok[i].kind == SHELL_TOK_WORD) {
            char *w = shell_expand_word(&t.tok[i], status);
            used += scnprintf(out + used, len - used, "[%s]", w ? w : "(nomem)");
            kfree(w);
        } else {
            used += scnprintf(out + used, len - used, "%.*s", (int)t.tok[i].len, t.tok[i].text);
        }
    }
    shell_tokens_free(&t);
    return 0;
}

SELFTEST(shell_tokenizer)
{
    char out[256], err[96];

    EXPECT_EQ(shell_test_tokens("echo  a\tb", 0, out, sizeof(out), err), 0);
    EXPECT_STREQ(out, "[echo][a][b]");
    EXPECT_EQ(shell_test_tokens("echo 'a  b' \"c 'd'\" e\\ f 'x'\"y\"z", 0, out, sizeof(out), err),
              0);
    EXPECT_STREQ(out, "[echo][a  b][c 'd'][e f][xyz]");
    EXPECT_EQ(shell_test_tokens("echo \"q\\\"\\\\\\$\\n\" \\$? '$?' \"$?\" x$?y", 7, out,
                                sizeof(out), err),
              0);
    EXPECT_STREQ(out, "[echo][q\"\\$\\n][$?][$?][7][x7y]");
    EXPECT_EQ(shell_test_tokens("a;b|c>d>>e >f", 0, out, sizeof(out), err), 0);
    EXPECT_STREQ(out, "[a];[b]|[c]>[d]>>[e]>[f]");
    EXPECT_EQ(shell_test_tokens("echo 'a|b;c>d' x\\|y", 0, out, sizeof(out), err), 0);
    EXPECT_STREQ(out, "[echo][a|b;c>d][x|y]");
    EXPECT_EQ(shell_test_tokens("echo '' \"\" end", 0, out, sizeof(out), err), 0);
    EXPECT_STREQ(out, "[echo][][][end]");
    EXPECT_EQ(shell_test_tokens("echo a; # a comment | >", 0, out, sizeof(out), err), 0);
    EXPECT_STREQ(out, "[echo][a];");
    EXPECT_EQ(shell_test_tokens("echo a#b trailing\\", 0, out, sizeof(out), err), 0);
    EXPECT_STREQ(out, "[echo][a#b][trailing\\]");
    EXPECT_EQ(shell_test_tokens("> f", 0, out, sizeof(out), err), 0);
    EXPECT_STREQ(out, ">[f]");
    EXPECT_EQ(shell_test_tokens("   ", 0, out, sizeof(out), err), 0);
    EXPECT_STREQ(out, "");
}

SELFTEST(shell_tokenizer_errors)
{
    static const struct {
        const char *line;
        const char *message;
    } cases[] = {
        {"echo 'abc", "syntax error: unterminated quote"},
        {"echo \"abc", "syntax error: unterminated quote"},
        {"echo \"a\\\"", "syntax error: unterminated quote"},
        {"| grep x", "syntax error near unexpected token '|'"},
        {"echo a | | grep x", "syntax error near unexpected token '|'"},
        {"echo a ||", "syntax error near unexpected token '|'"},
        {"echo a |", "syntax error near unexpected token 'newline'"},
        {"; echo a", "syntax error near unexpected token ';'"},
        {"echo a;; echo b", "syntax error near unexpected token ';'"},
        {"echo a >", "syntax error near unexpected token 'newline'"},
        {"echo a > | x", "syntax error near unexpected token '|'"},
        {"echo a > > x", "syntax error near unexpected token '>'"},
        {"echo a >> ; x", "syntax error near unexpected token ';'"},
        {"cat < x", "syntax error: '<' is not supported"},
    };
    char out[256], err[96];
    size_t i;

    for (i = 0; i < ARRAY_SIZE(cases); i++) {
        err[0] = '\0';
        EXPECT_EQ(shell_test_tokens(cases[i].line, 0, out, sizeof(out), err), -EINVAL);
        EXPECT_STREQ(err, cases[i].message);
    }
}

SELFTEST(shell_status_and_errors)
{
    char out[256];

    EXPECT_EQ(shell_run_line_capture("echo \"a", out, sizeof(out)), 2);
    EXPECT_STREQ(out, "fentros: syntax error: unterminated quote\n");
    EXPECT_EQ(shell_run_line_capture("echo $?", out, sizeof(out)), 0);
    EXPECT_STREQ(out, "2\n");
    EXPECT_EQ(shell_run_line_capture("nosuchcommand a b", out, sizeof(out)), 127);
    EXPECT_STREQ(out, "fentros: nosuchcommand: command not found\n");
    EXPECT_EQ(shell_run_line_capture("cat /nope; echo $?; echo $?", out, sizeof(out)), 0);
    EXPECT_STREQ(out, "cat: /nope: No such file or directory\n1\n0\n");
    EXPECT_EQ(shell_run_line_capture("cat /proc", out, sizeof(out)), 1);
    EXPECT_STREQ(out, "cat: /proc: Is a directory\n");
    EXPECT_EQ(shell_run_line_capture("echo x > /nope/x", out, sizeof(out)), 1);
    EXPECT_STREQ(out, "fentros: /nope/x: No such file or directory\n");
    EXPECT_EQ(shell_run_line_capture("head -x", out, sizeof(out)), 2);
    EXPECT_STREQ(out, "usage: head [-n N] [FILE]\n");
    EXPECT_EQ(shell_run_line_capture("sleep x", out, sizeof(out)), 1);
    EXPECT_STREQ(out, "sleep: invalid time interval 'x'\n");
    EXPECT_EQ(shell_run_line_capture("ls /nope", out, sizeof(out)), 2);
    EXPECT_STREQ(out, "ls: cannot access '/nope': No such file or directory\n");
    EXPECT_EQ(shell_run_line_capture("echo -n a b; echo '' c", out, sizeof(out)), 0);
    EXPECT_STREQ(out, "a b c\n");
}

SELFTEST(shell_cd_pwd_ls)
{
    char saved[SHELL_PATH_MAX], out[512];

    shell_test_tree();
    strlcpy(saved, shell_cwd(), sizeof(saved));

    EXPECT_EQ(
        shell_run_line_capture("cd " SHELL_TEST_DIR "/sub; pwd; cd ..; pwd", out, sizeof(out)), 0);
    EXPECT_STREQ(out, SHELL_TEST_DIR "/sub\n" SHELL_TEST_DIR "\n");
    EXPECT_EQ(shell_run_line_capture("ls", out, sizeof(out)), 0);
    EXPECT_STREQ(out, "record\nrows\nstream\nsub\n");
    EXPECT_EQ(shell_run_line_capture("ls -l . rows", out, sizeof(out)), 0);
    EXPECT_STREQ(out, "-r--r--r-- rows\n\n.:\n-rw-r--r-- record\n-r--r--r-- rows\n"
                      "-r--r--r-- stream\ndr-xr-xr-x sub\n");
    EXPECT_EQ(shell_run_line_capture("cd rows", out, sizeof(out)), 1);
    EXPECT_STREQ(out, "cd: rows: Not a directory\n");
    EXPECT_EQ(shell_run_line_capture("cd /nope", out, sizeof(out)), 1);
    EXPECT_STREQ(out, "cd: /nope: No such file or directory\n");
    EXPECT_EQ(shell_run_line_capture("cd; pwd", out, sizeof(out)), 0);
    EXPECT_STREQ(out, "/\n");

    shell_chdir(saved);
}

SELFTEST(shell_redirects)
{
    struct shell_test_record *r = &shell_test_record;
    char out[256];

    shell_test_tree();

    shell_test_record_reset();
    EXPECT_EQ(
        shell_run_line_capture("echo hello  world > " SHELL_TEST_DIR "/record", out, sizeof(out)),
        0);
    EXPECT_STREQ(out, "");
    EXPECT_EQ(r->opens, 1);
    EXPECT_EQ(r->open_flags, PFS_WRITE | PFS_TRUNC);
    EXPECT_EQ(r->writes, 1);
    EXPECT_STREQ(r->text, "hello world\n");
    EXPECT_EQ(r->releases, 1);
    EXPECT_EQ(r->release_after_writes, 1);

    shell_test_record_reset();
    EXPECT_EQ(shell_run_line_capture("echo -n more >>" SHELL_TEST_DIR "/record", out, sizeof(out)),
              0);
    EXPECT_EQ(r->open_flags, PFS_WRITE | PFS_APPEND);
    EXPECT_STREQ(r->text, "more");
    EXPECT_EQ(r->releases, 1);

    /* Only a redirection: the file is opened with truncation and closed, nothing written. */
    shell_test_record_reset();
    EXPECT_EQ(shell_run_line_capture("> " SHELL_TEST_DIR "/record", out, sizeof(out)), 0);
    EXPECT_EQ(r->open_flags, PFS_WRITE | PFS_TRUNC);
    EXPECT_EQ(r->writes, 0);
    EXPECT_EQ(r->releases, 1);

    /* A handler that takes part of the text is offered the rest. */
    shell_test_record_reset();
    r->max_take = 3;
    EXPECT_EQ(shell_run_line_capture("echo abcdefgh > " SHELL_TEST_DIR "/record", out, sizeof(out)),
              0);
    EXPECT_STREQ(r->text, "abcdefgh\n");
    EXPECT_EQ(r->writes, 3);

    shell_test_record_reset();
    r->write_error = -EINVAL;
    EXPECT_EQ(shell_run_line_capture("echo nosuch > " SHELL_TEST_DIR "/record; echo $?", out,
                                     sizeof(out)),
              0);
    EXPECT_STREQ(out, "echo: write error: Invalid argument\n1\n");
    EXPECT_EQ(r->writes, 1);
    EXPECT_EQ(r->releases, 1);

    shell_test_record_reset();
    r->release_error = -EBUSY;
    EXPECT_EQ(shell_run_line_capture("echo x > " SHELL_TEST_DIR "/record", out, sizeof(out)), 1);
    EXPECT_STREQ(out, "echo: write error: Device or resource busy\n");

    /* The first error is the one reported. */
    shell_test_record_reset();
    r->write_error = -ENOMEM;
    r->release_error = -EBUSY;
    EXPECT_EQ(shell_run_line_capture("echo x > " SHELL_TEST_DIR "/record", out, sizeof(out)), 1);
    EXPECT_STREQ(out, "echo: write error: Cannot allocate memory\n");

    /* The last stage of a pipeline can be redirected. */
    shell_test_record_reset();
    EXPECT_EQ(shell_run_line_capture("cat " SHELL_TEST_DIR
                                     "/rows | grep FIVE | tail -n 2 > " SHELL_TEST_DIR "/record",
                                     out, sizeof(out)),
              0);
    EXPECT_STREQ(out, "");
    EXPECT_STREQ(r->text, "row 15 FIVE\nrow 20 FIVE\n");

    EXPECT_EQ(shell_run_line_capture("echo x > " SHELL_TEST_DIR "/rows", out, sizeof(out)), 1);
    EXPECT_STREQ(out, "fentros: " SHELL_TEST_DIR "/rows: Permission denied\n");
    EXPECT_EQ(shell_run_line_capture("echo x > " SHELL_TEST_DIR "/newfile", out, sizeof(out)), 1);
    EXPECT_STREQ(out, "fentros: " SHELL_TEST_DIR "/newfile: Permission denied\n");
    shell_test_record_reset();
}

SELFTEST(shell_pipelines)
{
    char out[512];

    shell_test_tree();
    EXPECT_EQ(shell_run_line_capture("echo hello world | grep world", out, sizeof(out)), 0);
    EXPECT_STREQ(out, "hello world\n");
    EXPECT_EQ(shell_run_line_capture("echo hello | grep nothing", out, sizeof(out)), 1);
    EXPECT_STREQ(out, "");
    EXPECT_EQ(shell_run_line_capture("echo abc | wc -l", out, sizeof(out)), 0);
    EXPECT_STREQ(out, "1\n");
    EXPECT_EQ(shell_run_line_capture("echo -n abc | wc -l", out, sizeof(out)), 0);
    EXPECT_STREQ(out, "0\n");
    EXPECT_EQ(shell_run_line_capture("echo a | grep -c a", out, sizeof(out)), 0);
    EXPECT_STREQ(out, "1\n");

    EXPECT_EQ(shell_run_line_capture("cat " SHELL_TEST_DIR "/rows | head -n 3", out, sizeof(out)),
              0);
    EXPECT_STREQ(out, "row 01\nrow 02\nrow 03\n");
    EXPECT_EQ(shell_run_line_capture("cat " SHELL_TEST_DIR
                                     "/rows | head -2; head -n1 " SHELL_TEST_DIR "/rows",
                                     out, sizeof(out)),
              0);
    EXPECT_STREQ(out, "row 01\nrow 02\nrow 01\n");
    EXPECT_EQ(shell_run_line_capture("cat " SHELL_TEST_DIR "/rows | tail -n 2", out, sizeof(out)),
              0);
    EXPECT_STREQ(out, "row 19\nrow 20 FIVE\n");
    EXPECT_EQ(shell_run_line_capture("cat " SHELL_TEST_DIR "/rows | grep -v row | wc -l", out,
                                     sizeof(out)),
              0);
    EXPECT_STREQ(out, "0\n");
    EXPECT_EQ(
        shell_run_line_capture("cat " SHELL_TEST_DIR "/rows | grep -ic five", out, sizeof(out)), 0);
    EXPECT_STREQ(out, "4\n");
    EXPECT_EQ(shell_run_line_capture("cat " SHELL_TEST_DIR "/rows | grep '^row 1' | grep '7$'", out,
                                     sizeof(out)),
              0);
    EXPECT_STREQ(out, "row 17\n");
    EXPECT_EQ(
        shell_run_line_capture("cat " SHELL_TEST_DIR "/rows | grep '^row 11$'", out, sizeof(out)),
        0);
    EXPECT_STREQ(out, "row 11\n");
    EXPECT_EQ(
        shell_run_line_capture("cat " SHELL_TEST_DIR "/rows | grep '^row 10$'", out, sizeof(out)),
        1);
    EXPECT_STREQ(out, "");
    EXPECT_EQ(shell_run_line_capture("grep -c FIVE " SHELL_TEST_DIR "/rows; wc -l " SHELL_TEST_DIR
                                     "/rows",
                                     out, sizeof(out)),
              0);
    EXPECT_STREQ(out, "4\n20 " SHELL_TEST_DIR "/rows\n");
    EXPECT_EQ(
        shell_run_line_capture("grep 'row 0' " SHELL_TEST_DIR "/rows /nope", out, sizeof(out)), 2);
    EXPECT_STREQ(out, SHELL_TEST_DIR "/rows:row 01\n" SHELL_TEST_DIR "/rows:row 02\n" SHELL_TEST_DIR
                                     "/rows:row 03\n" SHELL_TEST_DIR "/rows:row 04\n" SHELL_TEST_DIR
                                     "/rows:row 05 FIVE\n" SHELL_TEST_DIR
                                     "/rows:row 06\n" SHELL_TEST_DIR "/rows:row 07\n" SHELL_TEST_DIR
                                     "/rows:row 08\n" SHELL_TEST_DIR "/rows:row 09\n"
                                     "grep: /nope: No such file or directory\n");

    /* A filter with no input behaves as on empty input. */
    EXPECT_EQ(shell_run_line_capture("wc -l", out, sizeof(out)), 0);
    EXPECT_STREQ(out, "0\n");
    EXPECT_EQ(shell_run_line_capture("grep x", out, sizeof(out)), 1);
    EXPECT_STREQ(out, "");
    /* A later command that is not a filter ignores its input. */
    EXPECT_EQ(shell_run_line_capture("echo a | echo b", out, sizeof(out)), 0);
    EXPECT_STREQ(out, "b\n");
    /* The status of a pipeline is the status of its last command. */
    EXPECT_EQ(shell_run_line_capture("cat /nope | wc -l", out, sizeof(out)), 0);
    EXPECT_STREQ(out, "cat: /nope: No such file or directory\n0\n");
}

SELFTEST(shell_pipeline_streams)
{
    struct shell_test_stream *s = &shell_test_stream;
    char out[512];

    shell_test_tree();

    /* head stops its producer: the third line is the last one read. */
    memset(s, 0, sizeof(*s));
    s->lines = 100;
    EXPECT_EQ(shell_run_line_capture("cat " SHELL_TEST_DIR "/stream | head -n 3", out, sizeof(out)),
              0);
    EXPECT_STREQ(out, "line 1\nline 2\nline 3\n");
    EXPECT_EQ(s->reads, 3);

    memset(s, 0, sizeof(*s));
    s->lines = 100;
    EXPECT_EQ(shell_run_line_capture("cat " SHELL_TEST_DIR "/stream | grep 7 | head -n 2", out,
                                     sizeof(out)),
              0);
    EXPECT_STREQ(out, "line 7\nline 17\n");
    EXPECT_EQ(s->reads, 17);

    /* Every line is on the output before the producer reads the next one. */
    memset(s, 0, sizeof(*s));
    s->lines = 5;
    s->streamed = true;
    s->capture = out;
    EXPECT_EQ(shell_run_line_capture("cat " SHELL_TEST_DIR "/stream | grep line", out, sizeof(out)),
              0);
    s->capture = NULL;
    EXPECT(s->streamed);
    EXPECT_STREQ(out, "line 1\nline 2\nline 3\nline 4\nline 5\n");
}

static enum shell_edit_result shell_test_feed(struct shell_editor *ed, const char *bytes)
{
    enum shell_edit_result r = SHELL_EDIT_MORE;
    size_t len = strlen(bytes), i;

    for (i = 0; i < len && r == SHELL_EDIT_MORE; i++)
        r = shell_editor_feed(ed, (unsigned char)bytes[i]);
    return r;
}

SELFTEST(shell_line_editor)
{
    struct shell_editor *ed = kmalloc(sizeof(*ed));
    struct shell_capture cap = {.len = 256}, *previous;
    char *echo = kmalloc(cap.len);
    size_t i;

    EXPECT(ed && echo);
    if (!ed || !echo) {
        kfree(ed);
        kfree(echo);
        return;
    }
    cap.buf = echo;
    previous = shell_capture_begin(&cap);

    shell_editor_init(ed);
    shell_editor_new_line(ed);
    EXPECT_EQ(shell_test_feed(ed, "echx\bo\x7f"
                                  "o hi\r"),
              SHELL_EDIT_DONE);
    EXPECT_STREQ(ed->line, "echo hi");
    EXPECT_STREQ(echo, "echx\b \bo\b \bo hi\n");

    /* The LF of a CRLF belongs to the line already ended. */
    shell_editor_new_line(ed);
    cap.used = 0;
    EXPECT_EQ(shell_test_feed(ed, "\nab\n"), SHELL_EDIT_DONE);
    EXPECT_STREQ(ed->line, "ab");

    /* Unknown sequences vanish; Ctrl-U empties the line. */
    shell_editor_new_line(ed);
    EXPECT_EQ(shell_test_feed(ed, "x\x15"
                                  "a\x1b[3~b\x1b[1;5Ac\x1bOPd\x01\r"),
              SHELL_EDIT_DONE);
    EXPECT_STREQ(ed->line, "abcd");

    shell_editor_new_line(ed);
    EXPECT_EQ(shell_test_feed(ed, "abc\x03"), SHELL_EDIT_CANCEL);

    /* The line stops growing at the limit; Enter then refuses it. */
    shell_editor_new_line(ed);
    for (i = 0; i < 2000; i++)
        shell_editor_feed(ed, 'z');
    EXPECT_EQ(ed->len, SHELL_LINE_MAX);
    EXPECT_EQ(shell_editor_feed(ed, '\r'), SHELL_EDIT_TOO_LONG);

    shell_capture_end(previous);
    kfree(echo);
    kfree(ed);
}
