# buffer_percent, free_buffer, trace_marker_raw, timestamp_mode and tracing_max_latency, at
# the top level and in an instance, replaying Linux 6.1 (tests/reference/
# linux-6.1-instance-files.txt has the session and tests/reference/linux-6.1-instance-files.sh
# the script that captured it). Where fentros differs: a write error reads "echo:" where
# Linux's sh says "sh:"; a write-only file (trace_marker_raw, free_buffer) cannot be opened
# for reading, where Linux's root opens it and its read fails with EINVAL (and the close of
# free_buffer shrinks the buffer); trace lines show this shell's name and pid and times, a
# regex here; buffer_total_size_kb depends on the CPU count. The modes are fentros's:
# Linux's are 0640 (buffer_percent, tracing_max_latency), 0200, 0220 and 0440
# (timestamp_mode, which Linux's root may open to write and gets EINVAL from: the file
# takes writes here to refuse them so).

$ cd /sys/kernel/tracing
$ mkdir instances/foo
$ ls -l buffer_percent free_buffer trace_marker_raw timestamp_mode tracing_max_latency
-rw-r--r-- buffer_percent
--w------- free_buffer
--w--w---- trace_marker_raw
-rw-r--r-- timestamp_mode
-rw-r--r-- tracing_max_latency

$ ls -l instances/foo/buffer_percent instances/foo/free_buffer instances/foo/trace_marker_raw instances/foo/timestamp_mode instances/foo/tracing_max_latency
-rw-r--r-- instances/foo/buffer_percent
--w------- instances/foo/free_buffer
--w--w---- instances/foo/trace_marker_raw
-rw-r--r-- instances/foo/timestamp_mode
-rw-r--r-- instances/foo/tracing_max_latency

$ cat events/ftrace/raw_data/format
name: raw_data
ID: 18
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;
	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;
~
	field:unsigned int id;	offset:8;	size:4;	signed:0;
	field:char buf[];	offset:12;	size:0;	signed:1;
~
print fmt: "id:%04x %08x", REC->id, (int)REC->buf[0]

$ cat events/ftrace/raw_data/enable; echo 1 > events/ftrace/raw_data/enable; echo "rc=$?"
cat: events/ftrace/raw_data/enable: No such file or directory
fentros: events/ftrace/raw_data/enable: Permission denied
rc=1

$ echo "=== top level"
=== top level

$ cat buffer_percent
50

$ echo 0 > buffer_percent; echo "rc=$?"; cat buffer_percent
rc=0
0

$ echo 100 > buffer_percent; echo "rc=$?"; cat buffer_percent
rc=0
100

$ echo 101 > buffer_percent; echo "rc=$?"; cat buffer_percent
echo: write error: Invalid argument
rc=1
100

$ echo abc > buffer_percent; echo "rc=$?"
echo: write error: Invalid argument
rc=1

$ echo -1 > buffer_percent; echo "rc=$?"
echo: write error: Invalid argument
rc=1

$ echo 99999999999999999999 > buffer_percent; echo "rc=$?"
echo: write error: Numerical result out of range
rc=1

$ echo 50 > buffer_percent; cat buffer_percent
50

$ cat timestamp_mode
[delta] absolute

$ echo absolute > timestamp_mode; echo "rc=$?"; cat timestamp_mode
echo: write error: Invalid argument
rc=1
[delta] absolute

$ echo delta > timestamp_mode; echo "rc=$?"
echo: write error: Invalid argument
rc=1

$ cat tracing_max_latency
0

$ echo 123 > tracing_max_latency; echo "rc=$?"; cat tracing_max_latency
rc=0
123

$ echo abc > tracing_max_latency; echo "rc=$?"; cat tracing_max_latency
echo: write error: Invalid argument
rc=1
123

$ echo 0 > tracing_max_latency; cat tracing_max_latency
0

# Linux: cat: read error: Invalid argument (see the head of this file).
$ cat trace_marker_raw; echo "rc=$?"
cat: trace_marker_raw: Permission denied
rc=1

$ echo > trace

$ echo -n ABCD > trace_marker_raw; echo "rc=$?"
rc=0

$ echo -n ABCDefgh > trace_marker_raw; echo "rc=$?"
rc=0

$ echo ABCDefghijklmnopqrstu > trace_marker_raw; echo "rc=$?"
rc=0

$ echo -n ABC > trace_marker_raw; echo "rc=$?"
echo: write error: Invalid argument
rc=1

$ echo -n A > trace_marker_raw; echo "rc=$?"
echo: write error: Invalid argument
rc=1

$ printf '\x01\x00\x00\x00abcd' > trace_marker_raw; echo "rc=$?"
rc=0

