/*
 * Probe events: what kprobe_events and dynamic_events accept, parsed into a struct
 * probe_cmd (probe_parse.c); the fetch arguments run when a probe fires (probe_fetch.c);
 * their record, format file and trace line (probe_output.c). trace_kprobe.c puts them on
 * call sites. The syntax, the types, the errno of each refusal and the error_log message
 * and caret position are Linux 6.1's (tests/reference/linux-6.1-probe-captures.txt).
 */
#ifndef KERNEL_TRACE_PROBES_TRACE_PROBE_H
#define KERNEL_TRACE_PROBES_TRACE_PROBE_H

#include <arch/regs.h>
#include <kernel/compiler.h>

#include "events/event_core.h"

struct seqbuf;
struct event_field;

/* Linux's limits. */
#define PROBE_MAX_ARGS 128
#define PROBE_MAX_ARG_NAME 32
#define PROBE_MAX_EVENT_NAME 64
#define PROBE_MAX_ARRAY 64
#define PROBE_MAX_ARGSTR 63 /* the text after NAME= */
#define PROBE_MAX_STACK 511 /* $stackN: a page of words */
#define PROBE_MAX_MAXACTIVE 4096
/* Dereferences one argument may chain: +8(+0(+16(%di))) is three. */
#define PROBE_MAX_DEREF 14
/*
 * Bytes the arguments' fields may take in a record, as Debian's 6.1 kernel counts them
 * (tests/reference/linux-6.1-probe-limits.txt): more is E2BIG, "Event too big". With the
 * largest head (a return's 24 bytes) the fixed part of any record fits the ring buffer;
 * only strings can make a record too large for it, and such a record is dropped.
 */
#define PROBE_MAX_ARGS_SIZE 3072

enum probe_type_kind {
    PROBE_TYPE_UNSIGNED, /* u8..u64 */
    PROBE_TYPE_SIGNED,   /* s8..s64 */
    PROBE_TYPE_HEX,      /* x8..x64, and the default type */
    PROBE_TYPE_SYMBOL,   /* an address printed as sym+off/size */
    PROBE_TYPE_STRING,   /* string, ustring: the bytes at an address */
    PROBE_TYPE_SYMSTR,   /* symstr: an address stored as the text sym+off/size */
};

struct probe_type {
    const char *name;      /* as written after ':' */
    const char *fieldtype; /* as the format file names it */
    const char *fmt;       /* its conversion in the print fmt */
    uint8_t size;          /* bytes in the record (strings: the __data_loc word) */
    enum probe_type_kind kind;
};

/* A type by the name a fetch argument gives it after ':' (NULL: the default). */
const struct probe_type *probe_type_find(const char *name);

static inline bool probe_type_is_string(const struct probe_type *t)
{
    return t->kind == PROBE_TYPE_STRING || t->kind == PROBE_TYPE_SYMSTR;
}

/* Where an argument's value starts. */
enum probe_fetch_base {
    FETCH_REG,      /* %REG: param = its offset in struct pt_regs (regs_query_register_offset) */
    FETCH_PROBE_IP, /* %ip of an entry probe: where its breakpoint would have stopped */
    FETCH_STACK,    /* $stackN: param = N */
    FETCH_STACKP,   /* $stack */
    FETCH_RETVAL,   /* $retval */
    FETCH_COMM,     /* $comm */
    FETCH_ARG,      /* $argN: param = N - 1 */
    FETCH_IMM,      /* \IMM and @ADDR: param = the value */
    FETCH_SYMBOL,   /* @SYM[+|-OFFS]: resolved to an address when the probe is made */
    FETCH_DATA,     /* \"STRING": data */
    FETCH_FIELD,    /* $FIELD of an event probe's attached event: field, resolved by name */
    FETCH_TP_ARG,   /* $argN of a tracepoint probe: the tracepoint's argument N - 1 (param) */
};

