/*
 * Running fetch arguments when a probe fires: in any context (interrupts, NMIs), without
 * locks or allocation. Memory is read with copy_from_kernel_nofault, so a bad pointer in
 * a dereference stores 0 (a string stores Linux's fault marker, an empty __data_loc that
 * prints "(fault)") and the kernel goes on.
 */
#include <arch/cpu.h>
#include <kernel/mm.h>
#include <kernel/percpu.h>
#include <kernel/symbols.h>
#include <kernel/thread.h>
#include <lib/string.h>

#include "events/event_filter.h"
#include "trace_probe.h"

/*
 * Longest string one element of an argument stores, its NUL included: Linux's
 * MAX_STRING_SIZE (PATH_MAX). A longer one is cut to 4095 characters; a record whose
 * strings do not fit the ring buffer together is dropped, not cut (probe_event_write).
 */
#define PROBE_STRING_MAX 4096
#define PROBE_SYMSTR_MAX 128

/*
 * A field of the attached event's record, as Linux's event probes read it: a number
 * widened by its sign, and for a string or an array its address (in the record), so that
 * :string and +OFFS() read what it holds.
 */
static unsigned long field_value(const struct event_field *f, const uint8_t *rec, size_t len)
{
    if ((size_t)f->offset + f->size > len)
        return 0;
    const uint8_t *p = rec + f->offset;
    switch (f->kind) {
    case EVENT_FIELD_INT:
        switch (f->size) {
        case 1:
            return f->is_signed ? (unsigned long)(long)(int8_t)*p : *p;
        case 2: {
            uint16_t x;
            memcpy(&x, p, 2);
            return f->is_signed ? (unsigned long)(long)(int16_t)x : x;
        }
        case 4: {
            uint32_t x;
            memcpy(&x, p, 4);
            return f->is_signed ? (unsigned long)(long)(int32_t)x : x;
        }
        default: {
            unsigned long x = 0;
            memcpy(&x, p, f->size < 8 ? f->size : 8);
            return x;
        }
        }
    case EVENT_FIELD_DATA_LOC: {
        uint32_t loc;
        memcpy(&loc, p, 4);
        /* Outside the record: no string of it (a read of address 0 faults). */
        return (loc & 0xffff) < len ? (unsigned long)(rec + (loc & 0xffff)) : 0;
    }
    default:
        return (unsigned long)p;
    }
}

static bool read_word(unsigned long addr, unsigned long *out)
{
    return copy_from_kernel_nofault(out, (const void *)addr, sizeof(*out)) == 0;
}

static const char *comm_of_current(void)
{
    struct thread *t = this_cpu()->current;
    return t ? t->name : "";
}

/* The value before the typed read: base, then every dereference but a memory arg's last. */
static bool fetch_value(const struct probe_arg *a, const struct probe_ctx *ctx, unsigned long *v)
{
    switch (a->base) {
    case FETCH_REG:
        *v = regs_get_register(ctx->regs, (unsigned)a->param);
        break;
    case FETCH_PROBE_IP:
        *v = arch_kprobe_hit_ip(ctx->probe_addr);
        break;
    case FETCH_STACK:
        *v = regs_get_kernel_stack_nth(ctx->regs, (unsigned)a->param);
        break;
    case FETCH_STACKP:
        *v = kernel_stack_pointer(ctx->regs);
        break;
    case FETCH_RETVAL:
        *v = ctx->retval;
        break;
    case FETCH_ARG:
        *v = regs_get_kernel_argument(ctx->regs, (unsigned)a->param);
        break;
    case FETCH_IMM:
    case FETCH_SYMBOL:
        *v = a->param;
        break;
    case FETCH_FIELD:
        *v = field_value(a->field, ctx->record, ctx->record_len);
        break;
    case FETCH_TP_ARG:
        /* The parser keeps N within the tracepoint's arguments. */
        *v = a->param < ctx->nargs ? ctx->args[a->param] : 0;
        break;
    /* As numbers (an event probe's, which keep the type they are given): the address. */
    case FETCH_COMM:
        *v = (unsigned long)comm_of_current();
        break;
    case FETCH_DATA:
        *v = (unsigned long)a->data;
        break;
    }
    unsigned loads = a->memory ? a->nderef - 1 : a->nderef;
    for (unsigned i = 0; i < loads; i++)
        if (!read_word(*v + (unsigned long)a->deref[i], v))
            return false;
    if (a->memory)
        *v += (unsigned long)a->deref[a->nderef - 1];
    return true;
}

