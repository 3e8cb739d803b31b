/*
 * Everything kernel/trace/ shares inside itself: the ring buffer, the tracing core (the
 * trace array, tracers, event layouts, the reader side), the function graph core and its
 * clients, the filter commands and files. Outside kernel/trace/ only the bench rows and
 * the torture commands include it (the Makefile's TRACE_PRIVATE_DIRS says why). The rest
 * of the kernel sees only <kernel/ftrace.h>; test seams are in <kernel/ftrace_test.h>.
 */
#ifndef KERNEL_TRACE_TRACE_INTERNAL_H
#define KERNEL_TRACE_TRACE_INTERNAL_H

#include <arch/cpu.h>
#include <arch/ftrace.h>
#include <arch/trace_clock.h>
#include <kernel/compiler.h>
#include <kernel/ftrace.h>
#include <kernel/mm.h>
#include <kernel/percpu.h>
#include <kernel/pseudofs.h>
#include <kernel/smp.h>
#include <kernel/thread.h>

/* ==== the ring buffer (ring_buffer.c) ==== */

/*
 * The per-CPU ring buffer.
 *
 * Writers reserve space on their own CPU's buffer, fill it and commit, from any context
 * (thread, irq, NMI, the patching breakpoint), without locks; an interrupted writer and the writers
 * that interrupt it all keep their events. Readers on any CPU consume or iterate any CPU's buffer
 * while its writers go on. Events use Linux's header (type_len:5, time_delta:27), so a function
 * event (12-byte payload) costs exactly 16 bytes.
 *
 * Context rules: rb_reserve/rb_commit/rb_discard from any context on a CPU the caller
 * keeps (preemption or interrupts off) until the commit. Readers from any context (they
 * take a per-CPU reader lock with interrupts off; one that interrupted a writer of the
 * CPU it reads sees no page that writer has yet to finish, instead of waiting for it).
 * rb_create, rb_destroy, rb_resize, rb_reset, rb_set_clock and rb_iter_start wait for
 * writers on other CPUs with a sync round, so they are for thread context with
 * interrupts on.
 */

/* Bytes of events a page holds (a page less its 16-byte header); sizes count in these. */
#define RB_PAGE_DATA_SIZE 4080
/*
 * Largest payload rb_reserve accepts, Linux's BUF_MAX_DATA_SIZE: a whole page with the
 * 8-byte header of a payload above 112 bytes (type and time delta, then the length word).
 * An event this big only ever fits an empty page, whose first event needs no time record
 * (the page header holds its time), so a writer always finds room for it on the next page.
 */
#define RB_MAX_PAYLOAD (RB_PAGE_DATA_SIZE - 8)

struct ring_buffer;
struct rb_cpu_buffer;
struct rb_page;
struct rb_event;
struct rb_iter;

/* Filled by rb_reserve, handed back to rb_commit or rb_discard; the caller's storage. */
struct rb_reservation {
    struct rb_cpu_buffer *cpu_buffer;
    struct rb_page *page;
    struct rb_event *event;
    uint32_t length; /* bytes the event takes in the buffer, time stamp included */
    uint64_t ts;     /* the event's time, in the buffer's clock */
};

/* One event copied out of the buffer. */
struct rb_record {
    uint64_t ts; /* absolute, in the buffer's clock */
    unsigned cpu;
    unsigned len; /* payload bytes: the reserved length rounded up to 4 */
    uint8_t data[RB_MAX_PAYLOAD] __aligned(8);
};

/* What Linux's per_cpu/cpuN/stats prints. */
struct rb_stats {
    unsigned long entries;        /* in the buffer: not consumed, not overwritten */
    unsigned long overrun;        /* lost to overwrite */
    unsigned long commit_overrun; /* lost because nested writers wrapped the whole buffer */
    unsigned long bytes;          /* bytes taken by the events counted in entries */
    unsigned long dropped;        /* refused in producer/consumer mode (never written) */
    unsigned long read;           /* consumed */
    unsigned long written; /* reserved, not discarded, since the last reset (not in the file) */
    uint64_t oldest_ts;    /* oldest event's time, 0 if empty (see rb_get_stats) */
    uint64_t now_ts;       /* the buffer's clock now */
};

/* bytes_per_cpu is rounded up to whole pages (4080 bytes of events each), at least two. */
struct ring_buffer *rb_create(size_t bytes_per_cpu, unsigned ncpus);
void rb_destroy(struct ring_buffer *rb);
/*
 * Resizes one CPU's buffer (cpu = -1: every CPU). Returns 0, -EINVAL for 0 bytes or a bad
 * CPU, -ENOMEM with the old buffer and its events intact, -EBUSY while an iterator is open.
 * Events are kept, as in Linux: the unread part of the reader page and the newest ring
 * pages that fit; pages that do not fit count as overrun (lost to the reader).
 */
int rb_resize(struct ring_buffer *rb, int cpu, size_t bytes_per_cpu);
size_t rb_size(struct ring_buffer *rb, unsigned cpu); /* bytes of events per CPU */
unsigned rb_ncpus(struct ring_buffer *rb);
/* One CPU's part of rb (NULL past ncpus): what the inline writer rb_reserve_on takes. */
struct rb_cpu_buffer *rb_cpu_buffer(struct ring_buffer *rb, unsigned cpu);

/*
 * A buffer laid on a fixed range of memory that a reset of the machine keeps
 * (ring_buffer_range.c): a meta page, then each CPU's pages, all from the range. When the
 * range already holds a buffer written by the same kernel (identity) with the same
 * geometry, each page is validated (its layout, every event in it, and each record by
 * check) and the valid ones are kept in time order, readable as they were; an invalid page
 * is blanked and counted, never read. Otherwise the range is laid out afresh. A buffer
 * with kept events comes back with recording off (rb_record_enable starts it, after
 * rb_reset if the kept events are to go). Such a buffer cannot be resized (-EBUSY for
 * another size) nor swapped into a snapshot. Events a reader consumed in the boot that
 * wrote them but whose page it had not handed back yet come back unread.
 */
struct rb_range_report {
    bool kept;              /* the range held a buffer this kernel wrote */
    uint64_t text_addr;     /* its writer's kernel text address */
    uint32_t clock_id;      /* its writer's clock (rb_range_set_clock_id) */
    unsigned pages_kept;    /* pages of events found valid and kept */
    unsigned pages_dropped; /* pages that failed validation */
    unsigned long events;   /* events in the kept pages */
};
typedef bool (*rb_record_check_fn)(const void *payload, unsigned len);
struct ring_buffer *rb_create_in_range(void *base, size_t size, unsigned ncpus, uint64_t identity,
                                       uint64_t text_addr, rb_record_check_fn check,
                                       struct rb_range_report *report);
bool rb_is_in_range(const struct ring_buffer *rb);
/* Records the clock the buffer's times count in, for the boot that reads them next. */
void rb_range_set_clock_id(struct ring_buffer *rb, uint32_t id);
/* Sets that clock again on the kept events, which it keeps (recording must be off). */
void rb_range_restore_clock(struct ring_buffer *rb, uint64_t (*clock)(void));

/* true (default): a full buffer drops its oldest page (overrun); false: new events drop. */
void rb_set_overwrite(struct ring_buffer *rb, bool overwrite);
/*
 * The clock every event time comes from (default clock_ns). It must be monotonic on each
 * CPU and must not be traced. Clears the buffer: times of two clocks do not mix.
 */
