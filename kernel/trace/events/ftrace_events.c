/*
 * ftrace: the tracer's own events, with Linux's fixed ids and Linux 6.1's format files.
 *
 * function, funcgraph_entry/exit, print and kernel_stack describe Linux's layout of what
 * the tracers record here in compact form (trace_internal.h): a function event is 12 bytes of
 * payload here against Linux's 24, and the function tracer's cost is the point of this
 * kernel. Their format files say what a reader of a raw page in Linux's layout expects,
 * and the export widens the compact records into exactly that. `print` is one of them:
 * trace_marker keeps writing its compact record, which function_graph shows as a comment
 * and which every existing reader knows; the widening gives it Linux's ip (the address of
 * tracing_mark_write) and buf.
 *
 * bprint and bputs are real records in Linux's layout: trace_printk() writes them (the
 * format's address and the arguments packed as Linux's vbin_printf packs them) and the
 * reader formats the text, as Linux does. So is raw_data, which trace_marker_raw writes
 * (trace_marker_raw.c).
 */
#include <kernel/errno.h>
#include <kernel/symbols.h>
#include <lib/ctype.h>
#include <lib/printf.h>
#include <lib/string.h>

#include "event_core.h"
#include "event_trigger.h"
#include "trace_internal.h"

static void print_bprint(struct seqbuf *s, const void *record, size_t len);
static void print_bputs(struct seqbuf *s, const void *record, size_t len);
static void print_raw_data(struct seqbuf *s, const void *record, size_t len);

#define TRACE_EVENT_DEFINITIONS "ftrace_entries.h"
#include "event_define.h"

/*
 * The triggers on print, for a trace_marker write just recorded on this CPU at ts: they see
 * the record in Linux's layout (ip, the address in tracing_mark_write, and buf), built
 * here for them as the export widens the compact one. After the compact record's commit,
 * so that a snapshot they take holds it; with preemption off, as trace_print calls it.
 */
void trace_event_marker_triggers(struct trace_array *tr, unsigned long ip, const char *text,
                                 size_t len, uint64_t ts)
{
    const struct trace_event_call *call = &trace_event_call_print;
    struct event_trigger *volatile *head = &call->state->triggers;
    if (tr != &trace_global) {
        struct trace_event_instance_state *ist = trace_event_instance_state(call, tr, false);
        head = ist ? &ist->triggers : NULL;
    }
    if (!head || !__atomic_load_n(head, __ATOMIC_ACQUIRE))
        return;
    /* A marker's text is up to a kilobyte: its record goes to a scratch slot, not the stack. */
    struct percpu *cpu = this_cpu();
    len = len < TRACE_PRINT_MAX ? len : TRACE_PRINT_MAX - 1;
    struct trace_event_raw_print *rec = trace_event_scratch_get(cpu, sizeof(*rec) + len + 1);
    if (!rec)
        return;
    uint64_t common = trace_event_common_on(cpu, call->state->id);
    __builtin_memcpy(&rec->common, &common, sizeof(common));
    rec->ip = ip;
    memcpy(rec->buf, text, len);
    rec->buf[len] = '\0';
    unsigned post = event_triggers_run(head, rec, sizeof(*rec) + len + 1, ts);
    trace_event_scratch_put(cpu);
    if (post)
        event_triggers_post_run(head, post, (uintptr_t)__builtin_frame_address(0));
}

/*
 * Linux's TRACE_BUF_SIZE: the packed arguments of one trace_printk are at most this; a
 * call whose arguments take more records nothing, as Linux's trace_vbprintk drops it.
 */
#define BPRINT_ARGS_MAX TRACE_BUF_SIZE
_Static_assert(sizeof(struct trace_event_raw_bprint) + BPRINT_ARGS_MAX <= RB_MAX_PAYLOAD,
               "a bprint record with the most arguments fits the ring buffer");

/* One conversion of a printf format: its spec (for the reader) and its packed size. */
struct bprint_conv {
    char spec[24]; /* "%-08lx" */
    char conv;     /* d i u x X o c s p, or 0 for %% */
    unsigned size; /* bytes of the argument: 1 (char), 4, 8; 0 for a string */
};

/* Parses one conversion at fmt (just after '%'); returns the characters it took, 0 if it
 * is one trace_printk cannot record (a '*' width, an unknown conversion). */
