/*
 * Linux's text for trace events: the function tracer header with its flag legend, the
 * context columns (task-pid, CPU, irq/preempt flags, timestamp), function lines, stack
 * traces and trace_marker text. Formats follow kernel/trace/trace_output.c and trace.c
 * of Linux 6.x character for character.
 */
#include <kernel/symbols.h>
#include <kernel/thread.h>
#include <lib/printf.h>
#include <lib/string.h>

#include "events/event_core.h"
#include "trace_internal.h"

const char *trace_comm_of(int pid, char *buf, size_t len)
{
    if (pid == 0)
        return "<idle>";
    /* The thread cache knows recent threads; saved_cmdlines (Linux's source) keeps the
     * ones traced since, however many were made after them. */
    if (thread_comm_of(pid, buf, len) || trace_cmdline_lookup(pid, buf, len))
        return buf;
    return "<...>";
}

void trace_format_timestamp(char *buf, size_t len, uint64_t ts)
{
    /* Rounded to the nearest microsecond, as Linux's trace_print_context (ns2usecs). */
    uint64_t us = (ts + 500) / 1000;
    if (trace_array_clock_is_ns(READ_ONCE(trace_printing)))
        scnprintf(buf, len, "%5llu.%06llu", (unsigned long long)(us / 1000000),
                  (unsigned long long)(us % 1000000));
    else
        scnprintf(buf, len, "%12llu", (unsigned long long)ts);
}

/*
 * A return address (a parent, a stack frame) can be the first byte after its caller's
 * last instruction, a call to a function that does not return: name the caller by
 * addr - 1, as unwinders do, while the offset printed stays the address's own. A stack's
 * first frame past an interrupt is the interrupted instruction itself, which may be a
 * function's first byte: when addr - 1 lies in no function, the address names its own.
 */
static void trace_print_sym_ex(struct seqbuf *s, unsigned long addr, bool offset, bool addr_too,
                               bool return_address)
{
    uintptr_t start;
    size_t size;
    const char *name = sym_lookup(return_address ? addr - 1 : addr, &start, &size);
    if (!name && return_address)
        name = sym_lookup(addr, &start, &size);
    if (!name)
        seq_printf(s, "0x%lx", addr);
    else if (offset)
        seq_printf(s, "%s+0x%lx/0x%lx", name, (unsigned long)(addr - start), (unsigned long)size);
    else
        seq_puts(s, name);
    if (addr_too)
        seq_printf(s, " <%016lx>", addr);
}

void trace_print_sym(struct seqbuf *s, unsigned long addr, bool offset, bool addr_too)
{
    trace_print_sym_ex(s, addr, offset, addr_too, false);
}

static unsigned count_online(void)
{
    unsigned n = 0;
    for (unsigned c = 0; c < MAX_CPUS; c++)
        n += cpu_data(c)->online;
    return n;
}

void trace_print_func_header(struct seqbuf *s, int cpu_only)
{
    trace_print_func_header_of(trace_global.buffer, s, cpu_only);
}

void trace_print_func_header_of(struct ring_buffer *rb, struct seqbuf *s, int cpu_only)
{
    unsigned long entries = 0, written = 0;
    for (unsigned c = 0; c < MAX_CPUS; c++) {
        if (!cpu_data(c)->online || (cpu_only >= 0 && (int)c != cpu_only))
            continue;
        struct rb_stats st;
        rb_get_stats(rb, c, &st);
        entries += st.entries;
        written += st.entries + st.overrun;
    }
    seq_printf(s, "# entries-in-buffer/entries-written: %lu/%lu   #P:%u\n", entries, written,
               count_online());
    seq_puts(s, "#\n");
    if (trace_print_opt(TRACE_OPT_IRQ_INFO)) {
        seq_puts(s, "#                                _-----=> irqs-off/BH-disabled\n"
                    "#                               / _----=> need-resched\n"
                    "#                              | / _---=> hardirq/softirq\n"
                    "#                              || / _--=> preempt-depth\n"
                    "#                              ||| / _-=> migrate-disable\n"
                    "#                              |||| /     delay\n"
                    "#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n"
                    "#              | |         |   |||||     |         |\n");
    } else {
        seq_puts(s, "#           TASK-PID     CPU#     TIMESTAMP  FUNCTION\n"
                    "#              | |         |         |         |\n");
    }
}

