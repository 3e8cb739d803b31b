/*
 * Trace instances from the kernel command line, with Linux 6.12's syntax:
 *
 *   trace_instance=NAME[^traceoff][@RANGE][,EVENT[,EVENT...]]
 *
 * makes instances/NAME at boot; ^traceoff starts it with tracing_on 0; EVENT words are
 * set_event's ("sched:sched_switch", "sched", "irq:*") and are enabled in it. With @RANGE,
 * the name of a reserve_mem= range (include/kernel/reserve_mem.h), its buffer is laid on
 * that memory (ring_buffer_range.c), which a reset of the machine keeps: a `reboot`, a
 * panic with panic=reboot, a triple fault. The next boot finds the previous boot's events
 * there, keeps what validates, and shows them in the instance's trace, with this kernel's
 * symbols when it is the same kernel (a different kernel's buffer is laid out afresh).
 *
 * While the instance shows the last boot (tr->last_boot), its buffer records nothing, and
 * last_boot_info gives that boot's clock and kernel text address; the first thing that
 * records into it (a tracer, an event, a trigger, a marker, tracing_on, a clear or a
 * clock change) ends it: the old events go and the instance traces this boot, as Linux's
 * update_last_data does. EVENTS given with ^traceoff are made ready without ending it;
 * without ^traceoff they start at once, and so end it. Such an instance has no snapshot
 * (its pages cannot be swapped) and its buffer_size_kb is the range's; a range serves
 * one instance.
 *
 * Values that cannot be used are reported in the boot log as `trace_instance: VALUE: why;
 * ignored` (or, for a part of one, `...: EVENT: why`), and the rest still applies.
 */
#include <kernel/bootinfo.h>
#include <kernel/errno.h>
#include <kernel/ksymtab.h>
#include <kernel/mm.h>
#include <kernel/mutex.h>
#include <kernel/printk.h>
#include <kernel/pseudofs.h>
#include <kernel/reserve_mem.h>
#include <lib/crc32.h>
#include <lib/string.h>

#include "events/event_files.h"
#include "trace_internal.h"

extern char __text_start[];
extern const char __ksymtab_start[], __ksymtab_end[];

#define BOOT_INSTANCES_MAX 8

/* The kernel a buffer was written by: its symbol table, which any rebuild changes. */
static uint64_t kernel_identity(void)
{
    size_t len = (size_t)(__ksymtab_end - __ksymtab_start);
    return (uint64_t)len << 32 | crc32(0, __ksymtab_start, len);
}

/*
 * Whether a record read back from the last boot is one this kernel can print: a type it
 * writes, with the size that type has. A full event's id is not checked against the
 * events of this boot: a probe event of the last boot has no id now, and prints as an
 * unknown event, which is what it is.
 */
static bool record_plausible(const void *payload, unsigned len)
{
    uint32_t ctx = *(const uint32_t *)payload;
    switch (trace_ctx_type(ctx)) {
    case TRACE_EVENT_FULL:
        return *(const uint16_t *)payload != 0;
    case TRACE_FN:
        return len == sizeof(struct trace_fn_event);
    case TRACE_STACK:
        return len >= 8 && ((const struct trace_stack_event *)payload)->nr <= TRACE_STACK_MAX;
    case TRACE_PRINT:
        return len >= 8 && ((const struct trace_print_event *)payload)->len <= len - 8;
    case TRACE_GRAPH_ENT:
    case TRACE_GRAPH_RET:
    case TRACE_CTXWAKE:
    case TRACE_HWLAT:
    case TRACE_OSNOISE:
    case TRACE_TIMERLAT:
        return true;
    default:
        return false;
    }
}

/* Process context only (markers, enables, clears): ending it may wait for writers. */
static DEFINE_MUTEX(last_boot_lock);

void trace_array_last_boot_end(struct trace_array *tr)
{
    if (!READ_ONCE(tr->last_boot))
        return;
    /* A second caller waits for the first: its record goes in after the reset. */
    mutex_lock(&last_boot_lock);
    if (tr->last_boot) {
        rb_reset(tr->buffer, -1);
        rb_range_set_clock_id(tr->buffer, (uint32_t)tr->clock);
        WRITE_ONCE(tr->last_boot, false);
        rb_record_enable(tr->buffer);
    }
    mutex_unlock(&last_boot_lock);
}

