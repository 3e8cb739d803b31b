/*
 * The filter files: an event's `filter` compiles the text against the event's fields and
 * installs it; a system's `filter` does so for every event of the system that has the
 * fields. `0` clears. A text that does not compile gets Linux's errno and changes
 * nothing: the old filter stays in force (Linux instead disables the event's filter and
 * shows the error in the file; here the reason goes to error_log only).
 *
 * Writers of events read the filter pointer without a lock, so an old filter is freed
 * only once every CPU has been seen outside trace_event_commit_filtered's use of it.
 */
#include <kernel/errno.h>
#include <kernel/mm.h>
#include <kernel/spinlock.h>
#include <lib/string.h>

#include "event_core.h"
#include "event_files.h"
#include "event_filter.h"
#include "trace_internal.h"

#define FILTER_TEXT_MAX 512

struct sync_readers trace_event_filter_readers = SYNC_READERS_INIT;

static DEFINE_SPINLOCK(filter_install_lock);

void trace_event_filter_install(const struct trace_event_call *call, struct event_filter *filter)
{
    unsigned long irq = spin_lock_irqsave(&filter_install_lock);
    struct event_filter *old = call->state->filter;
    __atomic_store_n(&call->state->filter, filter, __ATOMIC_RELEASE);
    /* After the pointer, so that a commit sent out of line finds it; a commit that misses
     * the flag just keeps its record unfiltered, as one that came before the write. */
    if (filter)
        __atomic_fetch_or(&call->state->commit_flags, TRACE_EVENT_COMMIT_FILTERED,
                          __ATOMIC_RELEASE);
    else
        __atomic_fetch_and(&call->state->commit_flags, (uint8_t)~TRACE_EVENT_COMMIT_FILTERED,
                           __ATOMIC_RELEASE);
    spin_unlock_irqrestore(&filter_install_lock, irq);
    if (old) {
        synchronize_readers(&trace_event_filter_readers);
        event_filter_free(old);
    }
}

/* An instance's filter of call: in its state there, read by the instances' copy on the
 * write path (event_instances.c) inside trace_event_filter_readers as the top level's is. */
int trace_event_instance_filter_install(const struct trace_event_call *call, struct trace_array *tr,
                                        struct event_filter *filter)
{
    struct trace_event_instance_state *ist = trace_event_instance_state(call, tr, filter != NULL);
    if (!ist)
        return filter ? -ENOMEM : 0;
    unsigned long irq = spin_lock_irqsave(&filter_install_lock);
    struct event_filter *old = ist->filter;
    __atomic_store_n(&ist->filter, filter, __ATOMIC_RELEASE);
    spin_unlock_irqrestore(&filter_install_lock, irq);
    if (old) {
        synchronize_readers(&trace_event_filter_readers);
        event_filter_free(old);
    }
    return 0;
}

struct event_filter *trace_event_instance_filter(const struct trace_event_call *call,
                                                 const struct trace_array *tr)
{
    struct trace_event_instance_state *ist = trace_event_instance_state(call, tr, false);
    return ist ? READ_ONCE(ist->filter) : NULL;
}

static int install_in(const struct trace_event_call *call, struct trace_array *tr,
                      struct event_filter *filter)
{
    if (tr != &trace_global)
        return trace_event_instance_filter_install(call, tr, filter);
    trace_event_filter_install(call, filter);
    return 0;
}

/* The written text, without the newline echo adds; NULL if it does not fit. */
static char *filter_text(const char *buf, size_t len)
{
    while (len && (buf[len - 1] == '\n' || buf[len - 1] == ' ' || buf[len - 1] == '\t'))
        len--;
    if (len >= FILTER_TEXT_MAX)
        return NULL;
    char *text = kmalloc(len + 1);
    if (text) {
        memcpy(text, buf, len);
        text[len] = '\0';
    }
    return text;
}

static bool is_clear(const char *text) { return strcmp(text, "0") == 0; }

/* Linux logs a refused filter under this name; texts it cannot place get no entry. */
static void trace_event_filter_report(const char *text, const struct event_filter_error *err)
{
    if (err->message)
        trace_error_log("event filter parse error", err->message, text, err->pos);
}

ssize_t trace_event_store_filter_in(const struct trace_event_call *call, struct trace_array *tr,
                                    const char *buf, size_t len)
{
    char *text = filter_text(buf, len);
    if (!text)
        return len >= FILTER_TEXT_MAX ? -EINVAL : -ENOMEM;
    int err = 0;
    if (is_clear(text)) {
        err = install_in(call, tr, NULL);
    } else {
        struct event_filter *filter = NULL;
        struct event_filter_error fe = {0};
        err = event_filter_create(text, call->fields, call->nfields, &filter, &fe);
        if (!err && (err = install_in(call, tr, filter)) != 0)
            event_filter_free(filter);
        else if (err) {
            struct trace_array *log = trace_error_log_use(tr);
            trace_event_filter_report(text, &fe);
            trace_error_log_use(log);
        }
    }
    kfree(text);
    return err ? err : (ssize_t)len;
}

ssize_t trace_event_store_filter(void *data, const char *buf, size_t len)
{
    return trace_event_store_filter_in(data, &trace_global, buf, len);
}

/*
 * A system's filter: installed in each event of the system whose fields it names; the
 * others keep theirs. Fails with the first event's error if it fits none of them.
 */
ssize_t trace_event_store_system_filter(void *data, const char *buf, size_t len)
{
    return trace_event_store_system_filter_in(data, &trace_global, buf, len);
}

ssize_t trace_event_store_system_filter_in(const char *system, struct trace_array *tr,
                                           const char *buf, size_t len)
{
    char *text = filter_text(buf, len);
    if (!text)
        return len >= FILTER_TEXT_MAX ? -EINVAL : -ENOMEM;
    int err = 0, first_err = 0;
    unsigned installed = 0;
    struct event_filter_error first = {0};
    for (size_t i = 0; i < trace_event_count(); i++) {
        const struct trace_event_call *c = trace_event_at(i);
        if (strcmp(c->system, system) != 0 || (c->flags & TRACE_EVENT_FL_FTRACE))
            continue;
        if (is_clear(text)) {
            installed += install_in(c, tr, NULL) == 0;
            continue;
        }
        struct event_filter *filter = NULL;
        struct event_filter_error fe = {0};
        err = event_filter_create(text, c->fields, c->nfields, &filter, &fe);
        if (!err && install_in(c, tr, filter) == 0) {
            installed++;
        } else if (!err) {
            event_filter_free(filter);
            if (!first_err)
                first_err = -ENOMEM;
        } else if (!first_err) {
            first_err = err;
            first = fe;
        }
    }
    if (!installed && first_err && first.message) {
        struct trace_array *log = trace_error_log_use(tr);
        trace_event_filter_report(text, &first);
        trace_error_log_use(log);
    }
    kfree(text);
    return !installed && first_err ? first_err : (ssize_t)len;
}
