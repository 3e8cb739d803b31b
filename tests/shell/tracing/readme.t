# The tracefs README: a guide that names the files this tracefs has.
$ cd /sys/kernel/tracing
$ cat README | head -n 1
tracing mini-HOWTO (fentros):
$ cat README | grep -c 'set_event'
2
$ cat README | grep 'error_log'
  error_log		- why the last refused writes failed; 'echo > error_log' clears it
  a refused filter leaves the old one in place; error_log says why
$ cat README | grep 'kprobe'
 kprobe events (kprobe_events; dynamic_events lists and takes the same lines):
  kprobe_events		- Create/append/remove/show the kernel dynamic events
  events/GROUP/EVENT/	- enable, filter, format, id, as any event; kprobe_profile: hits, misses
$ cat README | grep -c 'trigger'
8

# The hist trigger syntax, in the words ftracetest looks for before it runs its hist tests.
$ cat README | grep 'var1>='
	[:<var1>=<field|var_ref|numeric_literal>[,<var2>=...]][:clock=<clock>]
$ cat README | grep 'onchange(var)'
  handlers: onmatch(matching.event), onmax(var), onchange(var)
$ cat README | grep 'trace(<synthetic_event>'
  actions: trace(<synthetic_event>,param list), <synthetic_event>(param list),
$ cat README | grep 'snapshot()'
	   save(field,...) and snapshot() (onmax and onchange only; snapshot() owns
$ cat README | grep "char name[]' >> synthetic_events"
  e.g. echo 'wakeup_latency u64 lat; pid_t pid; char name[]' >> synthetic_events
