# kprobe_events refusals, each with its errno and its error_log line (message and caret), as
# Linux 6.1 gives them: the lines are the kp3 run of tests/reference/linux-6.1-probe-captures.txt
# with vfs_read written pfs_open, a name of the same length.
$ cd /sys/kernel/tracing
$ echo > error_log; echo > kprobe_events

$ echo 'p:bad1 nosuchfunc_xyz' >> kprobe_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: No such file or directory
rc=1
~ \[\s*\d+\.\d{6}\] trace_kprobe: error: Invalid probed address or symbol
  Command: p:bad1 nosuchfunc_xyz
                  ^

$ echo 'p:bad2 pfs_open %zz' >> kprobe_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] trace_kprobe: error: Invalid register name
  Command: p:bad2 pfs_open %zz
                           ^

$ echo 'p:bad3 pfs_open x=%si:string' >> kprobe_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] trace_kprobe: error: String accepts only memory argument
  Command: p:bad3 pfs_open x=%si:string
                                 ^

$ echo 'p:bad4 pfs_open x=%si:foo' >> kprobe_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] trace_kprobe: error: Unknown type is specified
  Command: p:bad4 pfs_open x=%si:foo
                                 ^

$ echo 'p:bad5 pfs_open $retval' >> kprobe_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] trace_kprobe: error: \$retval is not available on probe
  Command: p:bad5 pfs_open $retval
                           ^

$ echo 'p:bad6 pfs_open+8 $arg1' >> kprobe_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] trace_kprobe: error: Invalid \$\-variable specified
  Command: p:bad6 pfs_open+8 $arg1
                             ^

$ echo 'p:bad7 pfs_open+1' >> kprobe_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid or incomplete multibyte or wide character
rc=1
~ \[\s*\d+\.\d{6}\] trace_kprobe: error: Probe point is not an instruction boundary
  Command: p:bad7 pfs_open+1
                  ^

$ echo 'p:1bad pfs_open' >> kprobe_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] trace_kprobe: error: Event name must follow the same rules as C identifiers
  Command: p:1bad pfs_open
             ^

$ echo 'p:bad9 pfs_open a=%di a=%si' >> kprobe_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] trace_kprobe: error: This argument name is already used
  Command: p:bad9 pfs_open a=%di a=%si
                                 ^

$ echo 'p:bad10 pfs_open @nosuchsym_xyz' >> kprobe_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: No such file or directory
rc=1
~ \[\s*\d+\.\d{6}\] trace_kprobe: error: Invalid probed address or symbol
  Command: p:bad10 pfs_open @nosuchsym_xyz
                   ^

$ echo 'x:bad11 pfs_open' >> kprobe_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1

$ echo 'p:bad12 pfs_open +0(%di):b4@30/32' >> kprobe_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] trace_kprobe: error: Invalid bitfield
  Command: p:bad12 pfs_open +0(%di):b4@30/32
                                    ^

$ echo 'p:bad13 pfs_open $stackX' >> kprobe_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] trace_kprobe: error: Invalid \$\-variable specified
  Command: p:bad13 pfs_open $stackX
                            ^

$ echo 'r:bad14 pfs_open+8' >> kprobe_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] trace_kprobe: error: Retprobe address must be an function entry
  Command: r:bad14 pfs_open+8
                   ^

$ echo 'p:bad18' >> kprobe_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1

$ echo 'p:bad19 pfs_open $comm:u32' >> kprobe_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1

$ echo 'p:bad25 pfs_open x=%di:u8[0]' >> kprobe_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] trace_kprobe: error: Invalid array size
  Command: p:bad25 pfs_open x=%di:u8[0]
                                     ^

$ echo 'p:bad26 pfs_open x=+0($comm)' >> kprobe_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] trace_kprobe: error: \$comm can not be dereferenced
  Command: p:bad26 pfs_open x=+0($comm)
                                 ^

$ echo 'p:bad27 pfs_open x=%di:u8[4' >> kprobe_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] trace_kprobe: error: Array is not closed
  Command: p:bad27 pfs_open x=%di:u8[4
                                      ^

$ echo 'p:bad28 pfs_open x=0(%di)' >> kprobe_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] trace_kprobe: error: Invalid fetch argument
  Command: p:bad28 pfs_open x=0(%di)
                              ^

