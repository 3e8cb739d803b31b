/*
 * The tracing core, private to kernel/trace/: the trace array (ring buffer, on/off,
 * options, clock, CPU and pid filters), the tracers, the event layouts, and the reader
 * side that turns events into Linux's text.
 */
#ifndef KERNEL_TRACE_TRACE_H
#define KERNEL_TRACE_TRACE_H

#include <arch/cpu.h>
#include <kernel/compiler.h>
#include <kernel/mm.h>
#include <kernel/percpu.h>
#include <kernel/pseudofs.h>
#include <kernel/thread.h>

#include "ring_buffer.h"

/*
 * Events are compact: every address is stored as a 32-bit offset from the kernel image
 * base (the kernel lives in the top 2 GiB), and the context (event type, flags, preempt
 * depth, pid) fits one word. A function event is 12 bytes of payload: 16 in the buffer.
 */
enum trace_type {
    /*
     * Not a compact record: a trace event in Linux's layout (events/event_core.h), whose
     * u16 common_type, u8 common_flags and u8 common_preempt_count make up this first
     * word. Its top nibble is the preempt count's high nibble, which the event core keeps
     * at 0 so that the two kinds never mix up.
     */
    TRACE_EVENT_FULL = 0,
    TRACE_FN = 1,
    TRACE_STACK = 2,
    TRACE_PRINT = 3,
    TRACE_GRAPH_ENT = 4,
    TRACE_GRAPH_RET = 5,
};

#define TRACE_CTX_PID_BITS 20
#define TRACE_CTX_PID_MASK ((1u << TRACE_CTX_PID_BITS) - 1)
#define TRACE_CTX_PREEMPT_SHIFT 20
#define TRACE_CTX_FLAGS_SHIFT 24
#define TRACE_CTX_TYPE_SHIFT 28

#define TRACE_FLAG_IRQS_OFF 0x1
#define TRACE_FLAG_NEED_RESCHED 0x2
#define TRACE_FLAG_HARDIRQ 0x4
#define TRACE_FLAG_NMI 0x8

static inline uint32_t trace_ctx_make(unsigned type, unsigned flags, unsigned preempt,
                                      unsigned pid)
{
    return (type << TRACE_CTX_TYPE_SHIFT) | ((flags & 0xf) << TRACE_CTX_FLAGS_SHIFT) |
           ((preempt > 15 ? 15 : preempt) << TRACE_CTX_PREEMPT_SHIFT) | (pid & TRACE_CTX_PID_MASK);
}
static inline unsigned trace_ctx_type(uint32_t c) { return c >> TRACE_CTX_TYPE_SHIFT; }
static inline unsigned trace_ctx_flags(uint32_t c) { return (c >> TRACE_CTX_FLAGS_SHIFT) & 0xf; }
static inline unsigned trace_ctx_preempt(uint32_t c) { return (c >> TRACE_CTX_PREEMPT_SHIFT) & 0xf; }
static inline unsigned trace_ctx_pid(uint32_t c) { return c & TRACE_CTX_PID_MASK; }

/* The pid of any record: in the context word, or a full event's common_pid. */
static inline int trace_record_pid(const void *data)
{
    uint32_t ctx = *(const uint32_t *)data;
    if (trace_ctx_type(ctx) == TRACE_EVENT_FULL)
        return ((const int32_t *)data)[1];
    return (int)trace_ctx_pid(ctx);
}

static inline uint32_t trace_addr_pack(unsigned long addr)
{
    return addr >= KERNEL_VMA_BASE ? (uint32_t)(addr - KERNEL_VMA_BASE) : 0;
}
static inline unsigned long trace_addr_unpack(uint32_t off)
{
    return off ? KERNEL_VMA_BASE + off : 0;
}

struct trace_fn_event {
    uint32_t ctx;
    uint32_t ip;
    uint32_t parent_ip;
};