void rb_set_clock(struct ring_buffer *rb, uint64_t (*clock)(void));
/* Clears events and counters of one CPU (cpu = -1: every CPU). */
void rb_reset(struct ring_buffer *rb, int cpu);

/* Recording on/off; both nest (a counter). They do not wait for writers already inside. */
void rb_record_disable(struct ring_buffer *rb);
void rb_record_enable(struct ring_buffer *rb);
void rb_record_disable_cpu(struct ring_buffer *rb, unsigned cpu);
void rb_record_enable_cpu(struct ring_buffer *rb, unsigned cpu);
bool rb_record_is_on(struct ring_buffer *rb);

/*
 * Writer, on the current CPU. Returns where the payload goes, or NULL when recording is
 * off, len > RB_MAX_PAYLOAD, or the event is dropped (buffer full in producer/consumer
 * mode, or nested writers filled the whole buffer). Every non-NULL reservation must end in
 * exactly one rb_commit or rb_discard, on the same CPU, in stack order with nested ones.
 */
void *rb_reserve(struct ring_buffer *rb, unsigned len, struct rb_reservation *res);
void rb_commit(struct ring_buffer *rb, struct rb_reservation *res);
/* Abandons a reservation: its space becomes padding that readers skip. */
void rb_discard(struct ring_buffer *rb, struct rb_reservation *res);

/*
 * Consuming reader. Copies the oldest event of cpu into out and removes it; lost_events
 * (may be NULL) gets how many events were overwritten since the previous consume on that
 * CPU. False when there is nothing to read.
 */
bool rb_consume(struct ring_buffer *rb, unsigned cpu, struct rb_record *out,
                unsigned long *lost_events);
/* Time of the event rb_consume would return next, for merging CPUs by time. */
bool rb_peek_ts(struct ring_buffer *rb, unsigned cpu, uint64_t *ts);

/*
 * Non-consuming iterator (`cat trace`). Recording on that CPU stops from rb_iter_start
 * to rb_iter_finish, as Linux's pause-on-trace does, so the pages stand still under it.
 * A consume on that CPU meanwhile restarts the iterator at the oldest unconsumed event.
 * rb_iter_start returns NULL on ENOMEM or a bad CPU.
 */
struct rb_iter *rb_iter_start(struct ring_buffer *rb, unsigned cpu);
bool rb_iter_peek(struct rb_iter *it, struct rb_record *out); /* false at the end */
bool rb_iter_next(struct rb_iter *it);                        /* steps over one event */
void rb_iter_finish(struct rb_iter *it);

/*
 * Consuming page reader (trace_pipe_raw). Fills out_page (PAGE_SIZE bytes, Linux's sub-buffer
 * layout: u64 time stamp, u64 commit, events) with unconsumed events of cpu's oldest page
 * and consumes them; false when there is nothing to read. After events were lost, commit
 * has Linux's RB_COMMIT_MISSED_EVENTS and RB_COMMIT_MISSED_STORED, and the count (u64)
 * follows the events.
 */
#define RB_COMMIT_MISSED_EVENTS (1ULL << 31)
#define RB_COMMIT_MISSED_STORED (1ULL << 30)
bool rb_read_page(struct ring_buffer *rb, unsigned cpu, void *out_page);
/* Events on a page rb_read_page filled; *lost gets its lost count (0 if none). */
unsigned rb_page_events(const void *page, unsigned long *lost);

void rb_get_stats(struct ring_buffer *rb, unsigned cpu, struct rb_stats *st);

/*
 * Swaps the current CPU's events (pages, positions, counts) between a and b, which must
 * have the same clock; each keeps its per-CPU structure, so writers holding its address
 * go on writing to the live side. Call on that CPU with interrupts off (from a cross-CPU
 * call). 0; -EAGAIN when the call interrupted a writer of this CPU halfway through an
 * event (nothing changed: try again after it returned); -EBUSY while an iterator is open
 * on either side; -EINVAL for a CPU either buffer lacks. The protocol is described where
 * it lives, in ring_buffer_control.c.
 */
int rb_swap_this_cpu(struct ring_buffer *a, struct ring_buffer *b);
/* Whether a writer of cpu is inside rb now (a hint: it may leave or come at once). */
bool rb_writer_inside(struct ring_buffer *rb, unsigned cpu);

/* ==== the tracing core (trace.c, trace_output.c, trace_files.c) ==== */

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
    TRACE_CTXWAKE = 6,  /* the wakeup tracers' wakeup and switch lines (Linux's wakeup, context) */
    TRACE_HWLAT = 7,    /* a hwlat sample over the threshold */
    TRACE_OSNOISE = 8,  /* an osnoise period's summary */
    TRACE_TIMERLAT = 9, /* a timerlat activation's irq or thread latency */
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

