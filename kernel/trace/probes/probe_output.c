/*
 * How a probe event looks from outside: its format file (fields packed one after the
 * other from offset 8, Linux's layout), its print fmt, the body of its trace line, and
 * the arguments' part of its kprobe_events line.
 */
#include <kernel/errno.h>
#include <kernel/mm.h>
#include <kernel/pseudofs.h>
#include <kernel/symbols.h>
#include <lib/printf.h>
#include <lib/string.h>

#include "events/event_filter.h"
#include "trace_probe.h"

static unsigned long load_int(const uint8_t *p, unsigned size, bool is_signed)
{
    switch (size) {
    case 1:
        return is_signed ? (unsigned long)(long)(int8_t)*p : *p;
    case 2: {
        uint16_t x;
        memcpy(&x, p, 2);
        return is_signed ? (unsigned long)(long)(int16_t)x : x;
    }
    case 4: {
        uint32_t x;
        memcpy(&x, p, 4);
        return is_signed ? (unsigned long)(long)(int32_t)x : x;
    }
    default: {
        unsigned long x;
        memcpy(&x, p, 8);
        return x;
    }
    }
}

static void print_value(struct seqbuf *s, const struct probe_arg *a, const uint8_t *p)
{
    const struct probe_type *t = a->type;
    unsigned long v = load_int(p, t->size, t->kind == PROBE_TYPE_SIGNED);
    switch (t->kind) {
    case PROBE_TYPE_UNSIGNED:
        seq_printf(s, "%lu", v);
        break;
    case PROBE_TYPE_SIGNED:
        seq_printf(s, "%ld", (long)v);
        break;
    case PROBE_TYPE_HEX:
        seq_printf(s, "0x%lx", v);
        break;
    case PROBE_TYPE_SYMBOL: {
        char sym[128];
        sym_format(sym, sizeof(sym), v);
        /* One printf, as Linux's %pS: a trace line's limit treats it as one. */
        seq_printf(s, "%s", sym);
        break;
    }
    default:
        break;
    }
}

/* The string whose __data_loc word is at loc_at, or Linux's fault marker. */
static void print_string(struct seqbuf *s, const uint8_t *loc_at, const uint8_t *rec, size_t len)
{
    uint32_t loc;
    memcpy(&loc, loc_at, 4);
    size_t n = loc >> 16, at = loc & 0xffff;
    if (n == 0 || at + n > len)
        seq_puts(s, "(fault)");
    else
        seq_printf(s, "\"%.*s\"", (int)strnlen((const char *)rec + at, n), (const char *)rec + at);
}

void probe_print_args(struct seqbuf *s, const struct probe_arg *args, unsigned nargs,
                      const uint8_t *rec, size_t len)
{
    for (unsigned i = 0; i < nargs; i++) {
        const struct probe_arg *a = &args[i];
        seq_printf(s, " %s=", a->name);
        if ((size_t)a->offset + probe_arg_size(a) > len) {
            seq_puts(s, "(fault)");
            continue;
        }
        const uint8_t *field = rec + a->offset;
        if (probe_type_is_string(a->type)) {
            if (a->count)
                seq_putc(s, '{');
            for (unsigned k = 0; k < (a->count ? a->count : 1); k++) {
                if (k)
                    seq_putc(s, ',');
                print_string(s, field + 4 * (size_t)k, rec, len);
            }
            if (a->count)
                seq_putc(s, '}');
            continue;
        }
        if (!a->count) {
            print_value(s, a, field);
            continue;
        }
        seq_putc(s, '{');
        for (unsigned k = 0; k < a->count; k++) {
            if (k)
                seq_putc(s, ',');
            print_value(s, a, field + (size_t)k * a->type->size);
        }
        seq_putc(s, '}');
    }
}

