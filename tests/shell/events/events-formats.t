# Every format file, compared with what Linux 6.1 prints: tests/reference/linux-6.1-formats.txt,
# which the harness's unit tests hold these blocks against. ftrace's own events keep Linux's
# fixed ids; the others are numbered at boot, so only their ID line is a pattern.
$ cd /sys/kernel/tracing

$ cat events/ftrace/function/format
name: function
ID: 1
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;
	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;
~
	field:unsigned long ip;	offset:8;	size:8;	signed:0;
	field:unsigned long parent_ip;	offset:16;	size:8;	signed:0;
~
print fmt: " %ps <-- %ps", (void *)REC->ip, (void *)REC->parent_ip

$ cat events/ftrace/funcgraph_entry/format
name: funcgraph_entry
ID: 11
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;
	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;
~
	field:unsigned long func;	offset:8;	size:8;	signed:0;
	field:int depth;	offset:16;	size:4;	signed:1;
~
print fmt: "--> %ps (%d)", (void *)REC->func, REC->depth

$ cat events/ftrace/funcgraph_exit/format
name: funcgraph_exit
ID: 10
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;
	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;
~
	field:unsigned long func;	offset:8;	size:8;	signed:0;
	field:int depth;	offset:16;	size:4;	signed:1;
	field:unsigned int overrun;	offset:20;	size:4;	signed:0;
	field:unsigned long long calltime;	offset:24;	size:8;	signed:0;
	field:unsigned long long rettime;	offset:32;	size:8;	signed:0;
~
print fmt: "<-- %ps (%d) (start: %llx  end: %llx) over: %d", (void *)REC->func, REC->depth, REC->calltime, REC->rettime, REC->depth

$ cat events/ftrace/print/format
name: print
ID: 5
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;
	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;
~
	field:unsigned long ip;	offset:8;	size:8;	signed:0;
	field:char buf[];	offset:16;	size:0;	signed:1;
~
print fmt: "%ps: %s", (void *)REC->ip, REC->buf

$ cat events/ftrace/bprint/format
name: bprint
ID: 6
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;
	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;
~
	field:unsigned long ip;	offset:8;	size:8;	signed:0;
	field:const char * fmt;	offset:16;	size:8;	signed:0;
	field:u32 buf[];	offset:24;	size:0;	signed:0;
~
print fmt: "%ps: %s", (void *)REC->ip, REC->fmt

$ cat events/ftrace/bputs/format
name: bputs
ID: 14
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;
	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;
~
	field:unsigned long ip;	offset:8;	size:8;	signed:0;
	field:const char * str;	offset:16;	size:8;	signed:0;
~
print fmt: "%ps: %s", (void *)REC->ip, REC->str

$ cat events/ftrace/kernel_stack/format
name: kernel_stack
ID: 4
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;
	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;
~
	field:int size;	offset:8;	size:4;	signed:1;
	field:unsigned long caller[8];	offset:16;	size:64;	signed:0;
~
print fmt: "\t=> %ps\n\t=> %ps\n\t=> %ps\n" "\t=> %ps\n\t=> %ps\n\t=> %ps\n" "\t=> %ps\n\t=> %ps\n", (void *)REC->caller[0], (void *)REC->caller[1], (void *)REC->caller[2], (void *)REC->caller[3], (void *)REC->caller[4], (void *)REC->caller[5], (void *)REC->caller[6], (void *)REC->caller[7]

$ cat events/ftrace/context_switch/format
name: context_switch
ID: 2
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;
	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;
~
	field:unsigned int prev_pid;	offset:8;	size:4;	signed:0;
	field:unsigned int next_pid;	offset:12;	size:4;	signed:0;
	field:unsigned int next_cpu;	offset:16;	size:4;	signed:0;
	field:unsigned char prev_prio;	offset:20;	size:1;	signed:0;
	field:unsigned char prev_state;	offset:21;	size:1;	signed:0;
	field:unsigned char next_prio;	offset:22;	size:1;	signed:0;
	field:unsigned char next_state;	offset:23;	size:1;	signed:0;
