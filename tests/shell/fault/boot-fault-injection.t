# failslab= and fail_page_alloc= on the kernel command line, in Linux's
# <interval>,<probability>,<space>,<times> form (setup_fault_attr); a value that does not
# parse leaves the defaults and says so in the log, as Linux's "failed to parse arguments".
# The probabilities given here are 0, so the boot itself is not disturbed.
# cmdline: failslab=3,0,4096,7 fail_page_alloc=1,2,x,3
$ cd /sys/kernel/debug/failslab
$ cat interval probability space times
3
0
4096
7
$ cat ../fail_page_alloc/interval ../fail_page_alloc/probability ../fail_page_alloc/times
1
0
1
$ dmesg | grep FAULT_INJECTION
~ \[ *[0-9]+\.[0-9]{6}\] FAULT_INJECTION: failed to parse arguments
