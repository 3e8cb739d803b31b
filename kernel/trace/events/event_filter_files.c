/*
 * Writes to the filter files. Until the filter language is linked in, only `0` (clear)
 * is accepted.
 */
#include <kernel/errno.h>
#include <lib/string.h>

#include "event_core.h"
#include "event_files.h"

static bool is_clear(const char *buf, size_t len)
{
    while (len && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
        len--;
    return len == 1 && buf[0] == '0';
}

ssize_t trace_event_store_filter(void *data, const char *buf, size_t len)
{
    return is_clear(buf, len) ? (ssize_t)len : -EINVAL;
}

ssize_t trace_event_store_system_filter(void *data, const char *buf, size_t len)
{
    return is_clear(buf, len) ? (ssize_t)len : -EINVAL;
}

bool event_filter_match(const struct event_filter *filter, const void *record,
                        size_t record_len)
{
    return true;
}

const char *event_filter_text(const struct event_filter *filter) { return "none"; }
