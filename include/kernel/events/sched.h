/*
 * sched: the scheduler, thread creation and exit, with Linux 6.1's fields and text.
 * One definition per event (see <kernel/trace_events.h> and
 * kernel/trace/events/event_define.h); no include guard, it is read once per product.
 * The helpers TP_fast_assign calls are kernel/trace/events/sched_events.c's.
 *
 * Every thread has Linux's default priority (120). Threads never migrate here, so
 * sched_migrate_task exists (tools expect it) but is never emitted.
 */
/* Laid out as Linux lays out its own definitions, not as clang-format would. */
/* clang-format off */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM sched
#undef TRACE_SYSTEM_ORDER
#define TRACE_SYSTEM_ORDER 3

#ifndef KERNEL_EVENTS_SCHED_STATES
#define KERNEL_EVENTS_SCHED_STATES
/*
 * Linux's task state bits as sched_switch reports them, spelled as its print fmt shows
 * them; TRACE_TASK_REPORT_MAX marks a thread switched out while it still wanted the CPU
 * ("R+").
 */
#define TRACE_TASK_RUNNING 0x00000000
#define TRACE_TASK_INTERRUPTIBLE 0x00000001
#define TRACE_TASK_UNINTERRUPTIBLE 0x00000002
#define TRACE_TASK_STOPPED 0x00000004
#define TRACE_TASK_TRACED 0x00000008
#define TRACE_TASK_DEAD 0x00000010
#define TRACE_TASK_ZOMBIE 0x00000020
#define TRACE_TASK_PARKED 0x00000040
#define TRACE_TASK_IDLE 0x00000080
#define TRACE_TASK_REPORT (TRACE_TASK_RUNNING | TRACE_TASK_INTERRUPTIBLE | TRACE_TASK_UNINTERRUPTIBLE | TRACE_TASK_STOPPED | TRACE_TASK_TRACED | TRACE_TASK_DEAD | TRACE_TASK_ZOMBIE | TRACE_TASK_PARKED)
#define TRACE_TASK_REPORT_MAX ((TRACE_TASK_REPORT + 1) << 1)
#endif

DECLARE_EVENT_CLASS(sched_wakeup_template,
                    TP_PROTO(struct thread *t),
                    TP_ARGS(t),
                    TP_OTHER_PID(t->pid),
                    TP_STRUCT__entry(
                        __array(char, comm, 16)
                        __field(pid_t, pid)
                        __field(int, prio)
                        __field(int, target_cpu)
                    ),
                    TP_fast_assign(
                        sched_trace_comm(__entry->comm, t);
                        __entry->pid = t->pid;
                        __entry->prio = thread_trace_prio(t);
                        __entry->target_cpu = (int)t->cpu;
                    ),
                    TP_printk("comm=%s pid=%d prio=%d target_cpu=%03d",
                              __entry->comm, __entry->pid, __entry->prio, __entry->target_cpu))

DEFINE_EVENT(sched_wakeup_template, sched_waking, TP_PROTO(struct thread *t), TP_ARGS(t))
DEFINE_EVENT(sched_wakeup_template, sched_wakeup, TP_PROTO(struct thread *t), TP_ARGS(t))
DEFINE_EVENT(sched_wakeup_template, sched_wakeup_new, TP_PROTO(struct thread *t), TP_ARGS(t))

