/*
 * function_graph's output, as Linux prints it (print_graph_function_flags and
 * print_graph_headers_flags): a call tree per CPU with durations, overhead marks, leaf
 * calls on one line, task-switch separators, interrupt arrows, markers and events as
 * comments, and with options/latency-format the latency banner and each record's context
 * flags. The columns are the caller's: the function_graph tracer's follow its funcgraph-*
 * options, a latency tracer's with options/display-graph are fixed, as in Linux.
 */
#include <kernel/mm.h>
#include <kernel/thread.h>
#include <lib/printf.h>
#include <lib/string.h>

#include "events/event_core.h"
#include "trace_graph_record.h"
#include "trace_internal.h"

#define GRAPH_INDENT 2
#define GRAPH_PROCINFO_LENGTH 14

#define GRAPH_MAX_DEPTH_SEEN 64

struct graph_cpu_state {
    int last_pid;
    int depth;
    unsigned long enter_funcs[GRAPH_MAX_DEPTH_SEEN];
};

struct graph_print_state {
    struct graph_cpu_state cpu[MAX_CPUS];
    /* The line being printed: its columns (TRACE_GRAPH_COL_*), and where REL TIME counts
     * from (the buffer's start, or a latency tracer's section's). */
    unsigned cols;
    uint64_t rel_base;
};

static struct graph_print_state *print_state(struct trace_iter *it)
{
    if (!it->tracer_state) {
        struct graph_print_state *st = kzalloc(sizeof(*st));
        if (!st)
            return NULL;
        for (unsigned c = 0; c < MAX_CPUS; c++)
            st->cpu[c].last_pid = -1;
        it->tracer_state = st;
    }
    return it->tracer_state;
}

static unsigned cpu_width(void)
{
    unsigned n = 0;
    for (unsigned c = 0; c < MAX_CPUS; c++)
        if (cpu_data(c)->online)
            n = c;
    return n >= 10 ? 2 : 1;
}

static char overhead_mark(uint64_t ns)
{
    if (ns > 1000000000ULL)
        return '$';
    if (ns > 100000000ULL)
        return '@';
    if (ns > 10000000ULL)
        return '*';
    if (ns > 1000000ULL)
        return '#';
    if (ns > 100000ULL)
        return '!';
    if (ns > 10000ULL)
        return '+';
    return ' ';
}

/* Linux's trace_print_graph_duration: at most 7 digits around the point, then " us ". */
void trace_graph_print_duration(struct seqbuf *s, uint64_t ns)
{
    char usecs[24], nsecs[8];
    int len = scnprintf(usecs, sizeof(usecs), "%llu", (unsigned long long)(ns / 1000));
    seq_puts(s, usecs);
    if (len < 7) {
        size_t keep = MIN(sizeof(nsecs) - 3, (size_t)(8 - len)); /* chars incl. the NUL */
        char full[8];
        scnprintf(full, sizeof(full), "%03llu", (unsigned long long)(ns % 1000));
        size_t n = MIN(strlen(full), keep - 1);
        memcpy(nsecs, full, n);
        nsecs[n] = '\0';
        seq_printf(s, ".%s", nsecs);
        len += n + 1;
    }
    seq_puts(s, " us ");
    for (int i = len; i < 8; i++)
        seq_putc(s, ' ');
}

enum graph_fill { FILL_NONE, FILL_FULL, FILL_START, FILL_END };

static void print_duration(struct seqbuf *s, const struct graph_print_state *st, uint64_t ns,
                           enum graph_fill fill)
{
    if (!(st->cols & TRACE_GRAPH_COL_DURATION) || !trace_print_opt(TRACE_OPT_CONTEXT_INFO))
        return;
    switch (fill) {
    case FILL_FULL:
        seq_puts(s, "              |  ");
        return;
    case FILL_START:
        seq_puts(s, "  ");
        return;
    case FILL_END:
        seq_puts(s, " |");
        return;
    case FILL_NONE:
        break;
    }
    if (st->cols & TRACE_GRAPH_COL_OVERHEAD)
        seq_printf(s, "%c ", overhead_mark(ns));
    else
        seq_puts(s, "  ");
    trace_graph_print_duration(s, ns);
    seq_puts(s, "|  ");
}