$ grep -v '^#' trace
~ \s*\S+-\d+ +\[\d{3}\] \.\.\.\.\. +\d+\.\d{6}: # 44434241 buf: 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00
~ \s*\S+-\d+ +\[\d{3}\] \.\.\.\.\. +\d+\.\d{6}: # 44434241 buf: 65 66 67 68 00 00 00 00 00 00 00 00 00 00 00 00
~ \s*\S+-\d+ +\[\d{3}\] \.\.\.\.\. +\d+\.\d{6}: # 44434241 buf: 65 66 67 68 69 6a 6b 6c 6d 6e 6f 70 71 72 73 74 75 0a 00 00 00 00 00 00
~ \s*\S+-\d+ +\[\d{3}\] \.\.\.\.\. +\d+\.\d{6}: # 1 buf: 61 62 63 64 00 00 00 00 00 00 00 00 00 00 00 00

$ echo 0 > options/markers; echo -n ABCDx > trace_marker_raw; echo "rc=$?"; echo 1 > options/markers
echo: write error: Invalid argument
rc=1

$ echo 0 > tracing_on; echo -n ABCDx > trace_marker_raw; echo "rc=$?"; echo 1 > tracing_on
echo: write error: Bad file descriptor
rc=1

$ grep -c buf: trace
4

$ cat options/disable_on_free
0

# Linux's top level reads 7 (expanded: 1408) and 14 (expanded: 2816) until first used;
# fentros's buffers are whole from boot.
$ cat buffer_size_kb buffer_total_size_kb
~ \d+
~ \d+

$ echo 1 > free_buffer; echo "rc=$?"
rc=0

$ cat buffer_size_kb buffer_total_size_kb per_cpu/cpu0/buffer_size_kb tracing_on
7
~ 7|14|28
7
1

$ echo 1410 > buffer_size_kb; cat buffer_size_kb
1410

# Linux: cat: read error: Invalid argument, and the release shrinks the buffer to 7:
# here free_buffer cannot be opened for reading, and nothing changes.
$ cat free_buffer; echo "rc=$?"
cat: free_buffer: Permission denied
rc=1

$ cat buffer_size_kb
1410

$ echo 1410 > buffer_size_kb

$ echo 1 > options/disable_on_free; echo "rc=$?"; cat options/disable_on_free
rc=0
1

$ grep disable_on_free trace_options
disable_on_free

$ echo 1 > free_buffer; echo "rc=$?"
rc=0

$ cat buffer_size_kb tracing_on
7
0

$ echo 0 > options/disable_on_free; echo 1 > tracing_on; echo 1410 > buffer_size_kb

$ echo nodisable_on_free > trace_options; echo "rc=$?"
rc=0

# Linux's script has `: > free_buffer`: an open and a close with no write shrink it too.
$ echo -n > free_buffer; echo "rc=$?"; cat buffer_size_kb
rc=0
7

$ echo 1410 > buffer_size_kb

$ echo "=== instances/foo"
=== instances/foo

$ cat instances/foo/buffer_percent
50

$ echo 0 > instances/foo/buffer_percent; echo "rc=$?"; cat instances/foo/buffer_percent
rc=0
0

$ echo 100 > instances/foo/buffer_percent; echo "rc=$?"; cat instances/foo/buffer_percent
rc=0
100

$ echo 101 > instances/foo/buffer_percent; echo "rc=$?"; cat instances/foo/buffer_percent
echo: write error: Invalid argument
rc=1
100

$ echo abc > instances/foo/buffer_percent; echo "rc=$?"
echo: write error: Invalid argument
rc=1

$ echo -1 > instances/foo/buffer_percent; echo "rc=$?"
echo: write error: Invalid argument
rc=1

$ echo 99999999999999999999 > instances/foo/buffer_percent; echo "rc=$?"
echo: write error: Numerical result out of range
rc=1

$ echo 50 > instances/foo/buffer_percent; cat instances/foo/buffer_percent
50

$ cat instances/foo/timestamp_mode
[delta] absolute

$ echo absolute > instances/foo/timestamp_mode; echo "rc=$?"; cat instances/foo/timestamp_mode
echo: write error: Invalid argument
rc=1
[delta] absolute

$ echo delta > instances/foo/timestamp_mode; echo "rc=$?"
echo: write error: Invalid argument
rc=1

$ cat instances/foo/tracing_max_latency
0

$ echo 123 > instances/foo/tracing_max_latency; echo "rc=$?"; cat instances/foo/tracing_max_latency
rc=0
123

$ echo abc > instances/foo/tracing_max_latency; echo "rc=$?"; cat instances/foo/tracing_max_latency
echo: write error: Invalid argument
rc=1
123

$ echo 0 > instances/foo/tracing_max_latency; cat instances/foo/tracing_max_latency
0

# Linux: cat: read error: Invalid argument (see the head of this file).
$ cat instances/foo/trace_marker_raw; echo "rc=$?"
cat: instances/foo/trace_marker_raw: Permission denied
rc=1

$ echo > instances/foo/trace

$ echo -n ABCD > instances/foo/trace_marker_raw; echo "rc=$?"
rc=0