#define TRACE_STACK_MAX 16
struct trace_stack_event {
    uint32_t ctx;
    uint32_t nr;
    uint32_t calls[TRACE_STACK_MAX];
};

#define TRACE_PRINT_MAX 400
struct trace_print_event {
    uint32_t ctx;
    uint32_t len;
    char text[TRACE_PRINT_MAX];
};

struct trace_graph_ent_event {
    uint32_t ctx;
    uint32_t func;
    uint32_t depth;
};

struct trace_graph_ret_event {
    uint32_t ctx;
    uint32_t func;
    uint32_t depth : 12;
    uint32_t overrun : 20;
    uint32_t duration_lo; /* ns from entry to return */
    uint32_t duration_hi;
};

_Static_assert(sizeof(struct trace_fn_event) == 12, "a function event is 12 + 4 bytes");
_Static_assert(sizeof(struct trace_graph_ent_event) == 12, "graph entry: 12 + 4 bytes");
_Static_assert(sizeof(struct trace_graph_ret_event) == 20, "graph return: 20 + 4 bytes");

/* Options (trace_options, options/NAME). Core ones first, then tracer-specific ones. */
enum trace_option {
    TRACE_OPT_PRINT_PARENT,
    TRACE_OPT_SYM_OFFSET,
    TRACE_OPT_SYM_ADDR,
    TRACE_OPT_CONTEXT_INFO,
    TRACE_OPT_OVERWRITE,
    TRACE_OPT_IRQ_INFO,
    TRACE_OPT_MARKERS,
    TRACE_OPT_EVENT_FORK,
    TRACE_OPT_FUNC_STACK_TRACE,  /* function tracer */
    TRACE_OPT_GRAPH_OVERRUN,     /* function_graph ... */
    TRACE_OPT_GRAPH_CPU,
    TRACE_OPT_GRAPH_OVERHEAD,
    TRACE_OPT_GRAPH_PROC,
    TRACE_OPT_GRAPH_DURATION,
    TRACE_OPT_GRAPH_ABSTIME,
    TRACE_OPT_GRAPH_IRQS,
    TRACE_OPT_GRAPH_TAIL,
    TRACE_OPT_COUNT,
};

struct trace_option_def {
    const char *name;
    bool default_on;
    const char *tracer; /* NULL: a core option; else only listed while that tracer runs */
};
extern const struct trace_option_def trace_option_defs[TRACE_OPT_COUNT];

static inline bool trace_opt(unsigned opt);

struct trace_iter;
struct seqbuf;

/* A tracer, registered by linker section (TRACER). */
struct tracer {
    const char *name;
    int (*init)(void);   /* start tracing; 0 or -errno */
    void (*reset)(void); /* stop tracing */
    /* Header after "# tracer: NAME\n#\n"; NULL: the function tracer's header. */
    void (*print_header)(struct trace_iter *it, struct seqbuf *s);
    /* Formats one event; returns false to fall back to the default formatting. */
    bool (*print_line)(struct trace_iter *it, struct seqbuf *s);
    /* Called when an option changes while this tracer runs. */
    void (*option_changed)(unsigned opt, bool on);
};

#define TRACER(id, ...)                                                                      \
    static const struct tracer tracer_##id __used __section(".tracers") __aligned(8) = {     \
        __VA_ARGS__}

enum trace_clock_id {
    TRACE_CLOCK_LOCAL,
    TRACE_CLOCK_GLOBAL,
    TRACE_CLOCK_COUNTER,
    TRACE_CLOCK_UPTIME,
    TRACE_CLOCK_X86_TSC,
    TRACE_CLOCK_COUNT,
};

struct trace_array {
    struct ring_buffer *buffer;
    const struct tracer *current;
    volatile uint64_t options; /* bit per enum trace_option */
    enum trace_clock_id clock;
    volatile uint32_t cpumask; /* CPUs that record */
    /* set_ftrace_pid: when pid_count > 0, only these threads are traced. */
    volatile unsigned pid_count;
    int pids[32];
};