static int show_last_boot_info(struct seqbuf *s, void *data)
{
    struct trace_array *tr = ((struct trace_file_ref *)data)->tr;
    if (!READ_ONCE(tr->last_boot))
        return seq_printf(s, "# Current\n");
    seq_printf(s, "trace_clock: %s\n", trace_clock_name(tr->clock));
    return seq_printf(s, "%llx\t[kernel]\n", (unsigned long long)tr->last_boot_text);
}

static void ignored(const char *value, const char *why)
{
    printk("trace_instance: %s: %s; ignored\n", value, why);
}

/* The buffer on the range called name, with the last boot's events when it has them. */
static struct ring_buffer *range_buffer(const char *value, const char *name,
                                        struct rb_range_report *report)
{
    uint64_t phys, size;
    if (!reserve_mem_find(name, &phys, &size)) {
        ignored(value, "no reserved range of that name");
        return NULL;
    }
    struct ring_buffer *rb =
        rb_create_in_range(phys_to_virt(phys), size, cpus_online, kernel_identity(),
                           (uint64_t)(uintptr_t)__text_start, record_plausible, report);
    if (!rb)
        ignored(value, "the range is too small for a buffer on every CPU, or no memory");
    return rb;
}

static void enable_events(struct trace_array *tr, const char *name, char *events)
{
    for (char *word; events && (word = strsep(&events, ",")) != NULL;) {
        if (*word && trace_events_set_word(word, tr, true) != 0)
            printk("trace_instance: %s: %s: no such event; ignored\n", name, word);
    }
}

static void make_one(char *value)
{
    char text[BOOT_CMDLINE_MAX];
    strlcpy(text, value, sizeof(text));
    char *events = strchr(value, ',');
    if (events)
        *events++ = '\0';
    char *range = strchr(value, '@');
    if (range)
        *range++ = '\0';
    bool traceoff = false;
    char *flags = strchr(value, '^');
    if (flags)
        *flags++ = '\0';
    for (char *flag; flags && (flag = strsep(&flags, "^")) != NULL;) {
        if (!strcmp(flag, "traceoff")) {
            traceoff = true;
        } else {
            ignored(text, "unknown flag (traceoff is known)");
            return;
        }
    }
    if (!*value || strchr(value, '/')) {
        ignored(text, "not an instance name");
        return;
    }

    struct rb_range_report report = {0};
    struct ring_buffer *rb = NULL;
    if (range && !reserve_mem_claim(range)) {
        ignored(text, "the range has an instance already");
        return;
    }
    if (range && !(rb = range_buffer(text, range, &report)))
        return;
    struct trace_array *tr;
    /* As a mkdir would: instances are made and removed under the tracefs control mutex. */
    pfs_control_lock();
    int err = trace_instance_create(value, rb, &tr);
    if (!err && rb &&
        !tracefs_create_at(tr->dir, "last_boot_info", 0444, NULL, show_last_boot_info, NULL,
                           &tr->all_cpus))
        printk("trace_instance: %s: cannot create last_boot_info\n", value);
    pfs_control_unlock();
    if (err) {
        ignored(text, err == -EEXIST ? "the instance exists" : "cannot make the instance");
        return;
    }
    if (rb) {
        /* Only over kept events, whose recording rb_create_in_range left off. */
        if (report.events)
            trace_array_restore_clock(tr, report.clock_id);
        printk("trace_instance: %s on %s: %s; %u pages with %lu events kept, %u pages dropped "
               "as invalid\n",
               value, range,
               report.kept ? "the last boot's buffer"
                           : "a new buffer (none of this kernel's there)",
               report.pages_kept, report.events, report.pages_dropped);
    }
    /*
     * ^traceoff: tracing off, and the events only made ready, before the last boot's trace
     * is held: it stays until tracing starts (tracing_on, or anything that records). Without
     * it the events start at once and replace that trace, as on Linux 6.12.
     */
    if (traceoff) {
        trace_array_set_on(tr, false);
        enable_events(tr, value, events);
    }
    if (rb && report.events) {
        /* rb_create_in_range left recording off: trace_array_last_boot_end starts it. */
        tr->last_boot_text = report.text_addr;
        WRITE_ONCE(tr->last_boot, true);
    }
    if (!traceoff)
        enable_events(tr, value, events);
}

void trace_boot_instances_create(void)
{
    char value[BOOT_CMDLINE_MAX];
    for (unsigned n = 0;
         n < BOOT_INSTANCES_MAX && cmdline_value_nth("trace_instance", n, value, sizeof(value));
         n++)
        make_one(value);
}
