# The function profiler: a known number of calls, Linux's table layout, reset on enable.

$ cd /sys/kernel/tracing
$ cat function_profile_enabled
0
$ echo 1 > function_profile_enabled
$ ftrace_test_call chain 7
$ echo 0 > function_profile_enabled
$ cat trace_stat/function0 | head -n 2
  Function                               Hit    Time            Avg             s^2
  --------                               ---    ----            ---             ---
$ cat trace_stat/function0 | grep ftrace_test_chain_b
~   ftrace_test_chain_b                     +7    [0-9.]+ us +[0-9.]+ us +[0-9.]+ us *
$ echo 1 > function_profile_enabled
$ cat trace_stat/function0 | grep -c ftrace_test_chain_b
0
$ echo 0 > function_profile_enabled
