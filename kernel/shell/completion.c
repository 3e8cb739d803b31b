#include <kernel/mm.h>
#include <lib/sort.h>
#include <lib/string.h>

#include "shell_internal.h"

/*
 * Tab completion of the word before the cursor: a command name in command position, a
 * pseudo-filesystem path anywhere else. One candidate is completed in full; several are
 * completed to their common prefix, or listed when that adds nothing.
 */

struct shell_candidate {
    const char *name;
    bool is_dir;
};

static bool shell_ends_word(char c)
{
    return c == ' ' || c == '\t' || c == ';' || c == '|' || c == '>' || c == '<' || c == '&';
}

static int shell_candidate_cmp(const void *a, const void *b)
{
    const struct shell_candidate *ca = a, *cb = b;
    return strcmp(ca->name, cb->name);
}

static size_t shell_common_prefix(const struct shell_candidate *c, size_t count)
{
    size_t len = strlen(c[0].name), i, j;

    for (i = 1; i < count; i++) {
        for (j = 0; j < len && c[i].name[j] == c[0].name[j]; j++)
            ;
        len = j;
    }
    return len;
}

static void shell_list_candidates(struct shell_editor *ed, const struct shell_candidate *c,
                                  size_t count)
{
    size_t i;

    shell_terminal_puts("\n");
    for (i = 0; i < count; i++) {
        if (i)
            shell_terminal_puts("  ");
        shell_terminal_puts(c[i].name);
        if (c[i].is_dir)
            shell_terminal_puts("/");
    }
    shell_terminal_puts("\n");
    shell_editor_redraw(ed);
}

/* typed: how much of each candidate's name the word already holds. */
static void shell_offer(struct shell_editor *ed, struct shell_candidate *c, size_t count,
                        size_t typed)
{
    size_t common;

    if (count == 0)
        return;
    if (count == 1) {
        const char *rest = c[0].name + typed;
        shell_editor_insert(ed, rest, strlen(rest));
        shell_editor_insert(ed, c[0].is_dir ? "/" : " ", 1);
        return;
    }
    common = shell_common_prefix(c, count);
    if (common > typed)
        shell_editor_insert(ed, c[0].name + typed, common - typed);
    else
        shell_list_candidates(ed, c, count);
}

static void shell_complete_command(struct shell_editor *ed, const char *word, size_t len)
{
    const struct shell_command *cmd;
    size_t max = (size_t)(shell_commands_end() - shell_commands_begin());
    struct shell_candidate *c = kmalloc(MAX(max, (size_t)1) * sizeof(*c));
    size_t count = 0;

    if (!c)
        return;
    for (cmd = shell_commands_begin(); cmd < shell_commands_end(); cmd++) {
        if (strncmp(cmd->name, word, len) == 0)
            c[count++] = (struct shell_candidate){cmd->name, false};
    }
    sort(c, count, sizeof(*c), shell_candidate_cmp);
    shell_offer(ed, c, count, len);
    kfree(c);
}

static void shell_complete_path(struct shell_editor *ed, const char *word, size_t len)
{
    char dir_path[SHELL_LINE_MAX + 1];
    const char *base = word;
    size_t base_len = len, max = 0, count = 0, i;
    struct shell_candidate *c;
    struct pfs_node *dir, *child;
    const char *slash = NULL;

    for (i = 0; i < len; i++) {
        if (word[i] == '/')
            slash = word + i;
    }
    if (slash) {
        size_t dir_len = (size_t)(slash - word) + 1;
        memcpy(dir_path, word, dir_len);
        dir_path[dir_len] = '\0';
        base = slash + 1;
        base_len = len - dir_len;
    } else {
        strcpy(dir_path, ".");
    }
    /* Held until the candidates, which point at node names, are offered: the offer only
     * writes to the console, never to a pseudo file. */
    pfs_control_lock();
    if (pfs_lookup(shell_cwd(), dir_path, &dir) || !pfs_is_dir(dir))
        goto out;

    while (pfs_child(dir, max))
        max++;
    c = kmalloc(MAX(max, (size_t)1) * sizeof(*c));
    if (!c)
        goto out;
    /* Children come sorted, so the candidates need no sorting. */
    for (i = 0; (child = pfs_child(dir, i)) != NULL; i++) {
        if (strncmp(pfs_name(child), base, base_len) == 0)
            c[count++] = (struct shell_candidate){pfs_name(child), pfs_is_dir(child)};
    }
    shell_offer(ed, c, count, base_len);
    kfree(c);
out:
    pfs_control_unlock();
}

void shell_complete(struct shell_editor *ed)
{
    size_t start = ed->len, before;
    const char *word;
    size_t len;

    while (start > 0 && !shell_ends_word(ed->line[start - 1]))
        start--;
    word = ed->line + start;
    len = ed->len - start;
    /* Quoted or escaped words would need the parser's rules; they are left alone. */
    if (memchr(word, '\'', len) || memchr(word, '"', len) || memchr(word, '\\', len))
        return;

    before = start;
    while (before > 0 && (ed->line[before - 1] == ' ' || ed->line[before - 1] == '\t'))
        before--;
    if ((before == 0 || ed->line[before - 1] == ';' || ed->line[before - 1] == '|') &&
        !memchr(word, '/', len))
        shell_complete_command(ed, word, len);
    else
        shell_complete_path(ed, word, len);
}