static void print_proc(struct seqbuf *s, int pid)
{
    char comm[THREAD_NAME_LEN], buf[THREAD_NAME_LEN];
    strlcpy(comm, trace_comm_of(pid, buf, sizeof(buf)), sizeof(comm));
    comm[7] = '\0';
    char pid_str[12];
    int len = (int)strlen(comm) + scnprintf(pid_str, sizeof(pid_str), "%d", pid) + 1;
    int spaces = len < GRAPH_PROCINFO_LENGTH ? GRAPH_PROCINFO_LENGTH - len : 0;
    for (int i = 0; i < spaces / 2; i++)
        seq_putc(s, ' ');
    seq_printf(s, "%s-%s", comm, pid_str);
    for (int i = 0; i < spaces - spaces / 2; i++)
        seq_putc(s, ' ');
}

static void print_cpu(struct seqbuf *s, unsigned cpu) { seq_printf(s, " %*u) ", cpu_width(), cpu); }

/* Truncated to the microsecond, as Linux's print_graph_abs_time (the context column rounds). */
static void print_abstime(struct seqbuf *s, uint64_t ts)
{
    if (trace_clock_is_ns())
        seq_printf(s, "%5llu.%06llu |  ", (unsigned long long)(ts / 1000000000ULL),
                   (unsigned long long)(ts / 1000 % 1000000));
    else
        seq_printf(s, "%12llu |  ", (unsigned long long)ts);
}

/* Linux's print_graph_rel_time: microseconds since the buffer (or section) began. */
static void print_reltime(struct seqbuf *s, const struct graph_print_state *st, uint64_t ts)
{
    uint64_t since = ts > st->rel_base ? ts - st->rel_base : 0;
    seq_printf(s, "%9llu us |  ", (unsigned long long)(since / 1000));
}

/*
 * Columns before the duration: absolute or relative time, CPU, task, and with
 * options/latency-format the record's context flags (irqs-off, need-resched,
 * hardirq/softirq, preempt-depth, migrate-disable), as Linux's print_graph_prologue.
 */
static void print_columns(struct seqbuf *s, const struct graph_print_state *st,
                          const struct rb_record *rec, int pid)
{
    if (!trace_print_opt(TRACE_OPT_CONTEXT_INFO))
        return;
    if (st->cols & TRACE_GRAPH_COL_ABS_TIME)
        print_abstime(s, rec->ts);
    if (st->cols & TRACE_GRAPH_COL_REL_TIME)
        print_reltime(s, st, rec->ts);
    if (st->cols & TRACE_GRAPH_COL_CPU)
        print_cpu(s, rec->cpu);
    if (st->cols & TRACE_GRAPH_COL_PROC) {
        print_proc(s, pid);
        seq_puts(s, " | ");
    }
    if (trace_print_opt(TRACE_OPT_LATENCY_FORMAT)) {
        seq_putc(s, ' ');
        trace_print_flags(s, *(const uint32_t *)rec->data);
        seq_puts(s, " | ");
    }
}

/* A separator when the task on a CPU changes (Linux's verif_pid). */
static void check_pid(struct seqbuf *s, struct graph_cpu_state *cs, unsigned cpu, int pid)
{
    if (cs->last_pid == pid)
        return;
    int prev = cs->last_pid;
    cs->last_pid = pid;
    if (prev == -1)
        return;
    seq_puts(s, " ------------------------------------------\n");
    print_cpu(s, cpu);
    print_proc(s, prev);
    seq_puts(s, " => ");
    print_proc(s, pid);
    seq_puts(s, "\n ------------------------------------------\n\n");
}

static void print_irq_arrow(struct seqbuf *s, const struct graph_print_state *st,
                            const struct rb_record *rec, int pid, bool entry)
{
    if (!(st->cols & TRACE_GRAPH_COL_IRQS))
        return;
    print_columns(s, st, rec, pid);
    print_duration(s, st, 0, FILL_START);
    seq_puts(s, entry ? "==========>" : "<==========");
    print_duration(s, st, 0, FILL_END);
    seq_putc(s, '\n');
}

