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
6