static inline unsigned trace_ctx_type(uint32_t c) { return c >> TRACE_CTX_TYPE_SHIFT; }
static inline unsigned trace_ctx_flags(uint32_t c) { return (c >> TRACE_CTX_FLAGS_SHIFT) & 0xf; }
static inline unsigned trace_ctx_preempt(uint32_t c)
{
    return (c >> TRACE_CTX_PREEMPT_SHIFT) & 0xf;
}
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
/* The same for an address known to be in the kernel image: a call site, a function. */
static inline uint32_t trace_text_pack(unsigned long addr)
{
    return (uint32_t)(addr - KERNEL_VMA_BASE);
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

/*
 * Linux's TRACE_BUF_SIZE: the most a trace_marker or trace_marker_raw write records (the
 * rest is left to the writer, which sends it again) and the most a trace_printk packs.
 */
#define TRACE_BUF_SIZE 1024
/* A marker's text with its NUL. */
#define TRACE_PRINT_MAX (TRACE_BUF_SIZE + 1)
/* The text one event prints to trace and trace_pipe, at most: Linux's trace_seq, a page. */
#define TRACE_LINE_MAX 4096
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

/* Linux's ctx_switch_entry: who woke or switched to whom (state as a letter, R S D ...). */
struct trace_ctxwake_event {
    uint32_t ctx;
    int32_t prev_pid;
    int32_t next_pid;
    uint8_t prev_prio;
    uint8_t next_prio;
    char prev_state;
    char next_state;
    uint8_t next_cpu;
    uint8_t wakeup; /* 1: a wakeup ("  +"), 0: a switch ("==>") */
    uint16_t reserved;
};

/* Linux's hwlat_entry: the sample's number, its gaps (us), when it began, reads over. */
struct trace_hwlat_event {
    uint32_t ctx;
    uint32_t seqnum;
    uint32_t inner_us;
    uint32_t outer_us;
    uint32_t count;
    uint32_t ts_lo; /* clock_ns at the sample's start */
    uint32_t ts_hi;
};

/* Linux's osnoise_entry: one CPU's period (times in us, counts of interference). */
struct trace_osnoise_event {
    uint32_t ctx;
    uint32_t runtime_lo, runtime_hi;
    uint32_t noise_lo, noise_hi;
    uint32_t max_sample_lo, max_sample_hi;
    uint32_t hw_count;
    uint32_t nmi_count;
    uint32_t irq_count;
    uint32_t softirq_count;
    uint32_t thread_count;
};

/* Linux's timerlat_entry: the activation, irq (0) or thread (1), the latency in ns. */
struct trace_timerlat_event {
    uint32_t ctx;
    uint32_t seqnum;
    uint32_t context;
    uint32_t latency_lo, latency_hi;
};

/* A graph return recorded while options/funcgraph-retval is on: the value too. */
struct trace_graph_retval_event {
    struct trace_graph_ret_event ret;
    uint32_t retval_lo;
    uint32_t retval_hi;
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
    TRACE_OPT_LATENCY_FORMAT,
    TRACE_OPT_OVERWRITE,
    TRACE_OPT_DISABLE_ON_FREE, /* free_buffer's release turns tracing_on off too */
    TRACE_OPT_IRQ_INFO,
    TRACE_OPT_MARKERS,
    TRACE_OPT_EVENT_FORK,
    TRACE_OPT_FUNCTION_TRACE, /* the latency tracers trace functions inside a section */
    TRACE_OPT_FUNCTION_FORK,
    TRACE_OPT_DISPLAY_GRAPH,    /* the latency tracers record and print as function_graph */
    TRACE_OPT_STACKTRACE,       /* a kernel stack after each event */
    TRACE_OPT_FUNC_STACK_TRACE, /* function tracer */
    TRACE_OPT_GRAPH_OVERRUN,    /* function_graph ... */
    TRACE_OPT_GRAPH_CPU,
    TRACE_OPT_GRAPH_OVERHEAD,
    TRACE_OPT_GRAPH_PROC,
    TRACE_OPT_GRAPH_DURATION,
    TRACE_OPT_GRAPH_ABSTIME,
    TRACE_OPT_GRAPH_IRQS,
    TRACE_OPT_GRAPH_TAIL,
    TRACE_OPT_GRAPH_RETVAL,
    TRACE_OPT_GRAPH_RETVAL_HEX,
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
struct trace_array;
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
    /* Called when an option changes while this tracer runs; opt is TRACE_OPT_COUNT once
     * it has become current, for options that changed while it was starting. */
    void (*option_changed)(unsigned opt, bool on);
    /* It runs in instances too (Linux's allow_instances): nop, or through these hooks, which
     * start and stop it on one instance's buffer. */
    bool allow_instances;
    int (*instance_init)(struct trace_array *tr);
    void (*instance_reset)(struct trace_array *tr);
    /* A latency tracer (kernel/trace/latency/): `trace` shows the max (snapshot) buffer,
     * which only the tracer swaps into (`snapshot` is EBUSY meanwhile), as Linux's
     * use_max_tr and print_max. */
    bool use_max_tr;
};

#define TRACER(id, ...)                                                                            \
    static const struct tracer tracer_##id __used __section(".tracers") __aligned(8) = {__VA_ARGS__}
/* The table the linker gathers them in. */
extern const struct tracer __start_tracers[], __stop_tracers[];

enum trace_clock_id {
    TRACE_CLOCK_LOCAL,
    TRACE_CLOCK_GLOBAL,
    TRACE_CLOCK_COUNTER,
    TRACE_CLOCK_UPTIME,
    TRACE_CLOCK_ARCH, /* then the architecture's own (<arch/trace_clock.h>) */
    TRACE_CLOCK_COUNT = TRACE_CLOCK_ARCH + ARCH_TRACE_CLOCK_COUNT,
};

#define TRACE_PIDS_MAX 32

/*
 * A snapshot asked of one CPU from atomic context (trace_snapshot.c): the call that swaps
 * there, the call by which another CPU asks again once the writer the first found inside
 * has left, and whether a request is under way (a new one then joins it).
 */
struct trace_snapshot_request {
    struct smp_call swap, retry;
    struct trace_array *tr;
    unsigned cpu;
    unsigned tries;
    volatile bool pending;
};

/* What a file of a trace array's directory is about: the array, and one CPU (-1: all). */
struct trace_file_ref {
    struct trace_array *tr;
    int cpu;
};

struct trace_array {
    struct ring_buffer *buffer;
    /* An instance's name (instances/NAME, trace_instances.c); NULL for the top level. */
    const char *name;
    /* tracing_on as last written (the buffer's record switch also nests other users). */
    bool tracing_is_on;
    /* buffer_percent: stored and read back (see trace_files.c). */
    unsigned buffer_percent;
    /* An instance's tracing_max_latency, in ns; the top level's is latency_max_ns. */
    uint64_t max_latency_ns;
    /* Its files' data: the whole array, each CPU's per_cpu/cpuN/ directory, and its
     * set_ftrace_pid and set_ftrace_notrace_pid (cpu: which list). */
    struct trace_file_ref all_cpus;
    struct trace_file_ref cpu_refs[MAX_CPUS];
    struct trace_file_ref pid_refs[2];
    uint64_t time_start; /* the trace clock when the whole buffer was last cleared */
    const struct tracer *current;
    volatile uint64_t options; /* bit per enum trace_option */
    enum trace_clock_id clock;
    bool clock_ns; /* the clock counts nanoseconds (not the counter), for the printers */
    volatile uint32_t cpumask; /* CPUs that record: set with trace_set_cpumask */
    /*
     * set_ftrace_pid (when pid_count > 0, only these threads are traced) and
     * set_ftrace_notrace_pid (these never are). Writers hold trace_pids_lock; readers take
     * none, so a pid is stored before the count that exposes it. The hot path tests both
     * counts and cpus_excluded with one load of record_filters.
     */
    union {
        struct {
            volatile uint16_t pid_count;
            volatile uint16_t notrace_pid_count;
            volatile uint8_t cpus_excluded; /* cpumask leaves out an online CPU */
        };
        volatile uint64_t record_filters;
    };
    int pids[TRACE_PIDS_MAX];
    int notrace_pids[TRACE_PIDS_MAX];
    /*
     * The snapshot (trace_snapshot.c): a second buffer, NULL while freed, whose recording
     * is off for good; only swaps put events in it. readers counts its open readers (a
     * free waits for none); hold, while non-zero, makes swaps asked for from atomic
     * context leave the buffers alone (a control operation is changing them); missed
     * counts the CPUs such swaps had to leave out; requests are their per-CPU state.
     */
    struct ring_buffer *volatile snapshot;
    unsigned snapshot_readers;
    volatile int snapshot_hold;
    unsigned long snapshot_missed;
    struct trace_snapshot_request snapshot_requests[MAX_CPUS];
    /* The conditional snapshot owner's update test, NULL while there is no owner
     * (trace_snapshot.c). */
    bool (*volatile cond_update)(struct trace_array *tr, void *cond_data);
    /* Its error_log (trace_error_log.c), oldest first. */
    char *error_log[16];
    unsigned error_log_nr;
    /* An instance's own (trace_instances.c): its slot, its directory, and the op its
     * function tracer registers (with set_ftrace_filter's and set_ftrace_notrace's sets). */
    unsigned instance_slot;
    struct pfs_node *dir;
    struct ftrace_ops *function_ops;
    /*
     * A boot-made instance on a range a reset keeps (trace_boot_instances.c): while
     * last_boot is set its buffer holds the previous boot's trace, recording off; the
     * first thing that would record in it (a tracer, an event, a marker, a clear) ends
     * that: the buffer is cleared and records again. last_boot_text is that boot's
     * kernel text address (last_boot_info).
     */
    volatile bool last_boot;
    uint64_t last_boot_text;
};

extern struct trace_array trace_global;

/*
 * The instances (trace_instances.c), by slot: the event write path finds an instance
 * there without a lock, counted in trace_instance_writers while it copies into its
 * buffer; removal empties the slot, then waits for those writers.
 */
#define TRACE_INSTANCES_MAX 32
extern struct trace_array *volatile trace_instances[TRACE_INSTANCES_MAX];
extern struct sync_readers trace_instance_writers;

static inline bool trace_opt(unsigned opt) { return (trace_global.options >> opt) & 1; }
static inline bool trace_array_opt(const struct trace_array *tr, unsigned opt)
{
    return (tr->options >> opt) & 1;
}

/*
 * The array whose lines are being printed (trace_files.c sets it around a read of an
 * instance's files, under the tracefs control mutex; the top level's otherwise), and an
 * option as its lines are printed with: the printers' counterpart of trace_opt, which is
 * the top level's, for its writers.
 */
extern struct trace_array *trace_printing;
static inline bool trace_print_opt(unsigned opt)
{
    return (READ_ONCE(trace_printing)->options >> opt) & 1;
}

/* ---- the writer side (any context; hot paths are inline-able and untraced) ---- */

/*
 * Context word for an event of `type` written now on `cpu` (this CPU, which the caller
 * keeps); `extra_preempt` is what the caller's own preemption-disabling added (not
 * shown, as Linux does not show its own). Inline: it runs in every event.
 */
static __always_inline uint32_t trace_ctx_flags_on(struct percpu *cpu, unsigned type,
                                                   unsigned extra_preempt, unsigned flags)
{
    flags |= arch_irqs_enabled() ? 0 : TRACE_FLAG_IRQS_OFF;
    flags |= cpu->need_resched ? TRACE_FLAG_NEED_RESCHED : 0;
    /* One unsigned compare catches both a count below the caller's own and one over 15. */
    unsigned preempt = (unsigned)(cpu->preempt_count - (int)extra_preempt);
    if (unlikely(preempt > 15))
        preempt = (int)preempt < 0 ? 0 : 15;
    return (type << TRACE_CTX_TYPE_SHIFT) | (flags << TRACE_CTX_FLAGS_SHIFT) |
           (preempt << TRACE_CTX_PREEMPT_SHIFT) | (cpu->current_pid & TRACE_CTX_PID_MASK);
}
/*
 * The same with cpu's context (struct percpu's context_bit) already at hand, as an ftrace
 * callback's guard has it: the bit shifted left once is the hardirq or NMI flag.
 */
static __always_inline uint32_t trace_ctx_in_context(struct percpu *cpu, unsigned type,
                                                     unsigned extra_preempt, unsigned context_bit)
{
    _Static_assert(TRACE_FLAG_HARDIRQ == PERCPU_CONTEXT_HARDIRQ << 1 &&
                       TRACE_FLAG_NMI == PERCPU_CONTEXT_NMI << 1,
                   "context bit << 1 = flag");
    return trace_ctx_flags_on(cpu, type, extra_preempt, (context_bit << 1) & 0xc);
}
static __always_inline uint32_t trace_ctx_on(struct percpu *cpu, unsigned type,
                                             unsigned extra_preempt)
{
    return trace_ctx_in_context(cpu, type, extra_preempt, READ_ONCE(cpu->context_bit));
}
static inline uint32_t trace_ctx_now(unsigned type, unsigned extra_preempt)
{
    return trace_ctx_on(this_cpu(), type, extra_preempt);
}

/*
 * The two pid lists (set_ftrace_pid, set_ftrace_notrace_pid). Adding returns 0, -ENOSPC
 * when the list is full; options/function-fork makes a listed thread's children listed
 * too and drops a thread that is freed (trace_pids_follow / trace_pids_forget, called
 * from the fork and free tracepoints, any context).
 */
enum trace_pid_list { TRACE_PIDS_TRACE, TRACE_PIDS_NOTRACE };
/*
 * The pid files' syntax (whitespace-separated decimal pids): the next pid of buf from
 * *pos, advancing it; -ENOENT at the end, -EINVAL for anything else or a pid over max.
 */
int trace_parse_next_pid(const char *buf, size_t len, size_t *pos, long max);
int trace_pids_add(enum trace_pid_list which, int pid);
void trace_pids_clear(enum trace_pid_list which);
/* The same in any trace array (an instance's function tracer follows its own lists). */
int trace_array_pids_add(struct trace_array *tr, enum trace_pid_list which, int pid);
void trace_array_pids_clear(struct trace_array *tr, enum trace_pid_list which);
bool trace_array_record_filtered(const struct trace_array *tr, struct percpu *cpu);
void trace_pids_follow(int parent, int child);
void trace_pids_forget(int pid);
/* set_ftrace_pid holds cpu's current thread, and set_ftrace_notrace_pid does not. */
bool trace_pid_allowed(struct percpu *cpu);
/* tracing_cpumask holds cpu, and its current thread passes the pid lists. */
bool trace_record_filtered(struct percpu *cpu);
/* Sets tracing_cpumask (and cpus_excluded with it). */
void trace_set_cpumask(uint32_t mask);
/* True if `cpu` (this CPU) and its current thread should record. */
static __always_inline bool trace_should_record_on(struct percpu *cpu)
{
    return likely(READ_ONCE(trace_global.record_filters) == 0) || trace_record_filtered(cpu);
}

/*
 * Records a <stack trace> event from a callback: the traced function ip, its caller (the
 * return address at parent_slot, mapped back if function_graph hooked it), then the
 * frames from the caller's frame up, so the trace shows the traced function's own stack,
 * not the tracer's.
 */
void trace_stack_from(unsigned long ip, unsigned long *parent_slot, unsigned extra_preempt);
/*
 * The same from inside the tracer's own code: the frames above frame (a function's
 * __builtin_frame_address(0)), less the first skip return addresses (the tracer's).
 */
void trace_stack_from_frame(uintptr_t frame, unsigned skip, unsigned extra_preempt);
/* The same two into tr's buffer (an instance's stacktrace trigger and command). */
void trace_array_stack_from(struct trace_array *tr, unsigned long ip, unsigned long *parent_slot,
                            unsigned extra_preempt);
void trace_array_stack_from_frame(struct trace_array *tr, uintptr_t frame, unsigned skip,
                                  unsigned extra_preempt);
/* trace_marker: a print event. */
int trace_print(const char *text, size_t len);

/* ---- reading ---- */

/* Merges per-CPU buffers by time; consuming (trace_pipe) or not (trace). */
struct trace_iter {
    struct ring_buffer *buffer;
    bool consume;
    int cpu_only; /* -1: every CPU */
    struct rb_iter *iters[MAX_CPUS];
    struct rb_record rec; /* the current event */
    bool have_rec;
    unsigned long lost[MAX_CPUS];
    void *tracer_state; /* per-open state of the current tracer's printer */
    /* Per-CPU lookahead: the merge compares heads, and function_graph looks at the next
     * event of a CPU to spot leaf calls. */
    struct rb_record *head[MAX_CPUS];
    bool head_full[MAX_CPUS];
    /* The array read: its tracer prints the lines. */
    struct trace_array *tr;
    /* Non-consuming only: events older than this are skipped (a latency tracer's max
     * buffer holds its CPU's events from before the section too). */
    uint64_t skip_before;
};

struct trace_iter *trace_iter_open(bool consume, int cpu_only);
/* The same over another buffer than the trace array's (the snapshot). */
struct trace_iter *trace_iter_open_buffer(struct ring_buffer *rb, bool consume, int cpu_only);
void trace_iter_close(struct trace_iter *it);
/* Moves to the next event; false when there is none now. */
bool trace_iter_next(struct trace_iter *it);
/* The next event of one CPU (after the current one), or NULL; stays next until dropped. */
const struct rb_record *trace_iter_peek_cpu(struct trace_iter *it, unsigned cpu);
void trace_iter_drop_peeked(struct trace_iter *it, unsigned cpu);

/* Output helpers (trace_output.c). */
void trace_print_func_header(struct seqbuf *s, int cpu_only);
void trace_print_func_header_of(struct ring_buffer *rb, struct seqbuf *s, int cpu_only);
void trace_print_sym(struct seqbuf *s, unsigned long addr, bool offset, bool addr_too);
bool trace_format_default(struct trace_iter *it, struct seqbuf *s);
/*
 * The reader loop's step, shared by trace/trace_pipe and the console dump: moves to the next
 * event and formats it into s, after a `CPU:N [LOST M EVENTS]` line when a consuming
 * reader lost some; the current tracer prints it, else fallback does. False when there is
 * no event now.
 */
bool trace_iter_print_next(struct trace_iter *it, struct seqbuf *s,
                           bool (*fallback)(struct trace_iter *it, struct seqbuf *s));
void trace_format_timestamp(char *buf, size_t len, uint64_t ts);
const char *trace_comm_of(int pid, char *buf, size_t len);

/*
 * The same for any trace array: the top level (&trace_global) or an instance. Instances
 * run only the tracers that allow_instances; their recording switch, buffer, clock and
 * CPU mask are their own.
 */
int trace_array_set_tracer(struct trace_array *tr, const char *name);
void trace_array_clear(struct trace_array *tr, int cpu);
void trace_array_set_on(struct trace_array *tr, bool on);
int trace_array_set_clock(struct trace_array *tr, const char *name);
/* The clock a range buffer's kept events count in (by id), without clearing them. */
void trace_array_restore_clock(struct trace_array *tr, uint32_t id);
int trace_array_resize(struct trace_array *tr, int cpu, unsigned long kb);
void trace_array_set_cpumask(struct trace_array *tr, uint32_t mask);
int trace_array_print(struct trace_array *tr, const char *text, size_t len);
/* The ring buffer rb, made for tr, becomes its buffer; the rest as trace_array_init. */
void trace_array_init_on(struct trace_array *tr, struct ring_buffer *rb);
/* instances/NAME made with buffer (NULL: a new one of the default size), which it owns
 * from then on, failing or not; *out (if not NULL) the array (trace_instances.c). */
int trace_instance_create(const char *name, struct ring_buffer *buffer, struct trace_array **out);
/* The trace_instance= instances, made once instances/ exists (trace_boot_instances.c). */
void trace_boot_instances_create(void);
/* If tr shows the last boot's trace, drops it and lets tr record (trace_boot_instances.c). */
void trace_array_last_boot_end(struct trace_array *tr);
/* An option of tr on or off; an instance's options change its output and what its own
 * tracer, events and markers record, never the top level's. */
void trace_array_set_option(struct trace_array *tr, unsigned opt, bool on);
bool trace_array_clock_is_ns(const struct trace_array *tr);
uint64_t (*trace_array_clock_reader(const struct trace_array *tr))(void);
/* Makes tr's buffer (bytes per CPU) and fills in its defaults; -ENOMEM. */
int trace_array_init(struct trace_array *tr, size_t bytes_per_cpu);
/* Opens a reader of tr's live buffer, as trace_iter_open does of the top level's. */
struct trace_iter *trace_array_iter_open(struct trace_array *tr, bool consume, int cpu_only);

/* Tracer switching and buffer control (trace.c). */
#define TRACE_DEFAULT_KB 1408 /* Linux's default buffer_size_kb, also an instance's */
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
/* The clock trace_clock names, as the ring buffer takes it. */
uint64_t (*trace_clock_reader(void))(void);

/* ---- the snapshot (trace_snapshot.c) ---- */

/*
 * Takes a snapshot of tr now: swaps every CPU's events into the snapshot buffer and the
 * snapshot's into the live buffer, which goes on recording. For the `snapshot` function
 * command and event trigger: any context but NMI (an NMI gets Linux's marker lines and
 * nothing else), no allocation, no waiting. This CPU swaps at once; the others swap from
 * a cross-CPU call as soon as they take it, a few microseconds later. A CPU whose call
 * arrives halfway through one of its own events is asked again once that writer has left
 * (up to TRACE_SNAPSHOT_TRIES times); one that is still busy then, or whose buffer is
 * being read through `trace` or `snapshot`, keeps its events and counts in
 * snapshot_missed, as Linux fails such a CPU. Without a snapshot buffer it writes Linux's "***
 * SNAPSHOT NOT ALLOCATED ***" and "*** stopping trace here!   ***" lines and turns tracing off.
 * Returns 0, or -ENODEV without a snapshot buffer, -EBUSY in an NMI.
 */
int tracing_snapshot(struct trace_array *tr);
#define TRACE_SNAPSHOT_TRIES 8
/*
 * Allocates tr's snapshot buffer (as big as the live one on every CPU) unless there is
 * one: 0 or -ENOMEM with nothing allocated. Thread context; the function command and the
 * event trigger call it when they are set up, as Linux's do.
 */
int tracing_alloc_snapshot(struct trace_array *tr);
/* Whether tr has a snapshot buffer now. */
bool tracing_snapshot_allocated(struct trace_array *tr);
/*
 * What a write of `value` to snapshot (cpu -1) or per_cpu/cpuN/snapshot does, as Linux
 * 6.1: 0 frees (-EINVAL for one CPU, -EBUSY while a reader has it open), 1 allocates
 * if needed and swaps every CPU (-EINVAL for one CPU, as Linux built without per-CPU
 * swaps; -ENOMEM, -EBUSY when an iterator holds a CPU's pages), anything else clears
 * the snapshot (of one CPU) if there is one.
 */
int trace_snapshot_write(struct trace_array *tr, int cpu, unsigned long value);
/* A reader of the snapshot: its buffer (NULL when freed), kept until put. */
struct ring_buffer *trace_snapshot_get(struct trace_array *tr);
void trace_snapshot_put(struct trace_array *tr);
/* Whether tr's snapshot holds no event (of cpu, -1: of every CPU). */
bool trace_snapshot_empty(struct trace_array *tr, int cpu);
/* Resizes the live buffer and the snapshot's with it (buffer_size_kb). */
int trace_buffers_resize(struct trace_array *tr, int cpu, size_t bytes);
/* The live buffer's clock changed: the snapshot takes it too, and is cleared. */
void trace_snapshot_clock_changed(struct trace_array *tr);

/*
 * The conditional snapshot, as Linux's tracing_snapshot_cond_enable: one owner (a hist
 * trigger's onmax().snapshot()) at a time has the snapshot, and each swap it asks for
 * happens only if its update test, given the caller's cond_data, says so; the test runs
 * under a lock that keeps the owner's record of why it swapped and the swap together.
 * Meanwhile writes to `snapshot` are EBUSY, as are latency tracers (they swap into the
 * same buffer), and other snapshots (the function command, the event trigger) are left
 * out: Linux 6.1 hands them to the owner's test without data, where the hist owner's
 * dereferences NULL.
 */
typedef bool (*trace_cond_update_fn)(struct trace_array *tr, void *cond_data);
/* Allocates the snapshot and makes the owner its: 0, -EBUSY (an owner already, or a
 * latency tracer current) or -ENOMEM. Thread context. */
int tracing_snapshot_cond_enable(struct trace_array *tr, trace_cond_update_fn update);
/* No owner any more; once it returns, no CPU is inside the owner's update test. */
void tracing_snapshot_cond_disable(struct trace_array *tr);
/* A swap, if update(tr, cond_data) says so: any context but NMI, as tracing_snapshot.
 * Returns 0 (swapped, or the test said no), or -EBUSY (no owner, an NMI, or asked from
 * inside another update on this CPU). */
int tracing_snapshot_cond(struct trace_array *tr, void *cond_data);
/* Whether tr has a conditional snapshot's owner. */
bool tracing_snapshot_cond_active(struct trace_array *tr);

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
unsigned stack_trace_snapshot(struct stack_trace_entry *out, unsigned max, unsigned long *max_size);
/* A /proc/sys integer as Linux's proc_dointvec reads it. */
int trace_parse_sysctl_int(const char *buf, size_t len, int *out);

/* ---- dumps to the console (trace_dump.c) ---- */

/*
 * Prints the trace buffer to the console as Linux's ftrace_dump does (consuming it, and
 * turning tracing off first): every CPU merged by time (cpu = -1) or one CPU. Safe from a
 * callback and during a panic once ftrace_dump_prepare has made what it needs.
 */
void ftrace_dump(int cpu);
int ftrace_dump_prepare(void);

/* ftrace_dump_on_oops and /proc/sys/kernel/ftrace_dump_on_oops, as Linux's. */
enum trace_dump_mode {
    TRACE_DUMP_NONE = 0,
    TRACE_DUMP_ALL = 1,
    TRACE_DUMP_ORIG_CPU = 2, /* only the buffer of the CPU that panicked */
};
/* ftrace_dump_on_oops: dumps inside a panic report from now on (mode != 0) or not. */
int trace_dump_on_oops_set(int mode);
/* Makes /proc/sys/kernel/ftrace_dump_on_oops (from the boot-time setup). */
void trace_dump_on_oops_init(void);

/* set_graph_function / set_graph_notrace as text: comma- or blank-separated globs. */
int fgraph_set_filter_text(bool is_notrace, const char *globs);

/* tracing_thresh in ns (trace_functions_graph.c owns the file). */
uint64_t tracing_thresh_ns(void);

/*
 * Linux's latency format (options/latency-format, and the latency tracers): the header
 * with the latest maximum's details (nothing while no event is to be shown) and the
 * lines with the time since the start and the mark for the gap to the next entry
 * (kernel/trace/latency/latency_core.c).
 */
void trace_latency_header(struct trace_iter *it, struct seqbuf *s);
/* A reader of a latency tracer's `trace` opens (1) or closes (-1): no maximum meanwhile. */
void latency_readers_add(int delta);
/* Where the latest maximum's section began: `trace` skips the max buffer's older events. */
uint64_t latency_max_time_start(void);
bool trace_format_latency(struct trace_iter *it, struct seqbuf *s);

/* Output pieces for other layouts (trace_output.c): the five flag columns, and an event's
 * text after its context columns (false for events the default format does not show). */
void trace_print_flags(struct seqbuf *s, uint32_t ctx);
bool trace_format_body(struct seqbuf *s, const struct rb_record *rec);

/*
 * function_graph's printer (trace_graph_output.c), for the function_graph tracer and the
 * latency tracers' options/display-graph: the columns a caller wants (Linux's
 * TRACE_GRAPH_PRINT_* flags). The line prints a graph record, or a marker or event as a
 * comment in the graph (false for anything else); the header, with latency-format, is
 * Linux's latency banner over the legend of the flags column.
 */
#define TRACE_GRAPH_COL_ABS_TIME 0x001
#define TRACE_GRAPH_COL_REL_TIME 0x002
#define TRACE_GRAPH_COL_CPU 0x004
#define TRACE_GRAPH_COL_PROC 0x008
#define TRACE_GRAPH_COL_DURATION 0x010
#define TRACE_GRAPH_COL_OVERHEAD 0x020
#define TRACE_GRAPH_COL_IRQS 0x040
#define TRACE_GRAPH_COL_OVERRUN 0x080
#define TRACE_GRAPH_COL_TAIL 0x100
#define TRACE_GRAPH_COL_RETVAL 0x200
#define TRACE_GRAPH_COL_RETVAL_HEX 0x400
bool trace_graph_print_line(struct trace_iter *it, struct seqbuf *s, unsigned cols);
void trace_graph_print_header(struct trace_iter *it, struct seqbuf *s, unsigned cols);
/* The latency banner (`# TRACER latency trace v1.1.5 on ...` to its closing `#`); false,
 * printing nothing, when the buffer shows no entry (latency_core.c). */
bool trace_latency_banner(struct trace_iter *it, struct seqbuf *s);

/* ==== the function graph core (fgraph.c) and its clients ==== */

/*
 * The function graph core: the per-thread shadow return stack, and the clients that want
 * functions' entries and returns (the function_graph tracer, the function profiler) or only
 * the returns they ask for (return probes), each a struct fgraph_ops. One ftrace op, on the
 * global filter, serves every client that wants entries.
 */

#define FGRAPH_DEPTH 128
/* A frame records its clients in a byte: at most this many, each bound to a slot for good. */
#define FGRAPH_MAX_CLIENTS 8

#define FGRAPH_FRAME_ROOT (1u << 0)      /* a set_graph_function function */
#define FGRAPH_FRAME_NOTRACE (1u << 1)   /* a set_graph_notrace function */
#define FGRAPH_FRAME_IN_IRQ (1u << 2)    /* pushed in interrupt context */
#define FGRAPH_FRAME_IRQ_ENTRY (1u << 3) /* first frame of an interrupt */
#define FGRAPH_FRAME_OVERFLOW (1u << 4)  /* the shadow stack was full: the return is not hooked */

struct fgraph_frame {
    unsigned long ret; /* the real return address */
    unsigned long func;
    union {
        uint64_t calltime;  /* trace clock at entry */
        unsigned long data; /* a frame fgraph_push_return made: its data, for its one client */
    };
    unsigned long *retp; /* the stack slot that held ret: checked at return */
    uint8_t users;       /* clients that want this return: bit = fgraph_ops slot */
    uint8_t flags;
    uint16_t depth;
};

struct fgraph_thread {
    unsigned curr;       /* frames in use */
    unsigned in_notrace; /* set_graph_notrace functions being run */
    unsigned in_filter;  /* set_graph_function functions being run */
    uint32_t overrun;    /* functions not hooked because the stack was full */
    struct fgraph_frame stack[FGRAPH_DEPTH];
};

/* What a return hands the clients that wanted it. */
struct fgraph_ret {
    uint64_t rettime;     /* trace clock at return; 0 until a client read it (fgraph_ret_time) */
    uint32_t overrun;     /* the thread's overrun count */
    unsigned long retval; /* the return register as the function returned: its value, if any */
    /* A return hooked by fgraph_push_return: the registers as the function returned (every
     * one, or those its push asked for), the stack pointer the caller's after the return,
     * the instruction pointer the real return address; a change to one reaches the
     * caller. NULL on function_graph's own returns. */
    struct pt_regs *regs;
};

struct fgraph_ops;
/*
 * Entry, with preemption off, on the frame already on the shadow stack (or, flagged
 * FGRAPH_FRAME_OVERFLOW, on a scratch copy when the stack is full). It may add
 * FGRAPH_FRAME_ROOT / FGRAPH_FRAME_NOTRACE to f->flags and may set f->calltime to a time it
 * read (the core reads the clock when no client did). Returns whether it wants the return.
 */
typedef bool (*fgraph_entry_fn)(struct fgraph_frame *f, const struct fgraph_thread *g,
                                struct fgraph_ops *gops);
/* Return, with preemption off, on the frame still in place on the shadow stack. */
typedef void (*fgraph_ret_fn)(const struct fgraph_frame *f, struct fgraph_ret *ret,
                              struct fgraph_ops *gops);

/* fgraph_inline.h: handlers a client may build, see there. */
typedef unsigned long (*fgraph_return_handler_t)(unsigned long sp, unsigned long retval);
typedef void (*fgraph_regs_return_handler_t)(struct pt_regs *regs);

/*
 * A client, as Linux's struct fgraph_ops. The first registration binds it to a slot for the
 * rest of the boot: returns of frames it took before it unregistered still reach its retfunc,
 * so a client lives as long as the kernel (a static object). While it is the only registered
 * client the core calls its entryfunc straight, without the loop over the clients; one that
 * also gives op_handler and return_handler (built with fgraph_inline.h, both or neither) has
 * those run in place of the core's own, with its entry and return inline.
 */
struct fgraph_ops {
    fgraph_entry_fn entryfunc;
    fgraph_ret_fn retfunc;
    ftrace_op_handler_t op_handler;
    fgraph_return_handler_t return_handler;
    /* A client that hooks single returns (fgraph_bind_client) may give its own handler of
     * the regs hooks, built with fgraph_inline.h around its retfunc made inline: while it
     * is the only such client, every return those hooks take goes straight to it. */
    fgraph_regs_return_handler_t regs_return_handler;
    /* Owned by the core: 0 before the first registration, else the client's bit in a
     * frame's users. */
    uint8_t users_bit;
    /* Owned by the core: users_bit once fgraph_bind_client bound the client to hook single
     * returns, else 0: a client not bound so pushes nothing (the regs hooks' handler is
     * chosen from the bound ones). */
    uint8_t push_bit;
};

/* 0, -EBUSY (every slot bound to another client), -ENODEV (graph tracing stopped). */
int register_ftrace_graph(struct fgraph_ops *gops);
/*
 * A client that hooks only the returns it asks for (return probes), from its own ftrace
 * op: bind it once (0, -EBUSY, -ENODEV as above; its entryfunc is never called), then
 * from the op's callback fgraph_push_return hooks that call's return for it alone, with
 * data for the return: its regs_return_handler's while it is the only bound client, else
 * its retfunc's, which gets the registers at the return (struct fgraph_ret's regs). Every
 * register, or with partial only those arch_ftrace_partial_regs_has names (the others
 * are not set) when the client reads no other. false (the return is not hooked) when the
 * client is not bound, the thread has no shadow stack, the stack is full or graph tracing
 * stopped.
 */
int fgraph_bind_client(struct fgraph_ops *gops);
bool fgraph_push_return(struct fgraph_ops *gops, unsigned long func, unsigned long *parent_slot,
                        unsigned long data, bool partial);
void unregister_ftrace_graph(struct fgraph_ops *gops);
bool fgraph_is_dead(void);
/* Tests only: with core the regs hooks call the core's handler, which hands each return to
 * its client's retfunc, even while a client with its own regs return handler is alone;
 * without, the choice is the usual one again. Whether the core's was in use before. */
bool fgraph_regs_return_force_core(bool core);
/*
 * The global filter changed: the function graph op takes a fresh copy of it (0), or keeps
 * its old one when the copy cannot be made (-ENOMEM).
 */
int fgraph_filter_changed(void);
/*
 * The same with copies made beforehand, which it takes (and frees when no graph client
 * runs): for a change that must not half-happen, copies first, then the global filter.
 */
void fgraph_filter_follow(struct ftrace_hash *filter, struct ftrace_hash *notrace_hash);

/* The return time, read once per return whoever asks first. */
static inline uint64_t fgraph_ret_time(struct fgraph_ret *ret)
{
    if (!ret->rettime)
        ret->rettime = trace_clock_read();
    return ret->rettime;
}

/* function_profile_enabled: switches the profiler on and off. */
int trace_profile_set(bool on);
/* function_graph's duration column, which trace_stat/functionN reuses. */
void trace_graph_print_duration(struct seqbuf *s, uint64_t ns);

/* ==== filter text, filter commands and filter files (ftrace_filter.c, ftrace_files.c) ==== */

/* The ops set_ftrace_filter and set_ftrace_notrace edit: the current tracer's. */
extern struct ftrace_ops *ftrace_global_ops;

/* The longest token a filter file accepts; a longer one fails its write with -EINVAL. */
#define FTRACE_FILTER_TOKEN_MAX 512

/*
 * A filter command, registered by linker section with FTRACE_FILTER_COMMAND.
 *
 * func() gets the glob without its leading '!' (remove tells whether there was one), and
 * param is the text after the second ':' (NULL when there is none, "" for a trailing ':').
 * A removal ignores param. Returns 0 or -errno; a glob that matches nothing, or a removal
 * that finds no probe, is -EINVAL.
 *
 * A read of set_ftrace_filter lists the probes after the functions, one line each
 * (`schedule:traceoff:count=3`, `kfree:dump:unlimited`), as Linux does: by kind (a command
 * with or without a count, and whatever else makes Linux a separate probe op), the kind
 * made last first, whatever its command. A kind is stamped with ftrace_probe_stamp() when
 * it is made; newest_below() (optional) returns the stamp of the newest of the command's
 * kinds older than below (0: none), and show_kind() lists that kind. One command may stand
 * for several that share their kinds. show() (optional) lists probes without stamps, after
 * all the others.
 */
struct ftrace_filter_command {
    const char *name;
    /* tr: the trace array whose set_ftrace_filter the command came to (an instance's
     * commands act on it); the listing functions list tr's probes. */
    int (*func)(struct trace_array *tr, const char *glob, const char *param, bool remove);
    uint64_t (*newest_below)(struct trace_array *tr, uint64_t below);
    int (*show_kind)(struct trace_array *tr, struct seqbuf *s, uint64_t stamp);
    int (*show)(struct trace_array *tr, struct seqbuf *s);
    /* Takes every probe of an instance out, before its rmdir frees it: 0 or -errno (the
     * probes it could not take out stay, and the instance too). */
    int (*instance_clear)(struct trace_array *tr);
};

/* A new probe kind's place in the listing: later kinds get higher stamps. */
uint64_t ftrace_probe_stamp(void);

#define FTRACE_FILTER_COMMAND(id, ...)                                                             \
    static const struct ftrace_filter_command ftrace_filter_command_##id __used __section(         \
        ".ftrace_commands") __aligned(8) = {__VA_ARGS__}
