/*
 * Turns event definitions into events. A system's file (sched_events.c) defines the
 * helpers its definitions use, then
 *
 *     #define TRACE_EVENT_DEFINITIONS <kernel/events/sched.h>
 *     #include "event_define.h"
 *
 * and this header includes the definitions once per product, each time with the
 * vocabulary (TRACE_EVENT, __field, TP_fast_assign, TP_printk, ...) meaning something
 * else:
 *
 *   1. struct trace_event_raw_CLASS: the record, Linux's layout (common fields first);
 *   2. trace_event_fields_CLASS[]: the field table of the format file and the filters,
 *      and trace_event_place_CLASS(), which sets its offsets from offsetof (a table at
 *      file scope cannot name the record type from inside __field, so the offsets are
 *      filled in at boot, before anything reads them, as Linux fills its own);
 *   3. trace_event_print_CLASS(): the body of the trace line, TP_printk's format and
 *      arguments run by seq_printf;
 *   4. trace_event_fmt_CLASS[]: the format file's "print fmt", TP_printk's format and its
 *      arguments as text, __entry read as REC: the same text Linux derives the same way,
 *      so it stays byte-identical as long as the definition's spelling is Linux's;
 *      and per event, its enabled byte and its struct trace_event_call;
 *   5. the writer: trace_event_emit_NAME(), which the tracepoint calls (trace_events.h),
 *      reserves the record inline (event_write.h), runs TP_fast_assign and commits.
 *      TRACE_EVENT_WRAPPED and DEFINE_EVENT_WRAPPED leave the emitter to the system's
 *      file and generate only trace_event_write_NAME() for it to call. Beside it,
 *      __probestub_NAME(), the tracepoint's callback for tracepoint probes (t: lines): it
 *      hands the tracepoint's arguments to them as words, and its address is the one their
 *      records show, as Linux's __probestub_NAME is where its tracepoint probes sit.
 *
 * README.md here shows a definition and what each part of it means.
 *
 * ftrace's own events (FTRACE_ENTRY) get 1, 2 and 4: the tracers write them.
 */
#include <kernel/compiler.h>
#include <lib/string.h>

#include "event_core.h"
#include "event_write.h"
#include "trace_hot.h"

/* Linux's field type names, as the format files print them. */
typedef int pid_t;
typedef uint32_t u32;
typedef unsigned long long u64;
typedef int32_t s32;
typedef long long s64;

/*
 * A system whose events need work to start and stop being emitted (preemptirq turns the
 * latency hooks on) defines TRACE_EVENT_SYSTEM_REG, a trace_event_reg_fn, before
 * including this header: every event of its definitions gets it as reg.
 */
#ifdef TRACE_EVENT_SYSTEM_REG
#define TRACE_EVENT_REG_FN TRACE_EVENT_SYSTEM_REG
#else
#define TRACE_EVENT_REG_FN NULL
#endif

/* Strings (__string) longer than this are cut, NUL included. */
#define TRACE_EVENT_STRING_MAX 32

#define TRACE_EVENT_STRINGIFY_(...) #__VA_ARGS__
#define TRACE_EVENT_STRINGIFY(...) TRACE_EVENT_STRINGIFY_(__VA_ARGS__)
#define TRACE_EVENT_UNPAREN(...) __VA_ARGS__
#define TRACE_EVENT_PARAMS(...) __VA_ARGS__
#define TRACE_EVENT_SYSTEM_STRING TRACE_EVENT_STRINGIFY(TRACE_SYSTEM)

