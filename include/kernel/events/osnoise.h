/*
 * osnoise: the noise the osnoise and timerlat tracers see, as Linux 6.1's events, from
 * kernel/trace/latency/trace_osnoise.c while one of those tracers runs. Durations are net:
 * an interrupt inside a thread's noise is taken out of the thread's. There is no
 * softirq_noise: this kernel has no softirqs. One definition per event (see
 * <kernel/trace_events.h>); no include guard.
 */
/* Laid out as Linux lays out its own definitions, not as clang-format would. */
/* clang-format off */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM osnoise
#undef TRACE_SYSTEM_ORDER
#define TRACE_SYSTEM_ORDER 5

TRACE_EVENT(thread_noise,
            TP_PROTO(const char *comm, int pid, uint64_t start, uint64_t duration),
            TP_ARGS(comm, pid, start, duration),
            TP_OTHER_PID(-1),
            TP_STRUCT__entry(
                __array(char, comm, 16)
                __field(u64, start)
                __field(u64, duration)
                __field(pid_t, pid)
            ),
            TP_fast_assign(
                memset(__entry->comm, 0, sizeof(__entry->comm));
                strlcpy(__entry->comm, comm, sizeof(__entry->comm));
                __entry->pid = pid;
                __entry->start = start;
                __entry->duration = duration;
            ),
            TP_printk("%8s:%d start %llu.%09u duration %llu ns",
                      __entry->comm,
                      __entry->pid,
                      __print_ns_to_secs(__entry->start),
                      __print_ns_without_secs(__entry->start),
                      __entry->duration))

TRACE_EVENT(irq_noise,
            TP_PROTO(int vector, const char *desc, uint64_t start, uint64_t duration),
            TP_ARGS(vector, desc, start, duration),
            TP_OTHER_PID(-1),
            TP_STRUCT__entry(
                __field(u64, start)
                __field(u64, duration)
                __string(desc, desc)
                __field(int, vector)
            ),
            TP_fast_assign(
                __assign_str(desc, desc);
                __entry->vector = vector;
                __entry->start = start;
                __entry->duration = duration;
            ),
            TP_printk("%s:%d start %llu.%09u duration %llu ns",
                      __get_str(desc),
                      __entry->vector,
                      __print_ns_to_secs(__entry->start),
                      __print_ns_without_secs(__entry->start),
                      __entry->duration))

TRACE_EVENT(nmi_noise,
            TP_PROTO(uint64_t start, uint64_t duration),
            TP_ARGS(start, duration),
            TP_OTHER_PID(-1),
            TP_STRUCT__entry(
                __field(u64, start)
                __field(u64, duration)
            ),
            TP_fast_assign(
                __entry->start = start;
                __entry->duration = duration;
            ),
            TP_printk("start %llu.%09u duration %llu ns",
                      __print_ns_to_secs(__entry->start),
                      __print_ns_without_secs(__entry->start),
                      __entry->duration))

TRACE_EVENT(sample_threshold,
            TP_PROTO(uint64_t start, uint64_t duration, uint64_t interference),
            TP_ARGS(start, duration, interference),
            TP_OTHER_PID(-1),
            TP_STRUCT__entry(
                __field(u64, start)
                __field(u64, duration)
                __field(u64, interference)
            ),
            TP_fast_assign(
                __entry->start = start;
                __entry->duration = duration;
                __entry->interference = interference;
            ),
            TP_printk("start %llu.%09u duration %llu ns interference %llu",
                      __print_ns_to_secs(__entry->start),
                      __print_ns_without_secs(__entry->start),
                      __entry->duration,
                      __entry->interference))

/* clang-format on */