extern struct trace_array trace_global;

static inline bool trace_opt(unsigned opt) { return (trace_global.options >> opt) & 1; }

/* ---- the writer side (any context; hot paths are inline-able and untraced) ---- */

/*
 * Context word for an event of `type` written now on `cpu` (this CPU, which the caller
 * keeps); `extra_preempt` is what the caller's own preemption-disabling added (not
 * shown, as Linux does not show its own). Inline: it runs in every event.
 */
static __always_inline uint32_t trace_ctx_on(struct percpu *cpu, unsigned type,
                                             unsigned extra_preempt)
{
    unsigned flags = arch_irqs_enabled() ? 0 : TRACE_FLAG_IRQS_OFF;
    if (cpu->need_resched)
        flags |= TRACE_FLAG_NEED_RESCHED;
    if (cpu->nmi_depth)
        flags |= TRACE_FLAG_NMI;
    else if (cpu->irq_depth)
        flags |= TRACE_FLAG_HARDIRQ;
    int preempt = cpu->preempt_count - (int)extra_preempt;
    struct thread *t = cpu->current;
    return trace_ctx_make(type, flags, preempt > 0 ? (unsigned)preempt : 0,
                          t ? t->pid : 0);
}
static inline uint32_t trace_ctx_now(unsigned type, unsigned extra_preempt)
{
    return trace_ctx_on(this_cpu(), type, extra_preempt);
}

/* set_ftrace_pid holds cpu's current thread (the rare path of trace_should_record_on). */
bool trace_pid_listed(struct percpu *cpu);
/* True if `cpu` (this CPU) and its current thread should record. */
static __always_inline bool trace_should_record_on(struct percpu *cpu)
{
    if (!((trace_global.cpumask >> cpu->cpu) & 1))
        return false;
    return likely(READ_ONCE(trace_global.pid_count) == 0) || trace_pid_listed(cpu);
}
static inline bool trace_should_record(void) { return trace_should_record_on(this_cpu()); }

/* A function event: ip called from parent_ip. */
static __always_inline void trace_function_on(struct percpu *cpu, unsigned long ip,
                                              unsigned long parent_ip, unsigned extra_preempt)
{
    struct rb_reservation res;
    struct trace_fn_event *ev = rb_reserve(trace_global.buffer, sizeof(*ev), &res);
    if (!ev)
        return;
    ev->ctx = trace_ctx_on(cpu, TRACE_FN, extra_preempt);
    ev->ip = trace_addr_pack(ip);
    ev->parent_ip = trace_addr_pack(parent_ip);
    rb_commit(trace_global.buffer, &res);
}
void trace_function(unsigned long ip, unsigned long parent_ip, unsigned extra_preempt);
/*
 * Records a <stack trace> event: ip and parent_ip first (when non-zero), then the frames
 * found from rbp up. A callback passes the traced function, its caller, and the caller's
 * frame, so the trace shows the traced function's own stack, not the tracer's.
 */
void trace_stack_from(unsigned long ip, unsigned long parent_ip, uintptr_t rbp,
                      unsigned extra_preempt);
/* trace_marker: a print event. */
int trace_print(const char *text, size_t len);

/* ---- reading ---- */

/* Merges per-CPU buffers by time; consuming (trace_pipe) or not (trace). */
struct trace_iter {
    bool consume;
    int cpu_only;              /* -1: every CPU */
    struct rb_iter *iters[MAX_CPUS];
    struct rb_record rec;      /* the current event */
    bool have_rec;
    unsigned long lost[MAX_CPUS];
    int last_pid[MAX_CPUS];    /* for function_graph's task-switch markers */
    void *tracer_state;        /* per-open state of the current tracer's printer */
    /* Per-CPU lookahead: the merge compares heads, and function_graph looks at the next
     * event of a CPU to spot leaf calls. */
    struct rb_record *head[MAX_CPUS];
    bool head_full[MAX_CPUS];
};