extern const struct ftrace_filter_command __start_ftrace_commands[], __stop_ftrace_commands[];

/*
 * The text written to set_ftrace_filter and set_ftrace_notrace is whitespace-separated
 * tokens, each a glob (see ftrace_hash_apply_glob) or, in set_ftrace_filter only, a
 * command `glob:name[:param]` such as `schedule:traceoff:3`.
 *
 * Applies one token to hash: a glob edits it, a command (allowed when commands_tr, the
 * trace array of a set_ftrace_filter, is given) goes to its handler and leaves hash alone.
 * Returns 0 or a positive count on success, -EINVAL for a glob that matched nothing, an
 * unknown command, or a command where commands are not allowed.
 */
int ftrace_filter_apply_token(struct ftrace_hash *hash, const char *token,
                              struct trace_array *commands_tr);

/* The registered command called name, or NULL. */
const struct ftrace_filter_command *ftrace_filter_command_find(const char *name);

/* Appends every command's probes in tr, as a read of its set_ftrace_filter lists them. */
int ftrace_filter_commands_show(struct trace_array *tr, struct seqbuf *s);
/* Every command's probes in instance tr taken out (its rmdir): 0 or the first error. */
int ftrace_filter_commands_clear(struct trace_array *tr);

/*
 * From the core, for enabled_functions: what rec's site calls now. Returns the address of
 * the trampoline it calls (0 for a NOP). *op is the op whose own trampoline that is, NULL
 * for a list caller; *func is the function the trampoline hands the call to: the op's
 * callback for an op's trampoline, the dispatcher that walks the ops for a list caller.
 */