/*
 * Where element k of a string argument is: the address the expression computes, or for an
 * array of strings (Linux's string[N]) the k-th pointer stored from there. False: a fault.
 */
static bool string_source(const struct probe_arg *a, const struct probe_ctx *ctx, unsigned k,
                          unsigned long *v)
{
    if (!fetch_value(a, ctx, v))
        return false;
    return !a->count || read_word(*v + (unsigned long)k * sizeof(unsigned long), v);
}

/*
 * Element k of a string argument: its bytes with the NUL (0: a fault), at most
 * PROBE_STRING_MAX. Measured where it lies, as Linux's fetch_store_strlen does: a probe
 * runs on whatever stack it interrupted, with no room for a copy.
 */
static size_t string_size(const struct probe_arg *a, const struct probe_ctx *ctx, unsigned k)
{
    if (a->base == FETCH_COMM)
        return strnlen(comm_of_current(), PROBE_STRING_MAX - 1) + 1;
    if (a->base == FETCH_DATA)
        return strnlen(a->data, PROBE_STRING_MAX - 1) + 1;
    unsigned long v;
    if (!string_source(a, ctx, k, &v))
        return 0;
    if (a->type->kind == PROBE_TYPE_SYMSTR) {
        char sym[PROBE_SYMSTR_MAX];
        return (size_t)sym_format(sym, sizeof(sym), v) + 1;
    }
    long n = strnlen_kernel_nofault((const char *)v, PROBE_STRING_MAX);
    return n < 0 ? 0 : (size_t)n;
}

size_t probe_dynamic_size(const struct probe_arg *args, unsigned nargs, const struct probe_ctx *ctx)
{
    size_t total = 0;
    for (unsigned i = 0; i < nargs; i++)
        if (probe_type_is_string(args[i].type))
            for (unsigned k = 0; k < (args[i].count ? args[i].count : 1); k++)
                total += string_size(&args[i], ctx, k);
    return total;
}

/* Copies element k of a string argument to dst (room bytes); returns the bytes stored with
 * the NUL. */
static size_t store_string(const struct probe_arg *a, const struct probe_ctx *ctx, unsigned k,
                           char *dst, size_t room)
{
    if (room == 0)
        return 0;
    if (a->base == FETCH_COMM || a->base == FETCH_DATA) {
        const char *src = a->base == FETCH_COMM ? comm_of_current() : a->data;
        size_t n = strnlen(src, room - 1);
        memcpy(dst, src, n);
        dst[n] = '\0';
        return n + 1;
    }
    unsigned long v;
    if (!string_source(a, ctx, k, &v))
        return 0;
    if (a->type->kind == PROBE_TYPE_SYMSTR) {
        char sym[PROBE_SYMSTR_MAX];
        sym_format(sym, sizeof(sym), v);
        size_t n = strnlen(sym, room - 1);
        memcpy(dst, sym, n);
        dst[n] = '\0';
        return n + 1;
    }
    long n = strncpy_from_kernel_nofault(dst, (const char *)v, room);
    if (n <= 0)
        return 0;
    /* Cut short (the string changed since it was measured, or it is longer than the
     * limit): end it inside the room. */
    if (dst[n - 1] != '\0')
        dst[n - 1] = '\0';
    return (size_t)n;
}

/* Each size as one store (the builtin: this file's memcpy calls are not inlined). */
static void store_int(uint8_t *dst, unsigned long v, unsigned size)
{
    switch (size) {
    case 1:
        *dst = (uint8_t)v;
        break;
    case 2: {
        uint16_t x = (uint16_t)v;
        __builtin_memcpy(dst, &x, 2);
        break;
    }
    case 4: {
        uint32_t x = (uint32_t)v;
        __builtin_memcpy(dst, &x, 4);
        break;
    }
    default:
        __builtin_memcpy(dst, &v, 8);
    }
}

static unsigned long apply_bitfield(const struct probe_arg *a, unsigned long v)
{
    unsigned bits = a->type->size * 8u;
    if (bits < 64)
        v &= (1UL << bits) - 1;
    v <<= a->bf_lshift;
    if (bits < 64)
        v &= (1UL << bits) - 1;
    return v >> a->bf_rshift;
}