/* The five flag columns: irqs-off, need-resched, hard/soft irq, preempt depth, migrate. */
void trace_print_flags(struct seqbuf *s, uint32_t ctx)
{
    if (trace_ctx_type(ctx) == TRACE_EVENT_FULL) {
        trace_event_print_flags(s, &ctx);
        return;
    }
    unsigned f = trace_ctx_flags(ctx), preempt = trace_ctx_preempt(ctx);
    char out[6];
    out[0] = (f & TRACE_FLAG_IRQS_OFF) ? 'd' : '.';
    out[1] = (f & TRACE_FLAG_NEED_RESCHED) ? 'N' : '.';
    out[2] = (f & TRACE_FLAG_NMI) ? 'z' : (f & TRACE_FLAG_HARDIRQ) ? 'h' : '.';
    out[3] = preempt ? "0123456789abcdef"[preempt] : '.';
    out[4] = '.'; /* threads never migrate here: migrate-disable is meaningless */
    out[5] = '\0';
    seq_puts(s, out);
}

static void trace_print_context(struct seqbuf *s, const struct rb_record *rec)
{
    uint32_t ctx = *(const uint32_t *)rec->data;
    if (!trace_print_opt(TRACE_OPT_CONTEXT_INFO))
        return;
    char comm[THREAD_NAME_LEN], ts[32];
    int pid = trace_record_pid(rec->data);
    seq_printf(s, "%16s-%-7d [%03u] ", trace_comm_of(pid, comm, sizeof(comm)), pid, rec->cpu);
    if (trace_print_opt(TRACE_OPT_IRQ_INFO))
        trace_print_flags(s, ctx);
    trace_format_timestamp(ts, sizeof(ts), rec->ts);
    seq_printf(s, " %s: ", ts);
}

static void print_function(struct seqbuf *s, const struct trace_fn_event *ev)
{
    bool off = trace_print_opt(TRACE_OPT_SYM_OFFSET), addr = trace_print_opt(TRACE_OPT_SYM_ADDR);
    trace_print_sym(s, trace_addr_unpack(ev->ip), off, addr);
    if (trace_print_opt(TRACE_OPT_PRINT_PARENT) && ev->parent_ip) {
        seq_puts(s, " <-");
        trace_print_sym_ex(s, trace_addr_unpack(ev->parent_ip), off, addr, true);
    }
    seq_putc(s, '\n');
}

static void print_stack(struct seqbuf *s, const struct trace_stack_event *ev)
{
    seq_puts(s, "<stack trace>\n");
    for (uint32_t i = 0; i < ev->nr && i < TRACE_STACK_MAX; i++) {
        seq_puts(s, " => ");
        /* The first entry is the traced function itself; the others are return addresses. */
        trace_print_sym_ex(s, trace_addr_unpack(ev->calls[i]),
                           trace_print_opt(TRACE_OPT_SYM_OFFSET),
                           trace_print_opt(TRACE_OPT_SYM_ADDR), i > 0);
        seq_putc(s, '\n');
    }
}

static void print_marker(struct seqbuf *s, const struct trace_print_event *ev)
{
    size_t len = strnlen(ev->text, MIN((size_t)ev->len, sizeof(ev->text)));
    seq_puts(s, "tracing_mark_write: ");
    seq_write(s, ev->text, len);
    if (len == 0 || ev->text[len - 1] != '\n')
        seq_putc(s, '\n');
}

static void print_ctxwake(struct seqbuf *s, const struct trace_ctxwake_event *ev)
{
    char comm[THREAD_NAME_LEN];
    seq_printf(s, " %7d:%3u:%c %s [%03u] %7d:%3u:%c %s\n", ev->prev_pid, ev->prev_prio,
               ev->prev_state, ev->wakeup ? "  +" : "==>", ev->next_cpu, ev->next_pid,
               ev->next_prio, ev->next_state, trace_comm_of(ev->next_pid, comm, sizeof(comm)));
}