struct event_field *probe_make_fields(const struct probe_arg *args, unsigned nargs,
                                      enum probe_head head, size_t *nfields)
{
    size_t fixed = head == PROBE_HEAD_RETURN ? 2 : head == PROBE_HEAD_IP ? 1 : 0;
    struct event_field *f = kzalloc((fixed + nargs + 1) * sizeof(*f));
    if (!f)
        return NULL;
    if (head == PROBE_HEAD_RETURN) {
        f[0] = (struct event_field){"unsigned long", "__probe_func", 8, 8, false, EVENT_FIELD_INT};
        f[1] =
            (struct event_field){"unsigned long", "__probe_ret_ip", 16, 8, false, EVENT_FIELD_INT};
    } else if (head == PROBE_HEAD_IP) {
        f[0] = (struct event_field){"unsigned long", "__probe_ip", 8, 8, false, EVENT_FIELD_INT};
    }
    for (unsigned i = 0; i < nargs; i++) {
        const struct probe_arg *a = &args[i];
        struct event_field *x = &f[fixed + i];
        x->name = a->name;
        x->offset = a->offset;
        x->size = (uint16_t)probe_arg_size(a);
        x->is_signed = a->type->kind == PROBE_TYPE_SIGNED || probe_type_is_string(a->type);
        if (probe_type_is_string(a->type) && !a->count) {
            x->type = a->type->fieldtype;
            x->kind = EVENT_FIELD_DATA_LOC;
        } else if (a->count) {
            /* Linux 6.1 prints a probe's array as "u8 name[]", no length in the brackets;
             * an array of strings as "__data_loc char[][N]", one __data_loc word each. */
            char *type = kmalloc(strlen(a->type->fieldtype) + 16);
            if (!type) {
                probe_free_fields(f, fixed + i);
                return NULL;
            }
            if (probe_type_is_string(a->type))
                snprintf(type, strlen(a->type->fieldtype) + 16, "%s[%u]", a->type->fieldtype,
                         a->count);
            else
                snprintf(type, strlen(a->type->fieldtype) + 16, "%s[]", a->type->fieldtype);
            x->type = type;
            x->kind = EVENT_FIELD_ARRAY;
        } else {
            x->type = a->type->fieldtype;
            x->kind = EVENT_FIELD_INT;
        }
    }
    *nfields = fixed + nargs;
    return f;
}

void probe_free_fields(struct event_field *fields, size_t nfields)
{
    if (!fields)
        return;
    for (size_t i = 0; i < nfields; i++)
        if (fields[i].kind == EVENT_FIELD_ARRAY)
            kfree((void *)fields[i].type);
    kfree(fields);
}

char *probe_make_print_fmt(const struct probe_arg *args, unsigned nargs, enum probe_head head)
{
    struct seqbuf s = {0};
    seq_puts(&s, head == PROBE_HEAD_RETURN ? "\"(%lx <- %lx)"
                 : head == PROBE_HEAD_IP   ? "\"(%lx)"
                                           : "\"");
    for (unsigned i = 0; i < nargs; i++) {
        const struct probe_arg *a = &args[i];
        seq_printf(&s, " %s=", a->name);
        if (a->count) {
            seq_printf(&s, "{%s", a->type->fmt);
            for (unsigned k = 1; k < a->count; k++)
                seq_printf(&s, ",%s", a->type->fmt);
            seq_putc(&s, '}');
        } else {
            seq_puts(&s, a->type->fmt);
        }
    }
    seq_putc(&s, '"');
    if (head != PROBE_HEAD_NONE)
        seq_printf(&s, ", %s",
                   head == PROBE_HEAD_RETURN ? "REC->__probe_func, REC->__probe_ret_ip"
                                             : "REC->__probe_ip");
    for (unsigned i = 0; i < nargs; i++) {
        const struct probe_arg *a = &args[i];
        bool str = probe_type_is_string(a->type);
        if (a->count) {
            for (unsigned k = 0; k < a->count; k++)
                seq_printf(&s, str ? ", __get_str(%s[%u])" : ", REC->%s[%u]", a->name, k);
        } else {
            seq_printf(&s, str ? ", __get_str(%s)" : ", REC->%s", a->name);
        }
    }
    if (s.overflow) {
        seqbuf_free(&s);
        return NULL;
    }
    seq_putc(&s, '\0');
    return s.overflow ? (seqbuf_free(&s), NULL) : s.buf;
}

void probe_show_args(struct seqbuf *s, const struct probe_arg *args, unsigned nargs)
{
    for (unsigned i = 0; i < nargs; i++)
        seq_printf(s, " %s=%s", args[i].name, args[i].text);
}

unsigned probe_args_differ(const struct probe_arg *a, unsigned na, const struct probe_arg *b,
                           unsigned nb)
{
    if (na != nb)
        return (na < nb ? na : nb) + 1;
    for (unsigned i = 0; i < na; i++)
        if (strcmp(a[i].name, b[i].name) != 0 || a[i].type != b[i].type || a[i].count != b[i].count)
            return i + 1;
    return 0;
}
