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
};

struct probe_arg {
    char *name;
    char *text; /* the fetch argument as written, type included: the read-back */
    const struct probe_type *type;
    unsigned count; /* array elements; 0: not an array */
    enum probe_fetch_base base;
    unsigned long param;
    char *symbol; /* FETCH_SYMBOL: "sym" or "sym+off", as written */
    char *data;   /* FETCH_DATA */
    /* Dereferences, innermost first: value = *(u64 *)(value + deref[i]); the last one,
     * when `memory` is set, reads the typed value (or the string) instead of a u64. */
    long deref[PROBE_MAX_DEREF];
    unsigned nderef;
    bool memory;
    uint8_t bf_lshift, bf_rshift; /* a bitfield: (v << lshift) >> rshift in the type's width */
    bool bitfield;
    uint16_t offset; /* of its field in the record */
};

/* A parsed line of kprobe_events. */
struct probe_cmd {
    bool is_delete; /* -:[GRP/]EVENT */
    bool is_return;
    unsigned maxactive; /* rN; 0: not given */
    char group[PROBE_MAX_EVENT_NAME + 1];
    char event[PROBE_MAX_EVENT_NAME + 1]; /* made from the symbol when not given */
    char symbol[128];
    unsigned long offset;
    unsigned nargs;
    struct probe_arg *args; /* nargs of them, kmalloc'd */
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

/*
 * Parses the words of a p or r line (the first word starts with 'p' or 'r') or a -: line.
 * 0, or -errno with *e filled; -ECANCELED means not a probe line at all (EINVAL for the
 * writer, no error_log line). Checks only what the text shows: symbols are looked up by
 * the caller (probe_resolve_args), as Linux does when it registers the probe.
 */
int probe_parse(const struct probe_words *w, struct probe_cmd *cmd, struct probe_error *e);
void probe_cmd_free(struct probe_cmd *cmd);
/* Frees the arguments of an array of nargs (their strings and the array). */
void probe_args_free(struct probe_arg *args, unsigned nargs);

/* Looks up @SYM arguments; -ENOENT when one is unknown. */
int probe_resolve_args(struct probe_arg *args, unsigned nargs);

/* What a probe sees when it fires. */
struct probe_ctx {
    const struct pt_regs *regs; /* entry: the full frame; return: arch_regs_init_return's */
    unsigned long retval;       /* return probes */
    unsigned long probe_addr;   /* entry probes: the probed address (FETCH_PROBE_IP) */
};

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
/* The format file's fields and print fmt of a probe with these arguments. */
struct event_field *probe_make_fields(const struct probe_arg *args, unsigned nargs, bool is_return,
                                      size_t *nfields);
void probe_free_fields(struct event_field *fields, size_t nfields);
char *probe_make_print_fmt(const struct probe_arg *args, unsigned nargs, bool is_return);
/* " name=text" for each argument: the tail of a kprobe_events line. */
void probe_show_args(struct seqbuf *s, const struct probe_arg *args, unsigned nargs);
/* Whether a and b take the same arguments (name, type, count); else 1 + the first differing
 * argument's index, as Linux reports it. */
unsigned probe_args_differ(const struct probe_arg *a, unsigned na, const struct probe_arg *b,
                           unsigned nb);

#endif