void probe_store_args(const struct probe_arg *args, unsigned nargs, const struct probe_ctx *ctx,
                      uint8_t *rec, size_t fixed_size, size_t dyn_size)
{
    size_t dyn_at = fixed_size, dyn_end = fixed_size + dyn_size;
    for (unsigned i = 0; i < nargs; i++) {
        const struct probe_arg *a = &args[i];
        uint8_t *field = rec + a->offset;
        if (probe_type_is_string(a->type)) {
            /* One __data_loc word per element, the strings one after the other. */
            for (unsigned k = 0; k < (a->count ? a->count : 1); k++) {
                size_t n = store_string(a, ctx, k, (char *)rec + dyn_at, dyn_end - dyn_at);
                uint32_t loc = (uint32_t)(n << 16) | (uint32_t)dyn_at;
                memcpy(field + 4 * (size_t)k, &loc, 4);
                dyn_at += n;
            }
            continue;
        }
        unsigned size = a->type->size;
        unsigned long v = 0;
        bool ok = fetch_value(a, ctx, &v);
        if (!a->memory) {
            store_int(field, ok ? (a->bitfield ? apply_bitfield(a, v) : v) : 0, size);
            continue;
        }
        /* A typed read at the address, element by element for an array. */
        unsigned n = a->count ? a->count : 1;
        for (unsigned k = 0; k < n; k++) {
            unsigned long x = 0;
            if (!ok || copy_from_kernel_nofault(&x, (const void *)(v + (unsigned long)k * size),
                                                size) != 0)
                x = 0;
            if (a->bitfield)
                x = apply_bitfield(a, x);
            store_int(field + (size_t)k * size, x, size);
        }
    }
}

/* The quick form of a, or false when a needs the general fetch. */
static bool quick_arg(const struct probe_arg *a, struct probe_quick_arg *q)
{
    if (a->nderef || a->memory || a->bitfield || a->count || probe_type_is_string(a->type))
        return false;
    unsigned size = a->type->size;
    if (size != 1 && size != 2 && size != 4 && size != 8)
        return false;
    *q = (struct probe_quick_arg){.size = (uint8_t)size, .field = a->offset, .param = a->param};
    switch (a->base) {
    case FETCH_REG:
        q->kind = PROBE_QUICK_REGS;
        return true;
    case FETCH_ARG: {
        int at = arch_regs_argument_offset((unsigned)a->param);
        q->kind = PROBE_QUICK_REGS;
        q->param = (unsigned long)at;
        return at >= 0;
    }
    case FETCH_RETVAL:
        q->kind = PROBE_QUICK_RETVAL;
        return true;
    case FETCH_PROBE_IP:
        q->kind = PROBE_QUICK_IP;
        return true;
    case FETCH_TP_ARG:
        q->kind = PROBE_QUICK_TP_ARG;
        return true;
    case FETCH_IMM:
        q->kind = PROBE_QUICK_CONST;
        return true;
    default: /* @SYM is resolved after some probes are made; the rest read memory */
        return false;
    }
}

bool probe_args_read_only(const struct probe_arg *args, unsigned nargs,
                          bool (*reg_ok)(unsigned long offset))
{
    for (unsigned i = 0; i < nargs; i++) {
        switch (args[i].base) {
        case FETCH_REG:
            if (!reg_ok(args[i].param))
                return false;
            break;
        case FETCH_STACK:
        case FETCH_STACKP:
        case FETCH_RETVAL:
        case FETCH_COMM:
        case FETCH_IMM:
        case FETCH_SYMBOL:
        case FETCH_DATA:
            break;
        default: /* an entry's or an event's: no return probe reads them */
            return false;
        }
    }
    return true;
}

struct probe_quick_arg *probe_quick_compile(const struct probe_arg *args, unsigned nargs)
{
    struct probe_quick_arg *quick = kmalloc(sizeof(*quick) * (nargs ? nargs : 1));
    if (!quick)
        return NULL;
    for (unsigned i = 0; i < nargs; i++) {
        if (!quick_arg(&args[i], &quick[i])) {
            kfree(quick);
            return NULL;
        }
    }
    return quick;
}