static void print_hwlat(struct seqbuf *s, const struct trace_hwlat_event *ev)
{
    uint64_t ts = (uint64_t)ev->ts_hi << 32 | ev->ts_lo;
    seq_printf(s, "#%-5u inner/outer(us): %4u/%-5u ts:%llu.%09llu count:%u\n", ev->seqnum,
               ev->inner_us, ev->outer_us, (unsigned long long)(ts / 1000000000ULL),
               (unsigned long long)(ts % 1000000000ULL), ev->count);
}

static void print_osnoise(struct seqbuf *s, const struct trace_osnoise_event *ev)
{
    uint64_t runtime = (uint64_t)ev->runtime_hi << 32 | ev->runtime_lo;
    uint64_t noise = (uint64_t)ev->noise_hi << 32 | ev->noise_lo;
    uint64_t max_sample = (uint64_t)ev->max_sample_hi << 32 | ev->max_sample_lo;
    /* Linux's available share: 100 * (runtime - noise) / runtime, to five decimals. */
    uint64_t ratio = runtime ? (runtime - noise) * 10000000ULL / runtime : 0;
    seq_printf(s, "%llu %10llu %3llu.%05llu %7llu", (unsigned long long)runtime,
               (unsigned long long)noise, (unsigned long long)(ratio / 100000),
               (unsigned long long)(ratio % 100000), (unsigned long long)max_sample);
    seq_printf(s, " %6u %6u %6u %6u %6u\n", ev->hw_count, ev->nmi_count, ev->irq_count,
               ev->softirq_count, ev->thread_count);
}

static void print_timerlat(struct seqbuf *s, const struct trace_timerlat_event *ev)
{
    uint64_t latency = (uint64_t)ev->latency_hi << 32 | ev->latency_lo;
    seq_printf(s, "#%-5u context %6s timer_latency %9llu ns\n", ev->seqnum,
               ev->context ? "thread" : "irq", (unsigned long long)latency);
}

bool trace_format_body(struct seqbuf *s, const struct rb_record *rec)
{
    switch (trace_ctx_type(*(const uint32_t *)rec->data)) {
    case TRACE_OSNOISE:
        print_osnoise(s, (const void *)rec->data);
        return true;
    case TRACE_TIMERLAT:
        print_timerlat(s, (const void *)rec->data);
        return true;
    case TRACE_HWLAT:
        print_hwlat(s, (const void *)rec->data);
        return true;
    case TRACE_CTXWAKE:
        print_ctxwake(s, (const void *)rec->data);
        return true;
    case TRACE_FN:
        print_function(s, (const void *)rec->data);
        return true;
    case TRACE_STACK:
        print_stack(s, (const void *)rec->data);
        return true;
    case TRACE_PRINT:
        print_marker(s, (const void *)rec->data);
        return true;
    case TRACE_EVENT_FULL:
        return trace_event_print_record(s, rec);
    default:
        return false; /* graph events outside function_graph: not shown, as Linux */
    }
}

bool trace_format_default(struct trace_iter *it, struct seqbuf *s)
{
    const struct rb_record *rec = &it->rec;
    switch (trace_ctx_type(*(const uint32_t *)rec->data)) {
    case TRACE_FN:
    case TRACE_STACK:
    case TRACE_PRINT:
    case TRACE_CTXWAKE:
    case TRACE_HWLAT:
    case TRACE_OSNOISE:
    case TRACE_TIMERLAT:
    case TRACE_EVENT_FULL:
        trace_print_context(s, rec);
        return trace_format_body(s, rec);
    default:
        return false;
    }
}

bool trace_iter_print_next(struct trace_iter *it, struct seqbuf *s,
                           bool (*fallback)(struct trace_iter *it, struct seqbuf *s))
{
    if (!trace_iter_next(it))
        return false;
    unsigned cpu = it->rec.cpu;
    if (it->consume && it->lost[cpu]) {
        seq_printf(s, "CPU:%u [LOST %lu EVENTS]\n", cpu, it->lost[cpu]);
        it->lost[cpu] = 0;
    }
    const struct tracer *t = it->tr->current;
    if (!(t && t->print_line && t->print_line(it, s)))
        fallback(it, s);
    return true;
}
