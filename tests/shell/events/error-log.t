# error_log: refused event filters leave Linux's entries (the form, message and caret
# Linux 6.1 prints, in the ev run of tests/reference/linux-6.1-probe-captures.txt:
# "event filter parse error: error: ...", then "  Command: TEXT" and a caret under the
# place); `echo > error_log` empties it; Linux keeps the newest 16.
$ cd /sys/kernel/tracing
$ echo > error_log; cat error_log | wc -l
0
$ echo 'prev_pid == abc' > events/sched/sched_switch/filter
echo: write error: Invalid argument
$ echo 'nosuchfield == 1' > events/sched/sched_switch/filter
echo: write error: Invalid argument
$ echo '(prev_pid == 1' > events/sched/sched_switch/filter
echo: write error: No such file or directory
$ echo 'prev_pid == 1)' > events/sched/sched_switch/filter
echo: write error: Operation not permitted
$ echo 'prev_comm == "abc' > events/sched/sched_switch/filter
echo: write error: No such process
$ cat error_log
~ \[ *\d+\.\d{6}\] event filter parse error: error: Invalid value \(did you forget quotes\)\?
  Command: prev_pid == abc
                        ^
~ \[ *\d+\.\d{6}\] event filter parse error: error: Field not found
  Command: nosuchfield == 1
                       ^
~ \[ *\d+\.\d{6}\] event filter parse error: error: Too many '\('
  Command: (prev_pid == 1
           ^
~ \[ *\d+\.\d{6}\] event filter parse error: error: Too few '\('
  Command: prev_pid == 1)
                        ^
~ \[ *\d+\.\d{6}\] event filter parse error: error: Missing matching quote
  Command: prev_comm == "abc
                        ^
$ cat events/sched/sched_switch/filter
none
$ echo 'x' >> error_log; cat error_log | wc -l
15
$ echo > error_log; cat error_log | wc -l
0
$ echo 'n1 == 1' > events/sched/sched_switch/filter; echo 'n2 == 1' > events/sched/sched_switch/filter; echo 'n3 == 1' > events/sched/sched_switch/filter; echo 'n4 == 1' > events/sched/sched_switch/filter; echo 'n5 == 1' > events/sched/sched_switch/filter; echo 'n6 == 1' > events/sched/sched_switch/filter; echo 'n7 == 1' > events/sched/sched_switch/filter; echo 'n8 == 1' > events/sched/sched_switch/filter; echo 'n9 == 1' > events/sched/sched_switch/filter; echo 'n10 == 1' > events/sched/sched_switch/filter; echo 'n11 == 1' > events/sched/sched_switch/filter; echo 'n12 == 1' > events/sched/sched_switch/filter; echo 'n13 == 1' > events/sched/sched_switch/filter; echo 'n14 == 1' > events/sched/sched_switch/filter; echo 'n15 == 1' > events/sched/sched_switch/filter; echo 'n16 == 1' > events/sched/sched_switch/filter; echo 'n17 == 1' > events/sched/sched_switch/filter; echo 'n18 == 1' > events/sched/sched_switch/filter
echo: write error: Invalid argument
echo: write error: Invalid argument
echo: write error: Invalid argument
echo: write error: Invalid argument
echo: write error: Invalid argument
echo: write error: Invalid argument
echo: write error: Invalid argument
echo: write error: Invalid argument
echo: write error: Invalid argument
echo: write error: Invalid argument
echo: write error: Invalid argument
echo: write error: Invalid argument
echo: write error: Invalid argument
echo: write error: Invalid argument
echo: write error: Invalid argument
echo: write error: Invalid argument
echo: write error: Invalid argument
echo: write error: Invalid argument
$ cat error_log | wc -l; cat error_log | grep -c 'Command: n1 '; cat error_log | grep -c 'Command: n18 '
48
0
1
$ echo > error_log