/* How many arguments a tracepoint takes (up to 6), and each of them as a word. */
#define TRACE_EVENT_COUNT_(_1, _2, _3, _4, _5, _6, n, ...) n
#define TRACE_EVENT_COUNT(...) TRACE_EVENT_COUNT_(__VA_ARGS__, 6, 5, 4, 3, 2, 1, 0)
#define TRACE_EVENT_WORD(a) (unsigned long)(a)
#define TRACE_EVENT_WORDS_1(a) TRACE_EVENT_WORD(a)
#define TRACE_EVENT_WORDS_2(a, ...) TRACE_EVENT_WORD(a), TRACE_EVENT_WORDS_1(__VA_ARGS__)
#define TRACE_EVENT_WORDS_3(a, ...) TRACE_EVENT_WORD(a), TRACE_EVENT_WORDS_2(__VA_ARGS__)
#define TRACE_EVENT_WORDS_4(a, ...) TRACE_EVENT_WORD(a), TRACE_EVENT_WORDS_3(__VA_ARGS__)
#define TRACE_EVENT_WORDS_5(a, ...) TRACE_EVENT_WORD(a), TRACE_EVENT_WORDS_4(__VA_ARGS__)
#define TRACE_EVENT_WORDS_6(a, ...) TRACE_EVENT_WORD(a), TRACE_EVENT_WORDS_5(__VA_ARGS__)
#define TRACE_EVENT_CAT_(a, b) a##b
#define TRACE_EVENT_CAT(a, b) TRACE_EVENT_CAT_(a, b)
#define TRACE_EVENT_WORDS(...)                                                                     \
    TRACE_EVENT_CAT(TRACE_EVENT_WORDS_, TRACE_EVENT_COUNT(__VA_ARGS__))(__VA_ARGS__)

#define is_signed_type(type) (((type)-1) < (type)1)
/* A char array is a string to the filters; any other array is numbers. */
#define TRACE_EVENT_ARRAY_KIND(type)                                                               \
    _Generic((type)0, char : EVENT_FIELD_CHAR_ARRAY, default : EVENT_FIELD_INT)

/* Every pass: TRACE_EVENT is a class of one event. */
#define TRACE_EVENT(name, proto, args, other_pid, tstruct, assign, print)                          \
    DECLARE_EVENT_CLASS(name, TRACE_EVENT_PARAMS(proto), TRACE_EVENT_PARAMS(args),                 \
                        TRACE_EVENT_PARAMS(other_pid), TRACE_EVENT_PARAMS(tstruct),                \
                        TRACE_EVENT_PARAMS(assign), TRACE_EVENT_PARAMS(print))                     \
    DEFINE_EVENT(name, name, TRACE_EVENT_PARAMS(proto), TRACE_EVENT_PARAMS(args))
#define TRACE_EVENT_WRAPPED(name, proto, args, other_pid, tstruct, assign, print)                  \
    DECLARE_EVENT_CLASS(name, TRACE_EVENT_PARAMS(proto), TRACE_EVENT_PARAMS(args),                 \
                        TRACE_EVENT_PARAMS(other_pid), TRACE_EVENT_PARAMS(tstruct),                \
                        TRACE_EVENT_PARAMS(assign), TRACE_EVENT_PARAMS(print))                     \
    DEFINE_EVENT_WRAPPED(name, name, TRACE_EVENT_PARAMS(proto), TRACE_EVENT_PARAMS(args))

#define TP_PROTO(...) (__VA_ARGS__)
#define TP_ARGS(...) (__VA_ARGS__)
#define TP_OTHER_PID(pid) (pid)
#define TP_STRUCT__entry(...) __VA_ARGS__

/* ---- 1. the record ---- */

#define DECLARE_EVENT_CLASS(class, proto, args, other_pid, tstruct, assign, print)                 \
    struct trace_event_raw_##class                                                                 \
    {                                                                                              \
        struct trace_event_common common;                                                          \
        tstruct                                                                                    \
    };
#define DEFINE_EVENT(class, name, proto, args)
#define DEFINE_EVENT_WRAPPED(class, name, proto, args)
#define FTRACE_ENTRY(name, id, flags, tstruct, print, printer)                                     \
    DECLARE_EVENT_CLASS(name, (), (), (-1), TRACE_EVENT_PARAMS(tstruct), , )
#define __field(type, item) type item;
#define __array(type, item, len) type item[len];
#define __flex_array(type, item) type item[];
#define __string(item, src) uint32_t __data_loc_##item;

#include TRACE_EVENT_DEFINITIONS