static size_t bprint_parse(const char *fmt, struct bprint_conv *c)
{
    size_t i = 0, o = 1;
    int longs = 0;
    c->spec[0] = '%';
    while (fmt[i] && strchr("-+ #0", fmt[i]) && o < sizeof(c->spec) - 4)
        c->spec[o++] = fmt[i++];
    while ((isdigit((unsigned char)fmt[i]) || fmt[i] == '.') && o < sizeof(c->spec) - 4)
        c->spec[o++] = fmt[i++];
    while (fmt[i] == 'l' || fmt[i] == 'h' || fmt[i] == 'z') {
        longs += fmt[i] == 'l' || fmt[i] == 'z' ? 1 : 0;
        i++;
    }
    c->conv = fmt[i];
    if (!c->conv || !strchr("diuxXocsp%", c->conv))
        return 0;
    i++;
    if (c->conv == '%') {
        c->conv = 0;
        c->size = 0;
        return i;
    }
    if (longs && strchr("diuxXo", c->conv)) {
        c->spec[o++] = 'l';
        c->spec[o++] = 'l';
    }
    c->spec[o++] = c->conv;
    c->spec[o] = '\0';
    c->size = c->conv == 'c' ? 1 : c->conv == 's' ? 0 : c->conv == 'p' || longs ? 8 : 4;
    return i;
}

static size_t align_up(size_t n, size_t a) { return (n + a - 1) & ~(a - 1); }

/*
 * Packs the arguments of fmt as Linux's vbin_printf does into dst, or with dst NULL only
 * measures them. Returns the bytes they take (a multiple of 4), or -EINVAL for a format
 * trace_printk cannot record. Packing stops at max bytes: a string that grew since it was
 * measured cannot write past the record.
 */
static long bprint_pack(uint8_t *dst, size_t max, const char *fmt, va_list ap)
{
    size_t len = 0;
    for (const char *p = fmt; *p; p++) {
        if (*p != '%')
            continue;
        struct bprint_conv c;
        size_t n = bprint_parse(p + 1, &c);
        if (!n)
            return -EINVAL;
        p += n;
        if (!c.conv)
            continue;
        if (c.conv == 's') {
            const char *str = va_arg(ap, const char *);
            if (!str)
                str = "(null)";
            size_t sl = strnlen(str, max - MIN(len, max));
            if (dst && len + sl < max) {
                memcpy(dst + len, str, sl);
                dst[len + sl] = '\0';
            }
            len += sl + 1;
            continue;
        }
        size_t at = c.size == 1 ? len : align_up(len, 4);
        uint64_t v = c.size == 1   ? (uint8_t)va_arg(ap, int)
                     : c.size == 4 ? va_arg(ap, unsigned int)
                                   : va_arg(ap, unsigned long long);
        /* An 8-byte value goes as two u32 at 4-byte alignment, as Linux packs it. */
        if (dst && at + c.size <= max)
            memcpy(dst + at, &v, c.size);
        len = at + c.size;
    }
    return (long)align_up(len, 4);
}

/*
 * The arguments are measured, then packed straight into the reserved record: trace_printk
 * runs in any context, on stacks with no room for a buffer of them.
 */
int trace_event_bprintk(unsigned long ip, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    long len = bprint_pack(NULL, BPRINT_ARGS_MAX + 1, fmt, ap);
    va_end(ap);
    if (len < 0)
        return (int)len;
    if (len > BPRINT_ARGS_MAX)
        return 0;
    size_t size = sizeof(struct trace_event_raw_bprint) + (size_t)len;
    struct rb_reservation res;
    struct trace_event_raw_bprint *r =
        trace_event_reserve(&trace_event_call_bprint, size, -1, &res);
    if (!r)
        return 0;
    r->ip = ip;
    r->fmt = fmt;
    /* Zeroed first: a string that grew since it was measured leaves the rest unwritten. */
    memset(r->buf, 0, (size_t)len);
    va_start(ap, fmt);
    bprint_pack((uint8_t *)r->buf, (size_t)len, fmt, ap);
    va_end(ap);
    trace_event_commit(&trace_event_call_bprint, r, size, &res);
    return (int)len;
}

int trace_event_bputs(unsigned long ip, const char *str)
{
    struct rb_reservation res;
    struct trace_event_raw_bputs *r =
        trace_event_reserve(&trace_event_call_bputs, sizeof(*r), -1, &res);
    if (!r)
        return 0;
    r->ip = ip;
    r->str = str;
    trace_event_commit(&trace_event_call_bputs, r, sizeof(*r), &res);
    return (int)strlen(str);
}

