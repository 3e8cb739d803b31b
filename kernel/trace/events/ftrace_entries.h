/*
 * ftrace's own events, one definition each (FTRACE_ENTRY: name, Linux's fixed id, flags,
 * the fields in Linux's layout, the print fmt as Linux spells it, the printer or NULL).
 * Read by ftrace_events.c through event_define.h; no include guard.
 */
/* Laid out as Linux lays out its own definitions, not as clang-format would. */
/* clang-format off */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM ftrace

FTRACE_ENTRY(function, TRACE_EVENT_ID_FUNCTION, 0,
             TP_STRUCT__entry(
                 __field(unsigned long, ip)
                 __field(unsigned long, parent_ip)
             ),
             F_printk(" %ps <-- %ps", (void *)__entry->ip, (void *)__entry->parent_ip),
             NULL)

FTRACE_ENTRY(kernel_stack, TRACE_EVENT_ID_KERNEL_STACK, 0,
             TP_STRUCT__entry(
                 __field(int, size)
                 __array(unsigned long, caller, 8)
             ),
             F_printk("\t=> %ps\n\t=> %ps\n\t=> %ps\n"
                      "\t=> %ps\n\t=> %ps\n\t=> %ps\n"
                      "\t=> %ps\n\t=> %ps\n",
                      (void *)__entry->caller[0], (void *)__entry->caller[1],
                      (void *)__entry->caller[2], (void *)__entry->caller[3],
                      (void *)__entry->caller[4], (void *)__entry->caller[5],
                      (void *)__entry->caller[6], (void *)__entry->caller[7]),
             NULL)

FTRACE_ENTRY(print, TRACE_EVENT_ID_PRINT, TRACE_EVENT_FL_MARKER,
             TP_STRUCT__entry(
                 __field(unsigned long, ip)
                 __flex_array(char, buf)
             ),
             F_printk("%ps: %s", (void *)__entry->ip, __entry->buf),
             NULL)

FTRACE_ENTRY(bprint, TRACE_EVENT_ID_BPRINT, TRACE_EVENT_FL_NO_NAME,
             TP_STRUCT__entry(
                 __field(unsigned long, ip)
                 __field(const char *, fmt)
                 __flex_array(u32, buf)
             ),
             F_printk("%ps: %s", (void *)__entry->ip, __entry->fmt),
             print_bprint)

FTRACE_ENTRY(funcgraph_exit, TRACE_EVENT_ID_FUNCGRAPH_EXIT, 0,
             TP_STRUCT__entry(
                 __field(unsigned long, func)
                 __field(int, depth)
                 __field(unsigned int, overrun)
                 __field(unsigned long long, calltime)
                 __field(unsigned long long, rettime)
             ),
             F_printk("<-- %ps (%d) (start: %llx  end: %llx) over: %d",
                      (void *)__entry->func, __entry->depth, __entry->calltime,
                      __entry->rettime, __entry->depth),
             NULL)

FTRACE_ENTRY(funcgraph_entry, TRACE_EVENT_ID_FUNCGRAPH_ENTRY, 0,
             TP_STRUCT__entry(
                 __field(unsigned long, func)
                 __field(int, depth)
             ),
             F_printk("--> %ps (%d)", (void *)__entry->func, __entry->depth),
             NULL)

FTRACE_ENTRY(bputs, TRACE_EVENT_ID_BPUTS, TRACE_EVENT_FL_NO_NAME,
             TP_STRUCT__entry(
                 __field(unsigned long, ip)
                 __field(const char *, str)
             ),
             F_printk("%ps: %s", (void *)__entry->ip, __entry->str),
             print_bputs)

FTRACE_ENTRY(raw_data, TRACE_EVENT_ID_RAW_DATA, TRACE_EVENT_FL_NO_NAME,
             TP_STRUCT__entry(
                 __field(unsigned int, id)
                 __flex_array(char, buf)
             ),
             F_printk("id:%04x %08x", __entry->id, (int)__entry->buf[0]),
             print_raw_data)

