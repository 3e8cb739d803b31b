/* Writes of one command a line, for the tracefs files that take them (<kernel/pseudofs.h>). */
#include <kernel/errno.h>
#include <kernel/mm.h>
#include <kernel/pseudofs.h>
#include <lib/string.h>

int pfs_run_lines(const char *buf, size_t len, size_t max, int (*run)(char *line, void *arg),
                  void *arg)
{
    char *line = kmalloc(max);
    if (!line)
        return -ENOMEM;
    int err = 0;
    size_t at = 0;
    while (!err && at < len) {
        size_t end = at;
        while (end < len && buf[end] != '\n')
            end++;
        if (end - at >= max) {
            err = -EINVAL;
            break;
        }
        memcpy(line, buf + at, end - at);
        line[end - at] = '\0';
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        err = run(line, arg);
        at = end + 1;
    }
    kfree(line);
    return err;
}