/* The format's text with the packed arguments, as Linux's bstr_printf reads them back. */
static void bprint_format(struct seqbuf *s, const char *fmt, const uint8_t *args, size_t len)
{
    size_t at = 0;
    for (const char *p = fmt; *p; p++) {
        if (*p != '%') {
            seq_putc(s, *p);
            continue;
        }
        struct bprint_conv c;
        size_t n = bprint_parse(p + 1, &c);
        if (!n)
            return;
        p += n;
        if (!c.conv) {
            seq_putc(s, '%');
            continue;
        }
        char out[128];
        if (c.conv == 's') {
            const char *str = (const char *)args + at;
            size_t sl = at < len ? strnlen(str, len - at) : 0;
            char tmp[128];
            size_t k = MIN(sl, sizeof(tmp) - 1);
            memcpy(tmp, str, k);
            tmp[k] = '\0';
            snprintf(out, sizeof(out), c.spec, tmp);
            at += sl + 1;
        } else {
            at = c.size == 1 ? at : align_up(at, 4);
            if (at + c.size > len)
                return;
            uint64_t v = 0;
            memcpy(&v, args + at, c.size);
            at += c.size;
            if (c.conv == 'p')
                snprintf(out, sizeof(out), c.spec, (void *)(uintptr_t)v);
            else if (c.size == 8)
                snprintf(out, sizeof(out), c.spec, (unsigned long long)v);
            else if (strchr("di", c.conv) && c.size == 4)
                snprintf(out, sizeof(out), c.spec, (int)(int32_t)v);
            else
                snprintf(out, sizeof(out), c.spec, (unsigned)v);
        }
        seq_puts(s, out);
    }
}

/* Linux's line: the caller's symbol, ": ", the text (with no event name before it). */
static void print_bprint(struct seqbuf *s, const void *record, size_t len)
{
    const struct trace_event_raw_bprint *r = record;
    trace_print_sym(s, (unsigned long)r->ip, trace_print_opt(TRACE_OPT_SYM_OFFSET),
                    trace_print_opt(TRACE_OPT_SYM_ADDR));
    seq_puts(s, ": ");
    if (len >= sizeof(*r))
        bprint_format(s, r->fmt, (const uint8_t *)r->buf, len - sizeof(*r));
}

static void print_bputs(struct seqbuf *s, const void *record, size_t len)
{
    const struct trace_event_raw_bputs *r = record;
    trace_print_sym(s, (unsigned long)r->ip, trace_print_opt(TRACE_OPT_SYM_OFFSET),
                    trace_print_opt(TRACE_OPT_SYM_ADDR));
    seq_printf(s, ": %s", r->str);
}

/* Linux's trace_raw_data: the id, then every byte of the record after it, the padding of
 * Linux's sizing included (trace_marker_raw.c). */
static void print_raw_data(struct seqbuf *s, const void *record, size_t len)
{
    const struct trace_event_raw_raw_data *r = record;
    seq_printf(s, "# %x buf:", r->id);
    for (size_t i = offsetof(struct trace_event_raw_raw_data, buf); i < len; i++)
        seq_printf(s, " %02x", ((const uint8_t *)record)[i]);
    seq_putc(s, '\n');
}

/* ---- printk_formats ---- */

extern const char *const __start_trace_printk_fmt[], *const __stop_trace_printk_fmt[];

static int show_printk_formats(struct seqbuf *s, void *data)
{
    for (const char *const *f = __start_trace_printk_fmt; f < __stop_trace_printk_fmt; f++) {
        seq_printf(s, "0x%lx : \"", (unsigned long)*f);
        for (const char *p = *f; *p; p++) {
            const char *esc = NULL;
            switch (*p) {
            case '\\':
                esc = "\\\\";
                break;
            case '"':
                esc = "\\\"";
                break;
            case '\a':
                esc = "\\a";
                break;
            case '\b':
                esc = "\\b";
                break;
            case '\f':
                esc = "\\f";
                break;
            case '\n':
                esc = "\\n";
                break;
            case '\r':
                esc = "\\r";
                break;
            case '\t':
                esc = "\\t";
                break;
            case '\v':
                esc = "\\v";
                break;
            }
            if (esc)
                seq_puts(s, esc);
            else
                seq_putc(s, *p);
        }
        seq_puts(s, "\"\n");
    }
    return 0;
}
TRACEFS_FILE(printk_formats, .path = "printk_formats", .mode = 0444, .show = show_printk_formats);