unsigned long ftrace_rec_tramp_addr(const struct dyn_ftrace *rec, struct ftrace_ops **op,
                                    unsigned long *func);

struct pfs_node;
/*
 * A filter file (path under /sys/kernel/tracing) editing ops' filter or notrace hash with
 * set_ftrace_filter's syntax and commit-at-close semantics, without commands. ops need
 * not be registered: an unregistered ops is a place to keep a function set. changed (may
 * be NULL) runs after each write installed new hashes.
 */
struct pfs_node *ftrace_filter_file_create(const char *path, struct ftrace_ops *ops,
                                           bool is_notrace, void (*changed)(void));
/* An instance's set_ftrace_filter (with the filter commands, acting on tr) and
 * set_ftrace_notrace in dir, editing ops: NULL when one could not be made. */
struct pfs_node *ftrace_filter_files_create_in(struct pfs_node *dir, struct ftrace_ops *ops,
                                               struct trace_array *tr);

/* ==== tracefs: the files under /sys/kernel/tracing (tracefs.c) ==== */

#define TRACEFS_ROOT "/sys/kernel/tracing"

/*
 * A file under /sys/kernel/tracing, registered by linker section so that adding one
 * touches one file. Either `ops` (files with per-open state, like the filter files that
 * commit at close) or `show`/`store` (pfs_create_seq) is given.
 */