static void print_indent(struct seqbuf *s, unsigned depth)
{
    for (unsigned i = 0; i < depth * GRAPH_INDENT; i++)
        seq_putc(s, ' ');
}

/*
 * The return value of a record taken with funcgraph-retval, while the option is on; false
 * when there is none to print. print_retval writes it as Linux 6.5 does: after a leaf's
 * "name();" as a comment "= 0x...", and on a close as a comment "name = 0x..."; an error
 * code (-4095..-1, also as a 32-bit int) in decimal unless funcgraph-retval-hex is on.
 */
static bool retval_of(const struct graph_print_state *st, const struct rb_record *rec,
                      unsigned long *out)
{
    if (!(st->cols & TRACE_GRAPH_COL_RETVAL) || rec->len < sizeof(struct trace_graph_retval_event))
        return false;
    const struct trace_graph_retval_event *rv = (const void *)rec->data;
    *out = (unsigned long)rv->retval_hi << 32 | rv->retval_lo;
    return true;
}

static void print_retval(struct seqbuf *s, const struct graph_print_state *st, unsigned long func,
                         unsigned long retval, bool leaf)
{
    long err = 0;
    if (retval && !(st->cols & TRACE_GRAPH_COL_RETVAL_HEX)) {
        /* An int's -EINVAL comes back as 0x00000000ffffffea: sign-extend it first. */
        long v = (retval & (1UL << 31)) && !(retval >> 32) ? (long)(int32_t)retval : (long)retval;
        if (v < 0 && v >= -4095)
            err = v;
    }
    if (leaf) {
        trace_print_sym(s, func, false, false);
        seq_puts(s, "();");
    } else {
        seq_puts(s, "} /* ");
        trace_print_sym(s, func, false, false);
    }
    if (err)
        seq_printf(s, leaf ? " /* = %ld */\n" : " = %ld */\n", err);
    else
        seq_printf(s, leaf ? " /* = 0x%lx */\n" : " = 0x%lx */\n", retval);
}

static uint64_t ret_duration(const struct trace_graph_ret_event *r)
{
    return ((uint64_t)r->duration_hi << 32) | r->duration_lo;
}

static void print_overrun(struct seqbuf *s, const struct graph_print_state *st,
                          const struct trace_graph_ret_event *r)
{
    if (st->cols & TRACE_GRAPH_COL_OVERRUN)
        seq_printf(s, " (Overruns: %u)\n", (unsigned)r->overrun);
}

static bool print_entry(struct trace_iter *it, struct seqbuf *s, struct graph_print_state *st)
{
    const struct rb_record *rec = &it->rec;
    const struct trace_graph_ent_event *e = (const void *)rec->data;
    int pid = trace_ctx_pid(e->ctx);
    unsigned depth = e->depth & 0xffff;
    struct graph_cpu_state *cs = &st->cpu[rec->cpu];
    check_pid(s, cs, rec->cpu, pid);
    if (e->depth & GRAPH_ENT_IRQ_FLAG)
        print_irq_arrow(s, st, rec, pid, true);

    /* A leaf: the very next event of this CPU is this call's own return. */
    const struct rb_record *next = trace_iter_peek_cpu(it, rec->cpu);
    if (next && trace_ctx_type(*(const uint32_t *)next->data) == TRACE_GRAPH_RET) {
        const struct trace_graph_ret_event *r = (const void *)next->data;
        if ((int)trace_ctx_pid(r->ctx) == pid && r->func == e->func &&
            (unsigned)(r->depth & 0x7ff) == depth) {
            struct trace_graph_ret_event ret = *r;
            unsigned long retval;
            bool has_retval = retval_of(st, next, &retval);
            trace_iter_drop_peeked(it, rec->cpu);
            cs->depth = depth > 0 ? depth - 1 : 0;
            if (depth < GRAPH_MAX_DEPTH_SEEN)
                cs->enter_funcs[depth] = 0;
            print_columns(s, st, rec, pid);
            print_duration(s, st, ret_duration(&ret), FILL_NONE);
            print_indent(s, depth);
            if (has_retval) {
                print_retval(s, st, trace_addr_unpack(e->func), retval, true);
            } else {
                trace_print_sym(s, trace_addr_unpack(e->func), false, false);
                seq_puts(s, "();\n");
            }
            print_overrun(s, st, &ret);
            if (ret.depth & GRAPH_RET_IRQ_FLAG)
                print_irq_arrow(s, st, rec, pid, false);
            return true;
        }
    }
    cs->depth = depth;
    if (depth < GRAPH_MAX_DEPTH_SEEN)
        cs->enter_funcs[depth] = e->func;
    print_columns(s, st, rec, pid);
    print_duration(s, st, 0, FILL_FULL);
    print_indent(s, depth);
    trace_print_sym(s, trace_addr_unpack(e->func), false, false);
    seq_puts(s, "() {\n");
    return true;
}