#undef DECLARE_EVENT_CLASS
#undef __field
#undef __array
#undef __flex_array
#undef __string

/* ---- 2. the field table, then its offsets ---- */

#define DECLARE_EVENT_CLASS(class, proto, args, other_pid, tstruct, assign, print)                 \
    static struct event_field trace_event_fields_##class[] = {tstruct};
#define __field(type, item) {#type, #item, 0, sizeof(type), is_signed_type(type), EVENT_FIELD_INT},
#define __array(type, item, len)                                                                   \
    {#type "[" #len "]",          #item, 0, sizeof(type[len]), is_signed_type(type),               \
     TRACE_EVENT_ARRAY_KIND(type)},
#define __flex_array(type, item)                                                                   \
    {#type "[]", #item, 0, 0, is_signed_type(type), TRACE_EVENT_ARRAY_KIND(type)},
#define __string(item, src) {"__data_loc char[]", #item, 0, 4, true, EVENT_FIELD_DATA_LOC},

#include TRACE_EVENT_DEFINITIONS

#undef DECLARE_EVENT_CLASS
#undef __field
#undef __array
#undef __flex_array
#undef __string

#define DECLARE_EVENT_CLASS(class, proto, args, other_pid, tstruct, assign, print)                 \
    static void trace_event_place_##class(void)                                                    \
    {                                                                                              \
        typedef struct trace_event_raw_##class trace_event_raw;                                    \
        struct event_field *trace_event_field = trace_event_fields_##class;                        \
        tstruct                                                                                    \
    }
#define TRACE_EVENT_PLACE(member)                                                                  \
    (trace_event_field++)->offset = (uint16_t)offsetof(trace_event_raw, member);
#define __field(type, item) TRACE_EVENT_PLACE(item)
#define __array(type, item, len) TRACE_EVENT_PLACE(item)
#define __flex_array(type, item) TRACE_EVENT_PLACE(item)
#define __string(item, src) TRACE_EVENT_PLACE(__data_loc_##item)

#include TRACE_EVENT_DEFINITIONS

#undef DECLARE_EVENT_CLASS
#undef TRACE_EVENT_PLACE
#undef __field
#undef __array
#undef __flex_array
#undef __string
#undef FTRACE_ENTRY

/* ---- 3. the printer ---- */

#define __field(type, item)
#define __array(type, item, len)
#define __flex_array(type, item)
#define __string(item, src)
#define FTRACE_ENTRY(name, id, flags, tstruct, print, printer)

#define DECLARE_EVENT_CLASS(class, proto, args, other_pid, tstruct, assign, print)                 \
    static void trace_event_print_##class(struct seqbuf * s, const void *record, size_t len)       \
    {                                                                                              \
        const struct trace_event_raw_##class *__entry = record;                                    \
        char trace_event_flags_buf[64] __unused;                                                   \
        print;                                                                                     \
    }
#define TP_printk(fmt, ...) seq_printf(s, fmt "\n", __VA_ARGS__)
#define __print_ns_to_secs(value) ((u64)(value) / 1000000000ULL)
#define __print_ns_without_secs(value) ((u32)((u64)(value) % 1000000000ULL))
#define __get_str(item) trace_event_get_str(__entry, len, __entry->__data_loc_##item)
#define __print_flags(value, delim, ...)                                                           \
    trace_event_flags_str(trace_event_flags_buf, sizeof(trace_event_flags_buf), (value), delim,    \
                          (const struct trace_event_flag_name[]){__VA_ARGS__, {0, NULL}})

#include TRACE_EVENT_DEFINITIONS

#undef DECLARE_EVENT_CLASS
#undef TP_printk
#undef __get_str
#undef __print_flags
#undef __print_ns_to_secs
#undef __print_ns_without_secs
#undef FTRACE_ENTRY

/* ---- 4. print fmt, and the event ---- */

#undef DEFINE_EVENT
#undef DEFINE_EVENT_WRAPPED

/* Linux's listing order: by system, and inside one newest-defined first. */
#define TRACE_EVENT_ORDER (TRACE_SYSTEM_ORDER * 1000 + 999 - __COUNTER__)

#define DECLARE_EVENT_CLASS(class, proto, args, other_pid, tstruct, assign, print)                 \
    static const char trace_event_fmt_##class[] = print;
#define TP_printk(fmt, ...) "\"" fmt "\", " TRACE_EVENT_STRINGIFY(__VA_ARGS__)
/* ftrace's own spell the format as it is written, adjacent literals and all. */
#define F_printk(fmt, ...) TRACE_EVENT_STRINGIFY(fmt) ", " TRACE_EVENT_STRINGIFY(__VA_ARGS__)
#define __entry REC
/* What Linux's format files show for these (the kernel's own code divides). */
#define __print_ns_to_secs(val) (val) / 1000000000UL
#define __print_ns_without_secs(val) (val) % 1000000000UL

#define DEFINE_EVENT(class, event, proto, args)                                                    \
    TRACE_EVENT_ENABLED_BYTE(event);                                                               \
    TRACE_EVENT_CALL(                                                                              \
        event, &trace_event_on_##event, .system = TRACE_EVENT_SYSTEM_STRING, .name = #event,       \
        .fields = trace_event_fields_##class, .nfields = ARRAY_SIZE(trace_event_fields_##class),   \
        .place_fields = trace_event_place_##class, .print = trace_event_print_##class,             \
        .print_fmt = trace_event_fmt_##class, .order = TRACE_EVENT_ORDER,                          \
        .reg = TRACE_EVENT_REG_FN, .tp_nargs = TRACE_EVENT_COUNT args);
#define DEFINE_EVENT_WRAPPED(class, event, proto, args) DEFINE_EVENT(class, event, proto, args)

#define FTRACE_ENTRY(event, id, flags_, tstruct, print_fmt_, printer)                              \
    static const char trace_event_fmt_##event[] = print_fmt_;                                      \
    TRACE_EVENT_CALL(event, NULL, .system = "ftrace", .name = #event,                              \
                     .fields = trace_event_fields_##event,                                         \
                     .nfields = ARRAY_SIZE(trace_event_fields_##event),                            \
                     .place_fields = trace_event_place_##event, .print = printer,                  \
                     .print_fmt = trace_event_fmt_##event, .fixed_id = id, .order = id,            \
                     .flags = TRACE_EVENT_FL_FTRACE | (flags_));

#include TRACE_EVENT_DEFINITIONS

#undef DECLARE_EVENT_CLASS
#undef DEFINE_EVENT
#undef DEFINE_EVENT_WRAPPED
#undef TP_printk
#undef F_printk
#undef __entry
#undef __print_ns_to_secs
#undef __print_ns_without_secs
#undef FTRACE_ENTRY

/* ---- 5. the writer ---- */

#define FTRACE_ENTRY(name, id, flags, tstruct, print, printer)
#undef __string
/* Sizes the string now (before the reservation); __assign_str copies it. */
#define __string(item, src)                                                                        \
    const char *trace_event_src_##item = (src);                                                    \
    uint32_t trace_event_len_##item = strnlen(trace_event_src_##item, TRACE_EVENT_STRING_MAX - 1); \
    uint32_t trace_event_loc_##item =                                                              \
        ((trace_event_len_##item + 1) << 16) | (uint32_t)(sizeof(trace_event_raw) + dyn_size);     \
    dyn_size += trace_event_len_##item + 1;
#define __assign_str(item, src)                                                                    \
    do {                                                                                           \
        char *trace_event_dst = (char *)__entry + (trace_event_loc_##item & 0xffff);               \
        __entry->__data_loc_##item = trace_event_loc_##item;                                       \
        memcpy(trace_event_dst, trace_event_src_##item, trace_event_len_##item);                   \
        trace_event_dst[trace_event_len_##item] = '\0';                                            \
    } while (0)
#define TP_fast_assign(...) __VA_ARGS__
#define TP_printk(fmt, ...)

#define DECLARE_EVENT_CLASS(class, proto, args, other_pid, tstruct, assign, print)                 \
    static __always_inline void trace_event_write_class_##class(                                   \
        const struct trace_event_call *call, TRACE_EVENT_UNPAREN proto)                            \
    {                                                                                              \
        typedef struct trace_event_raw_##class trace_event_raw;                                    \
        size_t dyn_size = 0;                                                                       \
        tstruct struct percpu *cpu = this_cpu();                                                   \
        struct rb_reservation res;                                                                 \
        trace_event_raw *__entry =                                                                 \
            trace_event_reserve_on(cpu, call, sizeof(*__entry) + dyn_size, other_pid, &res);       \
        if (!__entry)                                                                              \
            return;                                                                                \
        assign;                                                                                    \
        trace_event_commit_on(cpu, call, __entry, sizeof(*__entry) + dyn_size, &res);              \
    }
/* Out of line: nothing of it is on the way of an event that has no tracepoint probe. */
#define TRACE_EVENT_PROBESTUB(name, proto, args)                                                   \
    static __noinline __used void __probestub_##name proto                                         \
    {                                                                                              \
        const unsigned long trace_event_words[] = {TRACE_EVENT_WORDS args};                        \
        trace_event_tp_probes_run(&trace_event_call_##name, (unsigned long)__probestub_##name,     \
                                  trace_event_words, ARRAY_SIZE(trace_event_words));               \
    }
/* The probes first, then the record. The byte is read again here, after the caller's test:
 * a probe detached in between leaves it without the bits that make a record. */
#define DEFINE_EVENT(class, name, proto, args)                                                     \
    TRACE_EVENT_PROBESTUB(name, proto, args)                                                       \
    __trace_hot_emitter void trace_event_emit_##name proto                                         \
    {                                                                                              \
        uint8_t on = trace_event_on_##name;                                                        \
        if (unlikely(on & TRACE_EVENT_ON_PROBE))                                                   \
            __probestub_##name args;                                                               \
        if (!(on & TRACE_EVENT_ON_EMIT))                                                           \
            return;                                                                                \
        trace_event_write_class_##class(&trace_event_call_##name, TRACE_EVENT_UNPAREN args);       \
    }
#define DEFINE_EVENT_WRAPPED(class, name, proto, args)                                             \
    TRACE_EVENT_PROBESTUB(name, proto, args)                                                       \
    static __always_inline void trace_event_write_##name proto                                     \
    {                                                                                              \
        trace_event_write_class_##class(&trace_event_call_##name, TRACE_EVENT_UNPAREN args);       \
    }

#include TRACE_EVENT_DEFINITIONS

#undef DECLARE_EVENT_CLASS
#undef DEFINE_EVENT
#undef DEFINE_EVENT_WRAPPED
#undef TP_fast_assign
#undef TP_printk
#undef __assign_str
#undef FTRACE_ENTRY
#undef __field
#undef __array
#undef __flex_array
#undef __string
#undef TRACE_EVENT
#undef TRACE_EVENT_WRAPPED
#undef TP_PROTO
#undef TP_ARGS
#undef TP_OTHER_PID
#undef TP_STRUCT__entry
#undef TRACE_EVENT_DEFINITIONS
#undef TRACE_SYSTEM
#undef TRACE_SYSTEM_ORDER
#undef TRACE_EVENT_REG_FN
#undef TRACE_EVENT_SYSTEM_REG
#undef TRACE_EVENT_PROBESTUB
#undef TRACE_EVENT_COUNT_
#undef TRACE_EVENT_COUNT
#undef TRACE_EVENT_WORD
#undef TRACE_EVENT_WORDS_1
#undef TRACE_EVENT_WORDS_2
#undef TRACE_EVENT_WORDS_3
#undef TRACE_EVENT_WORDS_4
#undef TRACE_EVENT_WORDS_5
#undef TRACE_EVENT_WORDS_6
#undef TRACE_EVENT_CAT_
#undef TRACE_EVENT_CAT
#undef TRACE_EVENT_WORDS