$ echo 'p:bad29 pfs_open x=+z(%di)' >> kprobe_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] trace_kprobe: error: Invalid dereference offset
  Command: p:bad29 pfs_open x=+z(%di)
                              ^

$ echo 'r0:bad30 pfs_open' >> kprobe_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] trace_kprobe: error: Invalid maxactive number
  Command: r0:bad30 pfs_open
            ^

$ echo 'p5:bad31 pfs_open' >> kprobe_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] trace_kprobe: error: Maxactive is not for kprobe
  Command: p5:bad31 pfs_open
            ^

$ echo 'r99999:bad32 pfs_open' >> kprobe_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] trace_kprobe: error: Maxactive is too big
  Command: r99999:bad32 pfs_open
            ^

$ echo 'p:a/b/c pfs_open' >> kprobe_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] trace_kprobe: error: Event name must follow the same rules as C identifiers
  Command: p:a/b/c pfs_open
               ^

$ echo 'p:verylongeventname_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa pfs_open' >> kprobe_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] trace_kprobe: error: Event name is too long
  Command: p:verylongeventname_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa pfs_open
             ^

$ echo 'p:bad34 pfs_open x=+1234567(+1234567(+1234567(+1234567(+1234567(+1234567(@1234))))))' >> kprobe_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] trace_kprobe: error: Argument expression is too long
  Command: p:bad34 pfs_open x=+1234567(+1234567(+1234567(+1234567(+1234567(+1234567(@1234))))))
                              ^

$ echo 'p:ok63 pfs_open x=+1234567(+1234567(+1234567(+1234567(+1234567(+1234567(@12))))))' >> kprobe_events; echo rc=$?; grep -c ok63 kprobe_events; echo > kprobe_events
rc=0
1

$ echo 'p:bad33 pfs_open x=' >> kprobe_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] trace_kprobe: error: No argument expression
  Command: p:bad33 pfs_open x=
                              ^

$ echo 'p:bad34 pfs_open =%di' >> kprobe_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] trace_kprobe: error: Argument name is not specified
  Command: p:bad34 pfs_open =%di
                            ^

$ echo 'p:bad35 pfs_open \1234' >> kprobe_events; echo rc=$?; cat error_log; echo > error_log
rc=0

$ echo 'p:bad36 pfs_open \"abc' >> kprobe_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] trace_kprobe: error: String is not closed with '"'
  Command: p:bad36 pfs_open \"abc
                                 ^

$ echo 'p:bad37 pfs_open $arg0' >> kprobe_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] trace_kprobe: error: Invalid argument number
  Command: p:bad37 pfs_open $arg0
                            ^

$ echo 'p:bad38 pfs_open vfs_write' >> kprobe_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] trace_kprobe: error: Invalid fetch argument
  Command: p:bad38 pfs_open vfs_write
                            ^

$ echo 'p:bad39 pfs_open%return2' >> kprobe_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] trace_kprobe: error: Invalid probed address suffix
  Command: p:bad39 pfs_open%return2
                           ^

$ echo 'p:bad40 pfs_open+8%return' >> kprobe_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] trace_kprobe: error: Retprobe address must be an function entry
  Command: p:bad40 pfs_open+8%return
                   ^

# The refusals of the kp2 run (the same file) and what it accepted.
$ echo > kprobe_events

$ echo 'p:grp/ pfs_open' >> kprobe_events; echo rc=$?; cat error_log; echo > error_log
rc=0

$ echo 'p:bad15 pfs_open $foo' >> kprobe_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] trace_kprobe: error: Invalid \$\-variable specified
  Command: p:bad15 pfs_open $foo
                            ^

$ echo 'p:bad16 pfs_open x=+0(%di' >> kprobe_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] trace_kprobe: error: Dereference brace is not closed
  Command: p:bad16 pfs_open x=+0(%di
                                    ^

$ echo 'p:bad17 pfs_open x=%di:u8[300]' >> kprobe_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] trace_kprobe: error: Array number is too big
  Command: p:bad17 pfs_open x=%di:u8[300]
                                     ^