/* Wrapped: the emitter keeps saved_cmdlines fresh too (sched_events.c). */
TRACE_EVENT_WRAPPED(sched_switch,
                    TP_PROTO(struct thread *prev, struct thread *next),
                    TP_ARGS(prev, next),
                    TP_OTHER_PID(next->pid),
                    TP_STRUCT__entry(
                        __array(char, prev_comm, 16)
                        __field(pid_t, prev_pid)
                        __field(int, prev_prio)
                        __field(long, prev_state)
                        __array(char, next_comm, 16)
                        __field(pid_t, next_pid)
                        __field(int, next_prio)
                    ),
                    TP_fast_assign(
                        sched_trace_comm(__entry->prev_comm, prev);
                        __entry->prev_pid = prev->pid;
                        __entry->prev_prio = thread_trace_prio(prev);
                        __entry->prev_state = sched_trace_switch_state(prev);
                        sched_trace_comm(__entry->next_comm, next);
                        __entry->next_pid = next->pid;
                        __entry->next_prio = thread_trace_prio(next);
                    ),
                    TP_printk("prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> next_comm=%s next_pid=%d next_prio=%d",
                              __entry->prev_comm, __entry->prev_pid, __entry->prev_prio,
                              (__entry->prev_state & (TRACE_TASK_REPORT_MAX - 1)) ?
                                  __print_flags(__entry->prev_state & (TRACE_TASK_REPORT_MAX - 1), "|",
                                                { TRACE_TASK_INTERRUPTIBLE, "S" },
                                                { TRACE_TASK_UNINTERRUPTIBLE, "D" },
                                                { TRACE_TASK_STOPPED, "T" },
                                                { TRACE_TASK_TRACED, "t" },
                                                { TRACE_TASK_DEAD, "X" },
                                                { TRACE_TASK_ZOMBIE, "Z" },
                                                { TRACE_TASK_PARKED, "P" },
                                                { TRACE_TASK_IDLE, "I" }) : "R",
                              __entry->prev_state & TRACE_TASK_REPORT_MAX ? "+" : "",
                              __entry->next_comm, __entry->next_pid, __entry->next_prio))

TRACE_EVENT(sched_migrate_task,
            TP_PROTO(struct thread *t, unsigned dest_cpu),
            TP_ARGS(t, dest_cpu),
            TP_OTHER_PID(t->pid),
            TP_STRUCT__entry(
                __array(char, comm, 16)
                __field(pid_t, pid)
                __field(int, prio)
                __field(int, orig_cpu)
                __field(int, dest_cpu)
            ),
            TP_fast_assign(
                sched_trace_comm(__entry->comm, t);
                __entry->pid = t->pid;
                __entry->prio = thread_trace_prio(t);
                __entry->orig_cpu = (int)t->cpu;
                __entry->dest_cpu = (int)dest_cpu;
            ),
            TP_printk("comm=%s pid=%d prio=%d orig_cpu=%d dest_cpu=%d",
                      __entry->comm, __entry->pid, __entry->prio,
                      __entry->orig_cpu, __entry->dest_cpu))

DECLARE_EVENT_CLASS(sched_process_template,
                    TP_PROTO(struct thread *t),
                    TP_ARGS(t),
                    TP_OTHER_PID(t->pid),
                    TP_STRUCT__entry(
                        __array(char, comm, 16)
                        __field(pid_t, pid)
                        __field(int, prio)
                    ),
                    TP_fast_assign(
                        sched_trace_comm(__entry->comm, t);
                        __entry->pid = t->pid;
                        __entry->prio = thread_trace_prio(t);
                    ),
                    TP_printk("comm=%s pid=%d prio=%d",
                              __entry->comm, __entry->pid, __entry->prio))

/* Wrapped: the emitter makes the pid lists forget the thread (sched_events.c). */
DEFINE_EVENT_WRAPPED(sched_process_template, sched_process_free, TP_PROTO(struct thread *t), TP_ARGS(t))
DEFINE_EVENT(sched_process_template, sched_process_exit, TP_PROTO(struct thread *t), TP_ARGS(t))

/* Wrapped: the emitter makes the pid lists follow the child (sched_events.c). */
TRACE_EVENT_WRAPPED(sched_process_fork,
                    TP_PROTO(struct thread *parent, struct thread *child),
                    TP_ARGS(parent, child),
                    TP_OTHER_PID(child->pid),
                    TP_STRUCT__entry(
                        __array(char, parent_comm, 16)
                        __field(pid_t, parent_pid)
                        __array(char, child_comm, 16)
                        __field(pid_t, child_pid)
                    ),
                    TP_fast_assign(
                        sched_trace_comm(__entry->parent_comm, parent);
                        __entry->parent_pid = parent->pid;
                        sched_trace_comm(__entry->child_comm, child);
                        __entry->child_pid = child->pid;
                    ),
                    TP_printk("comm=%s pid=%d child_comm=%s child_pid=%d",
                              __entry->parent_comm, __entry->parent_pid,
                              __entry->child_comm, __entry->child_pid))

/* clang-format on */
