/*
 * The tracefs README: a short guide to the files this tracefs has, in the place Linux
 * users look for one. Its text lists only what exists here.
 */
#include "trace_internal.h"
#include <kernel/pseudofs.h>

static const char trace_readme_text[] =
    "tracing mini-HOWTO (fentros):\n"
    "\n"
    "# echo 0 > tracing_on : stop recording (the buffer keeps what it has)\n"
    "# echo 1 > tracing_on : record again\n"
    "\n"
    " Important files:\n"
    "  trace\t\t\t- the buffer as text; 'echo > trace' empties it\n"
    "  trace_pipe\t\t- a reader that consumes what it prints and waits for more\n"
    "  current_tracer\t- the tracer in use: one of available_tracers\n"
    "  available_tracers\t- function_graph, function, nop\n"
    "  buffer_size_kb\t- per-CPU buffer size; buffer_total_size_kb sums the CPUs\n"
    "  trace_clock\t\t- the clock that stamps events ([local] is the default)\n"
    "  trace_marker\t\t- a line written here becomes an ftrace:print event\n"
    "  trace_options\t\t- options as names; 'echo noNAME' turns one off; options/ has a file each\n"
    "  tracing_cpumask\t- hex mask of the CPUs that record\n"
    "  per_cpu/cpuN/\t\t- trace, trace_pipe, stats and buffer_size_kb of one CPU\n"
    "  saved_cmdlines\t- pid to name map used to print task names; saved_tgids beside it\n"
    "  error_log\t\t- why the last refused writes failed; 'echo > error_log' clears it\n"
    "\n"
    " Function tracing:\n"
    "  available_filter_functions - every function that can be traced\n"
    "  set_ftrace_filter\t- trace only these: globs ('work_*', '*hash*'), '!glob' to drop,\n"
    "\t\t\t  '>>' to add; commands: func:traceon|traceoff|stacktrace|dump|cpudump[:count]\n"
    "  set_ftrace_notrace\t- never trace these (same syntax, no commands)\n"
    "  set_ftrace_pid\t- trace only these thread ids\n"
    "  enabled_functions\t- the call sites patched now, and what they call\n"
    "  set_graph_function\t- function_graph starts only in these; set_graph_notrace skips them\n"
    "  max_graph_depth\t- function_graph's depth limit (0: none)\n"
    "  tracing_thresh\t- function_graph shows only calls longer than this (us)\n"
    "  function_profile_enabled - '1' counts calls and time per function in trace_stat/\n"
    "  stack_trace\t\t- the deepest stack seen while /proc/sys/kernel/stack_tracer_enabled is 1\n"
    "\n"
    " Events:\n"
    "  available_events\t- every event as system:name\n"
    "  set_event\t\t- enable events: 'sched:sched_switch', 'sched:*', 'irq_handler_entry',\n"
    "\t\t\t  '*:*'; '!event' disables one; an empty write disables all\n"
    "  events/\t\t- one folder per system and per event; each has 'enable' (0/1, a\n"
    "\t\t\t  system's reads X when mixed) and 'filter'; an event also 'format' and 'id'\n"
    "  set_event_pid\t\t- events only from these thread ids; set_event_notrace_pid: never\n"
    "  options/event-fork\t- threads made by listed threads are listed too\n"
    "\n"
    " Event filters (write to an event's or a system's 'filter'; '0' clears):\n"
    "  numbers:\t\t==, !=, <, <=, >, >=, & (bit test)\t e.g. prev_pid == 0\n"
    "  strings:\t\t==, !=, ~ (glob: 'sw*', '*er', '*app*', 's?[ab]*')\t e.g. next_comm ~ "
    "\"work*\"\n"
    "  combined with:\t&&, ||, !, ( )\n"
    "  every event also has common_pid, common_flags, common_preempt_count, cpu and comm\n"
    "  a refused filter leaves the old one in place; error_log says why\n"
    "\n"
    " kprobe events (kprobe_events; dynamic_events lists and takes the same lines):\n"
    "  kprobe_events\t\t- Create/append/remove/show the kernel dynamic events\n"
    "  p[:[GRP/][EVENT]] SYM[+0] [ARGS]\t- an event at a function's entry; the same EVENT again\n"
    "\t\t\t  with the same ARGS appends a probe to it\n"
    "  r[MAXACTIVE][:[GRP/][EVENT]] SYM [ARGS] - an event at its return; so is\n"
    "\t\t\t  'p[:[GRP/][EVENT]] <symbol>[+<offset>]%return [ARGS]' (offset 0)\n"
    "  -:[GRP/]EVENT\t\t- remove one; an empty write ('>') removes all\n"
    "  -:[GRP/]EVENT SYM [ARGS] - remove only its probes at SYM (whose first ARGS are these)\n"
    "  args: NAME=FETCHARG[:TYPE]\t fetcharg: %REG, $argN, $stackN, $stack, $retval, $comm,\n"
    "\t\t\t  @SYM[+|-OFFS], @ADDR, +|-OFFS(FETCHARG), \\IMM, \\\"STRING\"\n"
    "  types:\t\tu8/16/32/64, s8/16/32/64, x8/16/32/64, string, symbol, symstr,\n"
    "\t\t\t  b<bit-width>@<bit-offset>/<container-size>, TYPE[N]\n"
    "  events/GROUP/EVENT/\t- enable, filter, format, id, as any event; kprobe_profile: hits, "
    "misses\n";

static int trace_readme_show(struct seqbuf *s, void *data)
{
    return seq_puts(s, trace_readme_text);
}

TRACEFS_FILE(README, .path = "README", .mode = 0444, .show = trace_readme_show);