struct trace_iter *trace_iter_open(bool consume, int cpu_only);
void trace_iter_close(struct trace_iter *it);
/* Moves to the next event; false when there is none now. */
bool trace_iter_next(struct trace_iter *it);
/* The next event of one CPU (after the current one), or NULL; stays next until dropped. */
const struct rb_record *trace_iter_peek_cpu(struct trace_iter *it, unsigned cpu);
void trace_iter_drop_peeked(struct trace_iter *it, unsigned cpu);

/* Output helpers (trace_output.c). */
void trace_print_func_header(struct seqbuf *s, int cpu_only);
void trace_print_context(struct seqbuf *s, const struct rb_record *rec);
void trace_print_sym(struct seqbuf *s, unsigned long addr, bool offset, bool addr_too);
void trace_print_sym_ex(struct seqbuf *s, unsigned long addr, bool offset, bool addr_too,
                        bool return_address);
bool trace_format_default(struct trace_iter *it, struct seqbuf *s);
void trace_format_timestamp(char *buf, size_t len, uint64_t ts);
const char *trace_comm_of(int pid, char *buf, size_t len);

/* Tracer switching and buffer control (trace.c). */
const struct tracer *trace_find_tracer(const char *name);
int trace_set_tracer(const char *name);
void trace_clear(int cpu);
void trace_set_on(bool on);
int trace_set_clock(const char *name);
int trace_option_by_name(const char *name);
uint64_t trace_clock_read(void);
const char *trace_clock_name(enum trace_clock_id id);
bool trace_clock_is_ns(void);
void trace_set_option(unsigned opt, bool on);
int trace_resize(int cpu, unsigned long kb);

/* ---- stack tracer (trace_stack.c) ---- */

struct stack_trace_entry {
    unsigned long ip;    /* a return address; the first is the traced function's own + 5 */
    unsigned long depth; /* bytes from the slot holding ip to the top of the thread stack */
};
struct ftrace_hash;
/* The value of /proc/sys/kernel/stack_tracer_enabled: non-zero registers the tracer. */
int stack_tracer_set_enabled(int value);
int stack_tracer_get_enabled(void);
/* Installs stack_trace_filter's hash (taking ownership; NULL or empty: every function). */
int stack_trace_set_filter(struct ftrace_hash *filter);
struct ftrace_hash *stack_trace_filter_copy(void);
unsigned long stack_trace_max_size(void);
void stack_trace_set_max_size(unsigned long size);
/* Copies up to max frames of the deepest stack seen; returns how many it has. */
unsigned stack_trace_snapshot(struct stack_trace_entry *out, unsigned max,
                              unsigned long *max_size);
/* A /proc/sys integer as Linux's proc_dointvec reads it. */
int trace_parse_sysctl_int(const char *buf, size_t len, int *out);

/* ---- dumps to the console (ftrace_commands.c) ---- */

/*
 * Prints the trace buffer to the console as Linux's ftrace_dump does (consuming it, and
 * turning tracing off first): every CPU merged by time (cpu = -1) or one CPU. Safe from a
 * callback and during a panic once ftrace_dump_prepare has made what it needs.
 */
void ftrace_dump(int cpu);
int ftrace_dump_prepare(void);

/* set_graph_function / set_graph_notrace as text: comma- or blank-separated globs. */
int fgraph_set_filter_text(bool is_notrace, const char *globs);

/* Output pieces for other layouts (trace_output.c): the five flag columns, and an event's
 * text after its context columns (false for events the default format does not show). */
void trace_print_flags(struct seqbuf *s, uint32_t ctx);
bool trace_format_body(struct seqbuf *s, const struct rb_record *rec);

/* Per-CPU buffer size as buffer_size_kb shows it (trace_files.c), for trace_buf_size=. */

#endif