static bool print_return(struct trace_iter *it, struct seqbuf *s, struct graph_print_state *st)
{
    const struct rb_record *rec = &it->rec;
    const struct trace_graph_ret_event *r = (const void *)rec->data;
    int pid = trace_ctx_pid(r->ctx);
    unsigned depth = r->depth & 0x7ff;
    struct graph_cpu_state *cs = &st->cpu[rec->cpu];
    check_pid(s, cs, rec->cpu, pid);
    bool matched = depth < GRAPH_MAX_DEPTH_SEEN && cs->enter_funcs[depth] == r->func;
    if (depth < GRAPH_MAX_DEPTH_SEEN)
        cs->enter_funcs[depth] = 0;
    cs->depth = depth > 0 ? depth - 1 : 0;
    print_columns(s, st, rec, pid);
    print_duration(s, st, ret_duration(r), FILL_NONE);
    print_indent(s, depth);
    unsigned long retval;
    if (retval_of(st, rec, &retval)) {
        print_retval(s, st, trace_addr_unpack(r->func), retval, false);
    } else if (matched && !(st->cols & TRACE_GRAPH_COL_TAIL)) {
        seq_puts(s, "}\n");
    } else {
        seq_puts(s, "} /* ");
        trace_print_sym(s, trace_addr_unpack(r->func), false, false);
        seq_puts(s, " */\n");
    }
    print_overrun(s, st, r);
    if (r->depth & GRAPH_RET_IRQ_FLAG)
        print_irq_arrow(s, st, rec, pid, false);
    return true;
}

/*
 * trace_marker text and trace events inside the graph: a C comment one level deeper than
 * the last call, holding the marker text or the event line ("sched_switch: ..."; a wakeup
 * tracer's wakeup or switch), as Linux prints them.
 */
static bool print_comment(struct trace_iter *it, struct seqbuf *s, struct graph_print_state *st)
{
    const struct rb_record *rec = &it->rec;
    const struct trace_print_event *p = (const void *)rec->data;
    struct seqbuf event_text = {0};
    const char *text;
    size_t len;
    unsigned type = trace_ctx_type(p->ctx);
    if (type == TRACE_EVENT_FULL || type == TRACE_CTXWAKE) {
        /* An event's line, or a wakeup tracer's wakeup or switch as its latency line has it. */
        bool made = type == TRACE_EVENT_FULL ? trace_event_print_record(&event_text, rec)
                                             : trace_format_body(&event_text, rec);
        if (!made) {
            seqbuf_free(&event_text);
            return false;
        }
        text = event_text.buf ? event_text.buf : "";
        len = event_text.len;
    } else {
        text = p->text;
        len = strnlen(p->text, MIN((size_t)p->len, sizeof(p->text)));
    }
    int pid = trace_record_pid(rec->data);
    struct graph_cpu_state *cs = &st->cpu[rec->cpu];
    check_pid(s, cs, rec->cpu, pid);
    print_columns(s, st, rec, pid);
    print_duration(s, st, 0, FILL_FULL);
    if (cs->depth > 0)
        print_indent(s, cs->depth + 1);
    while (len && text[len - 1] == '\n')
        len--;
    seq_puts(s, "/* ");
    seq_write(s, text, len);
    seq_puts(s, " */\n");
    seqbuf_free(&event_text);
    return true;
}