$ echo 'p:bad20 pfs_open 1x=%di' >> kprobe_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] trace_kprobe: error: Argument name must follow the same rules as C identifiers
  Command: p:bad20 pfs_open 1x=%di
                            ^

$ echo 'p:ok1 pfs_open' >> kprobe_events; echo rc=$?; cat error_log; echo > error_log
rc=0

$ echo 'p:ok1 pfs_open' >> kprobe_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: File exists
rc=1
~ \[\s*\d+\.\d{6}\] trace_kprobe: error: There is already the exact same probe event
  Command: p:ok1 pfs_open
           ^

$ echo 'p:ok2 pfs_open' >> kprobe_events; echo rc=$?; cat error_log; echo > error_log
rc=0

$ echo 'p:ok2 pfs_open %di' >> kprobe_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: File exists
rc=1
~ \[\s*\d+\.\d{6}\] trace_kprobe: error: Argument type or name is different from existing probe
  Command: p:ok2 pfs_open %di
                          ^

$ echo '-:nosuchprobe' >> kprobe_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: No such file or directory
rc=1

$ echo '-:kprobes/ok1' >> kprobe_events; echo rc=$?; cat error_log; echo > error_log
rc=0

$ echo 'p:bad21 kprobe_ftrace_handler' >> kprobe_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] trace_kprobe: error: Failed to register probe event
  Command: p:bad21 kprobe_ftrace_handler
                   ^

$ echo 'p:bad22 pfs_open x=%di:string[2]' >> kprobe_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] trace_kprobe: error: String accepts only memory argument
  Command: p:bad22 pfs_open x=%di:string[2]
                                  ^

$ echo 'r:bad23 pfs_open $stack' >> kprobe_events; echo rc=$?; cat error_log; echo > error_log
rc=0

$ echo 'p:bad24 pfs_open x=+0(%di):symstr' >> kprobe_events; echo rc=$?; cat error_log; echo > error_log
rc=0

$ echo 'x:bad11 pfs_open' >> kprobe_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1

$ echo 'p:bad18' >> kprobe_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1

$ echo 'p:bad19 pfs_open $comm:u32' >> kprobe_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1

$ cat kprobe_events
p:grp/p_pfs_open_0 pfs_open
p:kprobes/ok2 pfs_open
r10:kprobes/bad23 pfs_open arg1=$stack
p:kprobes/bad24 pfs_open x=+0(%di):symstr

# dynamic_events takes the same lines (and lists them), and fprobe (f:) and event probe
# (e:) lines, which kprobe_events refuses as Linux's does (those kinds: fprobe.t, eprobe.t).
$ echo 'p:dyn1 pfs_open' >> dynamic_events; echo rc=$?
rc=0
$ echo 'r:dyn1r pfs_open $retval' >> dynamic_events; echo rc=$?
rc=0
$ echo 'f:fp1 pfs_open' >> kprobe_events; echo rc=$?
echo: write error: Invalid argument
rc=1
$ echo 'e:ep1 sched.sched_switch' >> kprobe_events; echo rc=$?
echo: write error: Invalid argument
rc=1
$ echo 'f:fp1 pfs_open' >> dynamic_events; echo rc=$?
rc=0
$ cat dynamic_events; cat error_log
p:grp/p_pfs_open_0 pfs_open
p:kprobes/ok2 pfs_open
r10:kprobes/bad23 pfs_open arg1=$stack
p:kprobes/bad24 pfs_open x=+0(%di):symstr
p:kprobes/dyn1 pfs_open
r10:kprobes/dyn1r pfs_open arg1=$retval
f:fprobes/fp1 pfs_open
$ echo '-:dyn1' >> dynamic_events; echo rc=$?
rc=0
$ echo > dynamic_events; echo rc=$?; cat dynamic_events; cat kprobe_events
rc=0

# A comment is no command (the self-test kprobe_files_lines writes several lines at once).
$ echo '# p:x pfs_open' >> kprobe_events; echo rc=$?; cat kprobe_events
rc=0