~
print fmt: "%u:%u:%u  ==> %u:%u:%u [%03u]", REC->prev_pid, REC->prev_prio, REC->prev_state, REC->next_pid, REC->next_prio, REC->next_state, REC->next_cpu

$ cat events/ftrace/wakeup/format
name: wakeup
ID: 3
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;
	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;
~
	field:unsigned int prev_pid;	offset:8;	size:4;	signed:0;
	field:unsigned int next_pid;	offset:12;	size:4;	signed:0;
	field:unsigned int next_cpu;	offset:16;	size:4;	signed:0;
	field:unsigned char prev_prio;	offset:20;	size:1;	signed:0;
	field:unsigned char prev_state;	offset:21;	size:1;	signed:0;
	field:unsigned char next_prio;	offset:22;	size:1;	signed:0;
	field:unsigned char next_state;	offset:23;	size:1;	signed:0;
~
print fmt: "%u:%u:%u  ==+ %u:%u:%u [%03u]", REC->prev_pid, REC->prev_prio, REC->prev_state, REC->next_pid, REC->next_prio, REC->next_state, REC->next_cpu

$ cat events/ftrace/hwlat/format
name: hwlat
ID: 15
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;
	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;
~
	field:u64 duration;	offset:8;	size:8;	signed:0;
	field:u64 outer_duration;	offset:16;	size:8;	signed:0;
	field:u64 nmi_total_ts;	offset:24;	size:8;	signed:0;
	field:s64 tv_sec;	offset:32;	size:8;	signed:1;
	field:long tv_nsec;	offset:40;	size:8;	signed:1;
	field:unsigned int nmi_count;	offset:48;	size:4;	signed:0;
	field:unsigned int seqnum;	offset:52;	size:4;	signed:0;
	field:unsigned int count;	offset:56;	size:4;	signed:0;
~
print fmt: "cnt:%u\tts:%010llu.%010lu\tinner:%llu\touter:%llu\tcount:%d\tnmi-ts:%llu\tnmi-count:%u\n", REC->seqnum, REC->tv_sec, REC->tv_nsec, REC->duration, REC->outer_duration, REC->count, REC->nmi_total_ts, REC->nmi_count

$ cat events/ftrace/osnoise/format
name: osnoise
ID: 16
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;
	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;
~
	field:u64 noise;	offset:8;	size:8;	signed:0;
	field:u64 runtime;	offset:16;	size:8;	signed:0;
	field:u64 max_sample;	offset:24;	size:8;	signed:0;
	field:unsigned int hw_count;	offset:32;	size:4;	signed:0;
	field:unsigned int nmi_count;	offset:36;	size:4;	signed:0;
	field:unsigned int irq_count;	offset:40;	size:4;	signed:0;
	field:unsigned int softirq_count;	offset:44;	size:4;	signed:0;
	field:unsigned int thread_count;	offset:48;	size:4;	signed:0;
~
print fmt: "noise:%llu\tmax_sample:%llu\thw:%u\tnmi:%u\tirq:%u\tsoftirq:%u\tthread:%u\n", REC->noise, REC->max_sample, REC->hw_count, REC->nmi_count, REC->irq_count, REC->softirq_count, REC->thread_count

$ cat events/ftrace/timerlat/format
name: timerlat
ID: 17
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;
	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;
~
	field:unsigned int seqnum;	offset:8;	size:4;	signed:0;
	field:int context;	offset:12;	size:4;	signed:1;
	field:u64 timer_latency;	offset:16;	size:8;	signed:0;
~
print fmt: "seq:%u\tcontext:%d\ttimer_latency:%llu\n", REC->seqnum, REC->context, REC->timer_latency

$ cat events/sched/sched_switch/format
name: sched_switch
~ ID: \d+
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;
	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;