struct tracefs_file {
    const char *path; /* relative to TRACEFS_ROOT, may contain directories */
    unsigned mode;
    const struct pfs_ops *ops;
    pfs_show_fn show;
    pfs_store_fn store;
    void *data;
    /* Every trace array has one (instances too): data is then the array's all_cpus. */
    bool instance;
};

#define TRACEFS_FILE(id, ...)                                                                      \
    static const struct tracefs_file tracefs_file_##id __used __section(".tracefs_files")          \
        __aligned(8) = {__VA_ARGS__}
extern const struct tracefs_file __start_tracefs_files[], __stop_tracefs_files[];

/* Creates a file at run time (per-CPU files); path relative to TRACEFS_ROOT. */
struct pfs_node *tracefs_create(const char *path, unsigned mode, const struct pfs_ops *ops,
                                pfs_show_fn show, pfs_store_fn store, void *data);
/* The folders of path under dir, made if missing: the last one (NULL if one could not be
 * made), and in *leaf the name after them. */
struct pfs_node *tracefs_mkdirs_at(struct pfs_node *dir, const char *path, const char **leaf);
/* The same with path relative to dir (an instance's directory). */
struct pfs_node *tracefs_create_at(struct pfs_node *dir, const char *path, unsigned mode,
                                   const struct pfs_ops *ops, pfs_show_fn show, pfs_store_fn store,
                                   void *data);