struct probe_arg {
    char *name;
    char *text; /* the fetch argument as written, type included: the read-back */
    const struct probe_type *type;
    unsigned count; /* array elements; 0: not an array */
    enum probe_fetch_base base;
    unsigned long param;
    char *symbol;                    /* FETCH_SYMBOL: "sym" or "sym+off", as written */
    char *data;                      /* FETCH_DATA */
    const struct event_field *field; /* FETCH_FIELD; its name is in symbol until resolved */
    /* Dereferences, innermost first: value = *(u64 *)(value + deref[i]); the last one,
     * when `memory` is set, reads the typed value (or the string) instead of a u64. */
    long deref[PROBE_MAX_DEREF];
    unsigned nderef;
    bool memory;
    uint8_t bf_lshift, bf_rshift; /* a bitfield: (v << lshift) >> rshift in the type's width */
    bool bitfield;
    uint16_t offset; /* of its field in the record */
};

/* A parsed line of kprobe_events or dynamic_events. */
struct probe_cmd {
    char kind;      /* 'p' (p and r lines), 'f' (fprobe), 't' (tracepoint probe), 'e' */
    bool is_delete; /* -:[GRP/]EVENT */
    bool is_return;
    unsigned maxactive; /* rN, fN; 0: not given */
    char group[PROBE_MAX_EVENT_NAME + 1];
    char event[PROBE_MAX_EVENT_NAME + 1]; /* made from the symbol when not given */
    char symbol[128];                     /* or, by_address, "0x" and the address in hex */
    bool by_address;
    unsigned long offset;
    unsigned nargs;
    struct probe_arg *args; /* nargs of them, kmalloc'd */
    /* e: the attached event, and the words after "if" (word index; 0: none) */
    char attach_system[PROBE_MAX_EVENT_NAME + 1];
    char attach_event[PROBE_MAX_EVENT_NAME + 1];
    unsigned filter_word;
    /* t: the event whose tracepoint it probes (SYMBOL names it) */
    const struct trace_event_call *tracepoint;
};

/*
 * Why a line was refused: errno, and Linux's message with the argument word it is about
 * and the offset in that word the caret marks. No message: refused without an error_log
 * line, as Linux refuses some lines.
 */
struct probe_error {
    int err;
    const char *message;
    unsigned word;
    unsigned pos;
    const char *before; /* a line Linux logs first, at the same place (NULL: none) */
};

/* The words of a line, split at blanks as Linux's argv_split does. */
#define PROBE_MAX_WORDS (PROBE_MAX_ARGS + 2)
struct probe_words {
    char *buf;
    char *word[PROBE_MAX_WORDS + 1];
    unsigned count;
};
int probe_split_words(const char *line, struct probe_words *w);
void probe_words_free(struct probe_words *w);
/* The line as error_log shows it (the words joined by blanks) and a word's position in it. */
void probe_words_join(const struct probe_words *w, char *out, size_t len);
unsigned probe_words_pos(const struct probe_words *w, unsigned word);
/* Adds e's error_log lines (before, then message) about the words of w. */
void probe_log_error(const struct probe_words *w, const struct probe_error *e,
                     const char *location);

/*
 * Parses the words of a p, r, f or t line (the first word starts with that letter) or a -:
 * line. 0, or -errno with *e filled; -ECANCELED means not a probe line at all (EINVAL for
 * the writer, no error_log line). Checks only what the text shows: symbols are looked up
 * by the caller (probe_resolve_args), as Linux does when it registers the probe; a t line's
 * tracepoint is looked up before its arguments are parsed, as Linux does.
 */
int probe_parse(const struct probe_words *w, struct probe_cmd *cmd, struct probe_error *e);
/*
 * The same for an e line, up to its arguments: the event's name, the attached event's
 * names, where "if" starts the filter. Each error_log line it adds itself (Linux logs two
 * for some), so a refusal leaves e->message NULL.
 */
int probe_parse_eprobe(const struct probe_words *w, struct probe_cmd *cmd, struct probe_error *e,
                       const char *location);
/*
 * Then its arguments, each $FIELD looked up in the attached event's fields as soon as it is
 * parsed, as Linux does (without a field "comm", $comm is the current task's name); laid out
 * from offset 8.
 */
int probe_parse_eprobe_args(const struct probe_words *w, struct probe_cmd *cmd,
                            const struct event_field *fields, size_t nfields,
                            struct probe_error *e);