$ echo -n ABCDefgh > instances/foo/trace_marker_raw; echo "rc=$?"
rc=0

$ echo ABCDefghijklmnopqrstu > instances/foo/trace_marker_raw; echo "rc=$?"
rc=0

$ echo -n ABC > instances/foo/trace_marker_raw; echo "rc=$?"
echo: write error: Invalid argument
rc=1

$ echo -n A > instances/foo/trace_marker_raw; echo "rc=$?"
echo: write error: Invalid argument
rc=1

$ printf '\x01\x00\x00\x00abcd' > instances/foo/trace_marker_raw; echo "rc=$?"
rc=0

$ grep -v '^#' instances/foo/trace
~ \s*\S+-\d+ +\[\d{3}\] \.\.\.\.\. +\d+\.\d{6}: # 44434241 buf: 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00
~ \s*\S+-\d+ +\[\d{3}\] \.\.\.\.\. +\d+\.\d{6}: # 44434241 buf: 65 66 67 68 00 00 00 00 00 00 00 00 00 00 00 00
~ \s*\S+-\d+ +\[\d{3}\] \.\.\.\.\. +\d+\.\d{6}: # 44434241 buf: 65 66 67 68 69 6a 6b 6c 6d 6e 6f 70 71 72 73 74 75 0a 00 00 00 00 00 00
~ \s*\S+-\d+ +\[\d{3}\] \.\.\.\.\. +\d+\.\d{6}: # 1 buf: 61 62 63 64 00 00 00 00 00 00 00 00 00 00 00 00

$ echo 0 > instances/foo/options/markers; echo -n ABCDx > instances/foo/trace_marker_raw; echo "rc=$?"; echo 1 > instances/foo/options/markers
echo: write error: Invalid argument
rc=1

$ echo 0 > instances/foo/tracing_on; echo -n ABCDx > instances/foo/trace_marker_raw; echo "rc=$?"; echo 1 > instances/foo/tracing_on
echo: write error: Bad file descriptor
rc=1

$ grep -c buf: instances/foo/trace
4

$ cat instances/foo/options/disable_on_free
0

$ cat instances/foo/buffer_size_kb instances/foo/buffer_total_size_kb
1410
~ 1410|2820|5640

$ echo 1 > instances/foo/free_buffer; echo "rc=$?"
rc=0

$ cat instances/foo/buffer_size_kb instances/foo/buffer_total_size_kb instances/foo/per_cpu/cpu0/buffer_size_kb instances/foo/tracing_on
7
~ 7|14|28
7
1

$ echo 1410 > instances/foo/buffer_size_kb; cat instances/foo/buffer_size_kb
1410

# Linux: cat: read error: Invalid argument, and the release shrinks the buffer to 7:
# here free_buffer cannot be opened for reading, and nothing changes.
$ cat instances/foo/free_buffer; echo "rc=$?"
cat: instances/foo/free_buffer: Permission denied
rc=1

$ cat instances/foo/buffer_size_kb
1410

$ echo 1410 > instances/foo/buffer_size_kb

$ echo 1 > instances/foo/options/disable_on_free; echo "rc=$?"; cat instances/foo/options/disable_on_free
rc=0
1

$ grep disable_on_free instances/foo/trace_options
disable_on_free

$ echo 1 > instances/foo/free_buffer; echo "rc=$?"
rc=0

$ cat instances/foo/buffer_size_kb instances/foo/tracing_on
7
0

$ echo 0 > instances/foo/options/disable_on_free; echo 1 > instances/foo/tracing_on; echo 1410 > instances/foo/buffer_size_kb

$ echo nodisable_on_free > instances/foo/trace_options; echo "rc=$?"
rc=0

# Linux's script has `: > free_buffer`: an open and a close with no write shrink it too.
$ echo -n > instances/foo/free_buffer; echo "rc=$?"; cat instances/foo/buffer_size_kb
rc=0
7

$ echo 1410 > instances/foo/buffer_size_kb

$ echo 7 > buffer_percent; cat instances/foo/buffer_percent buffer_percent; echo 50 > buffer_percent
50
7

$ echo 5 > tracing_max_latency; cat instances/foo/tracing_max_latency tracing_max_latency; echo 0 > tracing_max_latency
0
5

$ echo -n WXYZ1 > instances/foo/trace_marker_raw; grep -c buf: trace; grep -c buf: instances/foo/trace
4
5

$ rmdir instances/foo; echo "rc=$?"
rc=0

# Linux's timestamp_mode stays delta under a hist trigger that uses common_timestamp.
$ echo "hist:keys=common_pid:ts0=common_timestamp.usecs" > events/sched/sched_switch/trigger; echo "rc=$?"
rc=0

$ cat timestamp_mode
[delta] absolute

$ echo "!hist:keys=common_pid:ts0=common_timestamp.usecs" > events/sched/sched_switch/trigger
$ echo local > trace_clock