/* The directory name in parent: the one there, or one made by tracefs_create_dir, which,
 * as Linux's, is called only to make one (a probe on it sees each new name once). */
struct pfs_node *tracefs_dir(const char *name, struct pfs_node *parent);
/* Makes tr's copies of the files every trace array has in dir, per_cpu/ included:
 * 0 or -ENOMEM (the caller removes what was made). */
int tracefs_create_array_files(struct trace_array *tr, struct pfs_node *dir);
/* tr's per_cpu/cpuN/ files (trace_files.c), trace_pipe_raw and snapshot_raw among them
 * (trace_pipe_raw.c). */
int trace_files_create_per_cpu(struct trace_array *tr, struct pfs_node *dir);
/* tr's options/, set_ftrace_pid and set_ftrace_notrace_pid (trace_files.c). */
int trace_files_create_options(struct trace_array *tr, struct pfs_node *dir);
int trace_files_create_pids(struct trace_array *tr, struct pfs_node *dir);
int trace_pipe_raw_create(struct trace_array *tr, struct pfs_node *dir, unsigned cpu);

/* Parses a whole-number write such as "1\n" the way Linux's kstrtoul_from_user does. */
int tracefs_parse_ulong(const char *buf, size_t len, unsigned long *out);

/* ==== checking call sites (kernel/torture/ftrace_check.c): the checker, the torture run ==== */