void probe_cmd_free(struct probe_cmd *cmd);
/* Frees the arguments of an array of nargs (their strings and the array). */
void probe_args_free(struct probe_arg *args, unsigned nargs);

/* One string per group name for the life of the kernel (the system files point at it);
 * NULL when out of room. */
const char *probe_intern_group(const char *name);

/* Looks up @SYM arguments; -ENOENT when one is unknown. */
int probe_resolve_args(struct probe_arg *args, unsigned nargs);

/* What a probe sees when it fires. */
struct probe_ctx {
    const struct pt_regs *regs; /* the full frame: at the entry, or as the function returned */
    const uint8_t *record;      /* event probes: the attached event's record */
    size_t record_len;
    unsigned long retval;      /* return probes */
    unsigned long probe_addr;  /* entry probes: the probed address (FETCH_PROBE_IP) */
    const unsigned long *args; /* tracepoint probes: the tracepoint's arguments */
    unsigned nargs;
};

/*
 * What a probe that fires with a frame (or a tracepoint's arguments) sees, every field
 * stored: an initializer that leaves the rest to zero compiles, at this size, to a string
 * store that emulation runs a word at a time, on every hit.
 */
static __always_inline void probe_ctx_set(struct probe_ctx *c, const struct pt_regs *regs,
                                          unsigned long retval, unsigned long probe_addr,
                                          const unsigned long *args, unsigned nargs)
{
    c->regs = regs;
    c->record = NULL;
    c->record_len = 0;
    c->retval = retval;
    c->probe_addr = probe_addr;
    c->args = args;
    c->nargs = nargs;
}

/*
 * An argument that is a word of the probe's frame or a number it already has (a register,
 * $argN in a register or of a tracepoint, $retval, the probed %ip, an immediate), stored
 * whole: what most
 * probes fetch. An event whose arguments are all such (probe_quick_compile) fills them in
 * a straight loop when it fires (probe_store_quick), with no call and no jump through a
 * table, instead of the general fetch.
 */
enum probe_quick_kind {
    PROBE_QUICK_REGS,   /* param: an offset in struct pt_regs */
    PROBE_QUICK_RETVAL, /* a return probe's value */
    PROBE_QUICK_IP,     /* arch_kprobe_hit_ip of the probed address */
    PROBE_QUICK_TP_ARG, /* param: a tracepoint's argument number, from 0 */
    PROBE_QUICK_CONST,  /* param itself */
};
struct probe_quick_arg {
    uint8_t kind;   /* enum probe_quick_kind */
    uint8_t size;   /* 1, 2, 4 or 8 bytes in the record */
    uint16_t field; /* the field's offset in the record */
    unsigned long param;
};
/* Whether every register args read is one reg_ok accepts (by its offset in struct
 * pt_regs); $retval and $stack read the return value and the stack pointer, which every
 * set of registers handed to a return probe has. */
bool probe_args_read_only(const struct probe_arg *args, unsigned nargs,
                          bool (*reg_ok)(unsigned long offset));
/* nargs quick arguments for args, kmalloc'd; NULL when one of them is not quick (or out of
 * memory: the general fetch does the same work). */
struct probe_quick_arg *probe_quick_compile(const struct probe_arg *args, unsigned nargs);

static __always_inline void probe_store_quick(const struct probe_quick_arg *q, unsigned nargs,
                                              const struct probe_ctx *ctx, uint8_t *rec)
{
    for (const struct probe_quick_arg *end = q + nargs; q < end; q++) {
        unsigned long v;
        if (likely(q->kind == PROBE_QUICK_REGS))
            v = regs_get_register(ctx->regs, (unsigned)q->param);
        else if (q->kind == PROBE_QUICK_RETVAL)
            v = ctx->retval;
        else if (q->kind == PROBE_QUICK_IP)
            v = arch_kprobe_hit_ip(ctx->probe_addr);
        else if (q->kind == PROBE_QUICK_TP_ARG)
            v = q->param < ctx->nargs ? ctx->args[q->param] : 0;
        else
            v = q->param;
        uint8_t *dst = rec + q->field;
        if (likely(q->size == 8)) {
            __builtin_memcpy(dst, &v, 8);
        } else if (q->size == 4) {
            uint32_t x = (uint32_t)v;
            __builtin_memcpy(dst, &x, 4);
        } else if (q->size == 2) {
            uint16_t x = (uint16_t)v;
            __builtin_memcpy(dst, &x, 2);
        } else {
            *dst = (uint8_t)v;
        }
    }
}