bool trace_graph_print_line(struct trace_iter *it, struct seqbuf *s, unsigned cols)
{
    struct graph_print_state *st = print_state(it);
    if (!st)
        return false;
    st->cols = cols;
    st->rel_base = it->skip_before ? it->skip_before : it->tr->time_start;
    switch (trace_ctx_type(*(const uint32_t *)it->rec.data)) {
    case TRACE_GRAPH_ENT:
        return print_entry(it, s, st);
    case TRACE_GRAPH_RET:
        return print_return(it, s, st);
    case TRACE_PRINT:
    case TRACE_EVENT_FULL:
    case TRACE_CTXWAKE:
        return print_comment(it, s, st);
    default:
        return false;
    }
}

/* Linux's print_lat_header: the flags' legend, its width that of the columns before it. */
static void print_lat_legend(struct seqbuf *s, unsigned cols)
{
    static const char *const lines[] = {
        "  _-----=> irqs-off        ", " / _----=> need-resched    ", "| / _---=> hardirq/softirq ",
        "|| / _--=> preempt-depth   ", "||| /                      "};
    int width = 0;
    if (cols & TRACE_GRAPH_COL_ABS_TIME)
        width += 16;
    if (cols & TRACE_GRAPH_COL_REL_TIME)
        width += 16;
    if (cols & TRACE_GRAPH_COL_CPU)
        width += 4;
    if (cols & TRACE_GRAPH_COL_PROC)
        width += 17;
    for (size_t i = 0; i < ARRAY_SIZE(lines); i++)
        seq_printf(s, "#%*s%s\n", width, "", lines[i]);
}

void trace_graph_print_header(struct trace_iter *it, struct seqbuf *s, unsigned cols)
{
    bool ctx = trace_print_opt(TRACE_OPT_CONTEXT_INFO);
    bool lat = trace_print_opt(TRACE_OPT_LATENCY_FORMAT);
    if (lat) {
        /* As Linux: no header at all without context info, or while nothing is to show. */
        if (!ctx || !trace_latency_banner(it, s))
            return;
        print_lat_legend(s, cols);
    }
    seq_putc(s, '#');
    if (ctx && (cols & TRACE_GRAPH_COL_ABS_TIME))
        seq_puts(s, "     TIME       ");
    if (ctx && (cols & TRACE_GRAPH_COL_REL_TIME))
        seq_puts(s, "   REL TIME     ");
    if (ctx && (cols & TRACE_GRAPH_COL_CPU))
        seq_puts(s, " CPU");
    if (ctx && (cols & TRACE_GRAPH_COL_PROC))
        seq_puts(s, "  TASK/PID       ");
    if (lat)
        seq_puts(s, "||||   ");
    if (ctx && (cols & TRACE_GRAPH_COL_DURATION))
        seq_puts(s, "  DURATION   ");
    seq_puts(s, "               FUNCTION CALLS\n");
    seq_putc(s, '#');
    if (ctx && (cols & TRACE_GRAPH_COL_ABS_TIME))
        seq_puts(s, "      |         ");
    if (ctx && (cols & TRACE_GRAPH_COL_REL_TIME))
        seq_puts(s, "      |         ");
    if (ctx && (cols & TRACE_GRAPH_COL_CPU))
        seq_puts(s, " |  ");
    if (ctx && (cols & TRACE_GRAPH_COL_PROC))
        seq_puts(s, "   |    |        ");
    if (lat)
        seq_puts(s, "||||   ");
    if (ctx && (cols & TRACE_GRAPH_COL_DURATION))
        seq_puts(s, "   |   |      ");
    seq_puts(s, "               |   |   |   |\n");
}