/*
 * What a torture run expects of one site, from the ops it has registered: how many want
 * it, whether any of them wants pt_regs, and the op when there is exactly one.
 */
struct site_expect {
    unsigned count;
    bool regs;
    struct ftrace_ops *only;
};

/*
 * Checks record i: its bytes are exactly what the record says the site calls, no patching
 * breakpoint is left in it, its flags agree with each other and with that target, and (want
 * non-NULL) with the ops that should want it. Otherwise false, with the first problem in why.
 */
bool ftrace_site_check(size_t i, const struct site_expect *want, char *why, size_t len);

/* ==== the call-site table (ftrace.c) ==== */

/* Every `call __fentry__` site's address, gathered by the linker from __mcount_loc. */
extern const unsigned long __start_mcount_loc[], __stop_mcount_loc[];

/* ---- error_log (trace_error_log.c): why a tracefs write was refused, in Linux's form ---- */

/* Linux keeps the newest 16 entries. */
#define TRACE_ERROR_LOG_MAX 16

/*
 * Adds an entry:
 *   [    3.340436] LOCATION: error: MESSAGE
 *     Command: COMMAND
 *              ^            (under COMMAND's character at caret_pos)
 * Process context only (it allocates); a failed allocation drops the entry.
 */
void trace_error_log(const char *location, const char *message, const char *command,
                     unsigned caret_pos);
/*
 * Entries go to the error_log of tr from now on (the top level's to start with): an
 * instance's file writes its own errors there, as Linux's do. Returns the array they went
 * to before, to put back. File operations are serialised by the tracefs control mutex,
 * which is what keeps two of them from sending entries to each other's log.
 */
struct trace_array *trace_error_log_use(struct trace_array *tr);
/* Empties tr's error_log (`echo > error_log`, and an instance's removal). */
void trace_error_log_clear(struct trace_array *tr);

#endif