/* Bytes the record needs after its fixed part (the strings), for this hit. */
size_t probe_dynamic_size(const struct probe_arg *args, unsigned nargs,
                          const struct probe_ctx *ctx);
/*
 * Fills the arguments' fields of rec; strings go at fixed_size onwards, at most dyn_size
 * bytes in all. A dereference that faults stores 0, or "(fault)" for a string.
 */
void probe_store_args(const struct probe_arg *args, unsigned nargs, const struct probe_ctx *ctx,
                      uint8_t *rec, size_t fixed_size, size_t dyn_size);
/* Bytes of one argument's field(s). */
static inline size_t probe_arg_size(const struct probe_arg *a)
{
    return (size_t)a->type->size * (a->count ? a->count : 1);
}

/* The trace line after "name: (": args of rec, each " name=value". */
void probe_print_args(struct seqbuf *s, const struct probe_arg *args, unsigned nargs,
                      const uint8_t *rec, size_t len);
/* What a probe's record starts with: Linux's PROBE_PRINT_NORMAL, _RETURN and _EVENT. */
enum probe_head {
    PROBE_HEAD_IP,     /* __probe_ip */
    PROBE_HEAD_RETURN, /* __probe_func, __probe_ret_ip */
    PROBE_HEAD_NONE,   /* an event probe: its arguments alone */
};
/* The format file's fields and print fmt of a probe with these arguments. */
struct event_field *probe_make_fields(const struct probe_arg *args, unsigned nargs,
                                      enum probe_head head, size_t *nfields);
void probe_free_fields(struct event_field *fields, size_t nfields);
char *probe_make_print_fmt(const struct probe_arg *args, unsigned nargs, enum probe_head head);
/* What every probe event is (a kprobe's, an fprobe's, an event probe's). */
struct probe_event {
    struct trace_event_call call;
    struct trace_event_state state;
    volatile uint8_t enabled;
    const char *group; /* interned: the events/GROUP files keep pointing at it */
    char name[PROBE_MAX_EVENT_NAME + 1];
    struct probe_arg *args;
    unsigned nargs;
    size_t fixed_size; /* the common fields, head and arguments' fields; strings follow */
    bool has_strings;  /* some argument is a string: the record's size varies */
    struct probe_quick_arg *quick; /* when every argument is quick (probe_quick_compile) */
    struct event_field *fields;
    size_t nfields;
    char *print_fmt;
};
/*
 * Makes the event of a parsed line: takes cmd's group, name and arguments, lays its record
 * out after head and adds it (its events/ files). 0, or -ENOMEM or trace_event_add's
 * errno, with nothing left allocated.
 */
int probe_event_init(struct probe_event *pe, struct probe_cmd *cmd, enum probe_head head,
                     trace_event_print_call_fn print, trace_event_reg_fn reg);
/* Frees what probe_event_init allocated, once the event is removed (or was never added). */
void probe_event_release(struct probe_event *pe);
/*
 * Writes a record of pe when it fires, in any context: nhead words of its head, then the
 * arguments. less_preempt: called under a dispatcher whose own preemption level the traced
 * code does not have (Linux's kprobes do not show it).
 */
void probe_event_write(struct probe_event *pe, const struct probe_ctx *ctx,
                       const unsigned long *head, unsigned nhead, bool less_preempt);

/* " name=text" for each argument: the tail of a kprobe_events line. */
void probe_show_args(struct seqbuf *s, const struct probe_arg *args, unsigned nargs);
/* Whether a and b take the same arguments (name, type, count); else 1 + the first differing
 * argument's index, as Linux reports it. */
unsigned probe_args_differ(const struct probe_arg *a, unsigned na, const struct probe_arg *b,
                           unsigned nb);

#endif