/*
 * The latency tracers' records (the wakeup tracers' switch and wakeup lines, hwlat,
 * osnoise, timerlat): written in compact form (trace_internal.h) and printed by the
 * tracers; these are the layouts tools/fentros_trace/widen.py gives them in a trace.dat.
 */
/* The wakeup tracers' switch and wakeup records share their fields (Linux's FTRACE_ENTRY_DUP). */
#undef FTRACE_CTXWAKE_FIELDS
#define FTRACE_CTXWAKE_FIELDS                                                                      \
    TP_STRUCT__entry(__field(unsigned int, prev_pid) __field(unsigned int, next_pid)               \
                         __field(unsigned int, next_cpu) __field(unsigned char, prev_prio)         \
                             __field(unsigned char, prev_state) __field(unsigned char, next_prio)  \
                                 __field(unsigned char, next_state))

FTRACE_ENTRY(context_switch, TRACE_EVENT_ID_CONTEXT_SWITCH, 0,
             FTRACE_CTXWAKE_FIELDS,
             F_printk("%u:%u:%u  ==> %u:%u:%u [%03u]",
                      __entry->prev_pid, __entry->prev_prio, __entry->prev_state,
                      __entry->next_pid, __entry->next_prio, __entry->next_state,
                      __entry->next_cpu),
             NULL)

FTRACE_ENTRY(wakeup, TRACE_EVENT_ID_WAKEUP, 0,
             FTRACE_CTXWAKE_FIELDS,
             F_printk("%u:%u:%u  ==+ %u:%u:%u [%03u]",
                      __entry->prev_pid, __entry->prev_prio, __entry->prev_state,
                      __entry->next_pid, __entry->next_prio, __entry->next_state,
                      __entry->next_cpu),
             NULL)

FTRACE_ENTRY(hwlat, TRACE_EVENT_ID_HWLAT, 0,
             TP_STRUCT__entry(
                 __field(u64, duration)
                 __field(u64, outer_duration)
                 __field(u64, nmi_total_ts)
                 __field(s64, tv_sec)
                 __field(long, tv_nsec)
                 __field(unsigned int, nmi_count)
                 __field(unsigned int, seqnum)
                 __field(unsigned int, count)
             ),
             F_printk("cnt:%u\tts:%010llu.%010lu\tinner:%llu\touter:%llu\tcount:%d\tnmi-ts:%llu\tnmi-count:%u\n",
                      __entry->seqnum, __entry->tv_sec, __entry->tv_nsec,
                      __entry->duration, __entry->outer_duration, __entry->count,
                      __entry->nmi_total_ts, __entry->nmi_count),
             NULL)

FTRACE_ENTRY(osnoise, TRACE_EVENT_ID_OSNOISE, 0,
             TP_STRUCT__entry(
                 __field(u64, noise)
                 __field(u64, runtime)
                 __field(u64, max_sample)
                 __field(unsigned int, hw_count)
                 __field(unsigned int, nmi_count)
                 __field(unsigned int, irq_count)
                 __field(unsigned int, softirq_count)
                 __field(unsigned int, thread_count)
             ),
             F_printk("noise:%llu\tmax_sample:%llu\thw:%u\tnmi:%u\tirq:%u\tsoftirq:%u\tthread:%u\n",
                      __entry->noise, __entry->max_sample, __entry->hw_count,
                      __entry->nmi_count, __entry->irq_count, __entry->softirq_count,
                      __entry->thread_count),
             NULL)

FTRACE_ENTRY(timerlat, TRACE_EVENT_ID_TIMERLAT, 0,
             TP_STRUCT__entry(
                 __field(unsigned int, seqnum)
                 __field(int, context)
                 __field(u64, timer_latency)
             ),
             F_printk("seq:%u\tcontext:%d\ttimer_latency:%llu\n",
                      __entry->seqnum, __entry->context, __entry->timer_latency),
             NULL)

/* clang-format on */
