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

/* clang-format on */