~
	field:char prev_comm[16];	offset:8;	size:16;	signed:1;
	field:pid_t prev_pid;	offset:24;	size:4;	signed:1;
	field:int prev_prio;	offset:28;	size:4;	signed:1;
	field:long prev_state;	offset:32;	size:8;	signed:1;
	field:char next_comm[16];	offset:40;	size:16;	signed:1;
	field:pid_t next_pid;	offset:56;	size:4;	signed:1;
	field:int next_prio;	offset:60;	size:4;	signed:1;
~
print fmt: "prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> next_comm=%s next_pid=%d next_prio=%d", REC->prev_comm, REC->prev_pid, REC->prev_prio, (REC->prev_state & ((((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) - 1)) ? __print_flags(REC->prev_state & ((((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) - 1), "|", { 0x00000001, "S" }, { 0x00000002, "D" }, { 0x00000004, "T" }, { 0x00000008, "t" }, { 0x00000010, "X" }, { 0x00000020, "Z" }, { 0x00000040, "P" }, { 0x00000080, "I" }) : "R", REC->prev_state & (((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) ? "+" : "", REC->next_comm, REC->next_pid, REC->next_prio

$ cat events/sched/sched_wakeup/format
name: sched_wakeup
~ ID: \d+
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;
	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;
~
	field:char comm[16];	offset:8;	size:16;	signed:1;
	field:pid_t pid;	offset:24;	size:4;	signed:1;
	field:int prio;	offset:28;	size:4;	signed:1;
	field:int target_cpu;	offset:32;	size:4;	signed:1;
~
print fmt: "comm=%s pid=%d prio=%d target_cpu=%03d", REC->comm, REC->pid, REC->prio, REC->target_cpu

$ cat events/sched/sched_wakeup_new/format
name: sched_wakeup_new
~ ID: \d+
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;
	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;
~
	field:char comm[16];	offset:8;	size:16;	signed:1;
	field:pid_t pid;	offset:24;	size:4;	signed:1;
	field:int prio;	offset:28;	size:4;	signed:1;
	field:int target_cpu;	offset:32;	size:4;	signed:1;
~
print fmt: "comm=%s pid=%d prio=%d target_cpu=%03d", REC->comm, REC->pid, REC->prio, REC->target_cpu

$ cat events/sched/sched_waking/format
name: sched_waking
~ ID: \d+
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;
	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;
~
	field:char comm[16];	offset:8;	size:16;	signed:1;
	field:pid_t pid;	offset:24;	size:4;	signed:1;
	field:int prio;	offset:28;	size:4;	signed:1;
	field:int target_cpu;	offset:32;	size:4;	signed:1;
~
print fmt: "comm=%s pid=%d prio=%d target_cpu=%03d", REC->comm, REC->pid, REC->prio, REC->target_cpu

$ cat events/sched/sched_process_fork/format
name: sched_process_fork
~ ID: \d+
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;
	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;
~
	field:char parent_comm[16];	offset:8;	size:16;	signed:1;
	field:pid_t parent_pid;	offset:24;	size:4;	signed:1;
	field:char child_comm[16];	offset:28;	size:16;	signed:1;
	field:pid_t child_pid;	offset:44;	size:4;	signed:1;
~
print fmt: "comm=%s pid=%d child_comm=%s child_pid=%d", REC->parent_comm, REC->parent_pid, REC->child_comm, REC->child_pid

$ cat events/sched/sched_process_exit/format
name: sched_process_exit
~ ID: \d+
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;
	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;
~
	field:char comm[16];	offset:8;	size:16;	signed:1;
	field:pid_t pid;	offset:24;	size:4;	signed:1;
	field:int prio;	offset:28;	size:4;	signed:1;
~
print fmt: "comm=%s pid=%d prio=%d", REC->comm, REC->pid, REC->prio

$ cat events/sched/sched_process_free/format
name: sched_process_free
~ ID: \d+
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;
	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;
~
	field:char comm[16];	offset:8;	size:16;	signed:1;
	field:pid_t pid;	offset:24;	size:4;	signed:1;
	field:int prio;	offset:28;	size:4;	signed:1;
~
print fmt: "comm=%s pid=%d prio=%d", REC->comm, REC->pid, REC->prio

$ cat events/sched/sched_migrate_task/format
name: sched_migrate_task
~ ID: \d+
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;
	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;
~
	field:char comm[16];	offset:8;	size:16;	signed:1;
	field:pid_t pid;	offset:24;	size:4;	signed:1;
	field:int prio;	offset:28;	size:4;	signed:1;
	field:int orig_cpu;	offset:32;	size:4;	signed:1;
	field:int dest_cpu;	offset:36;	size:4;	signed:1;
~
print fmt: "comm=%s pid=%d prio=%d orig_cpu=%d dest_cpu=%d", REC->comm, REC->pid, REC->prio, REC->orig_cpu, REC->dest_cpu

$ cat events/irq/irq_handler_entry/format
name: irq_handler_entry
~ ID: \d+
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;
	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;
~
	field:int irq;	offset:8;	size:4;	signed:1;
	field:__data_loc char[] name;	offset:12;	size:4;	signed:1;
~
print fmt: "irq=%d name=%s", REC->irq, __get_str(name)

$ cat events/irq/irq_handler_exit/format
name: irq_handler_exit
~ ID: \d+
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;
	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;
~
	field:int irq;	offset:8;	size:4;	signed:1;
	field:int ret;	offset:12;	size:4;	signed:1;
~
print fmt: "irq=%d ret=%s", REC->irq, REC->ret ? "handled" : "unhandled"

$ cat events/irq_vectors/local_timer_entry/format
name: local_timer_entry
~ ID: \d+
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;
	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;
~
	field:int vector;	offset:8;	size:4;	signed:1;
~
print fmt: "vector=%d", REC->vector

$ cat events/irq_vectors/local_timer_exit/format
name: local_timer_exit
~ ID: \d+
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;
	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;
~
	field:int vector;	offset:8;	size:4;	signed:1;
~
print fmt: "vector=%d", REC->vector

$ cat events/irq_vectors/reschedule_entry/format
name: reschedule_entry
~ ID: \d+
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;
	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;
~
	field:int vector;	offset:8;	size:4;	signed:1;
~
print fmt: "vector=%d", REC->vector

$ cat events/irq_vectors/reschedule_exit/format
name: reschedule_exit
~ ID: \d+
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;
	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;
~
	field:int vector;	offset:8;	size:4;	signed:1;
~
print fmt: "vector=%d", REC->vector

$ cat events/irq_vectors/call_function_entry/format
name: call_function_entry
~ ID: \d+
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;
	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;
~
	field:int vector;	offset:8;	size:4;	signed:1;
~
print fmt: "vector=%d", REC->vector

$ cat events/irq_vectors/call_function_exit/format
name: call_function_exit
~ ID: \d+
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;
	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;
~
	field:int vector;	offset:8;	size:4;	signed:1;
~
print fmt: "vector=%d", REC->vector

$ cat events/irq_vectors/call_function_single_entry/format
name: call_function_single_entry
~ ID: \d+
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;
	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;
~
	field:int vector;	offset:8;	size:4;	signed:1;
~
print fmt: "vector=%d", REC->vector

$ cat events/irq_vectors/call_function_single_exit/format
name: call_function_single_exit
~ ID: \d+
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;
	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;
~
	field:int vector;	offset:8;	size:4;	signed:1;
~
print fmt: "vector=%d", REC->vector

$ cat events/header_page
	field: u64 timestamp;	offset:0;	size:8;	signed:0;
	field: local_t commit;	offset:8;	size:8;	signed:1;
	field: int overwrite;	offset:8;	size:1;	signed:1;
	field: char data;	offset:16;	size:4080;	signed:1;

$ cat events/header_event
# compressed entry header
	type_len    :    5 bits
	time_delta  :   27 bits
	array       :   32 bits
~
	padding     : type == 29
	time_extend : type == 30
	time_stamp : type == 31
	data max type_len  == 28
