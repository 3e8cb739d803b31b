# The dynamic ftrace files of tracefs, as a shell user sees them: what is listed, how
# set_ftrace_filter and set_ftrace_notrace take globs, removals and indices, and the errors,
# checked against what Linux 6.1 prints for the same commands (its filter listings follow
# hash order; ours follow address order, as available_filter_functions does).

$ cd /sys/kernel/tracing

# Every traced function is listed; untraced code is not.
$ grep -c '^ftrace_test_target$' available_filter_functions
1
$ grep -c '^kmalloc$' available_filter_functions
1
$ grep -c '^ftrace_test_empty_untraced$' available_filter_functions
0
$ cat dyn_ftrace_total_info
~ [1-9][0-9]* pages:[1-9][0-9]* groups: [1-9][0-9]*

# Nothing is registered: no site calls out.
$ cat enabled_functions
$ cat set_ftrace_filter
#### all functions enabled ####
$ cat set_ftrace_notrace
#### no functions disabled ####

# `>` replaces the filter, `>>` adds to it; several words in one write.
$ echo kfree > set_ftrace_filter
$ echo $?
0
$ cat set_ftrace_filter
kfree
$ echo kmalloc >> set_ftrace_filter
$ cat set_ftrace_filter
kmalloc
kfree
$ echo kzalloc > set_ftrace_filter
$ cat set_ftrace_filter
kzalloc
$ echo kmalloc ftrace_test_target > set_ftrace_filter
$ cat set_ftrace_filter
ftrace_test_target
kmalloc

# Globs: prefix, suffix, middle, ? and [].
$ echo 'ftrace_test_target*' > set_ftrace_filter
$ cat set_ftrace_filter
ftrace_test_target
ftrace_test_target_hot
ftrace_test_target_other
$ echo '*_target_other' > set_ftrace_filter
$ cat set_ftrace_filter
ftrace_test_target_other
$ echo 'ftrace_test_*_hot' > set_ftrace_filter
$ cat set_ftrace_filter
ftrace_test_target_hot
$ echo 'k?alloc' > set_ftrace_filter
$ cat set_ftrace_filter
kmalloc
kzalloc
$ echo 'k[mz]alloc' > set_ftrace_filter
$ cat set_ftrace_filter
kmalloc
kzalloc

# `!` removes what it matches; a removal that matches nothing fails and changes nothing.
$ echo 'ftrace_test_target*' > set_ftrace_filter
$ echo '!ftrace_test_target_hot' >> set_ftrace_filter
$ echo $?
0
$ cat set_ftrace_filter
ftrace_test_target
ftrace_test_target_other
$ echo '!nosuch' >> set_ftrace_filter
echo: write error: Invalid argument
$ echo $?
1
$ cat set_ftrace_filter
ftrace_test_target
ftrace_test_target_other
$ echo '!kmalloc' > set_ftrace_filter
$ echo $?
0
$ cat set_ftrace_filter
#### all functions enabled ####

# A number is a line of available_filter_functions: writing that line's name as well
# must add nothing new.
$ echo 1 > set_ftrace_filter
$ echo $?
0
$ head -n 1 available_filter_functions >> set_ftrace_filter
$ cat set_ftrace_filter | wc -l
1
$ echo 1 3 > set_ftrace_filter
$ head -n 3 available_filter_functions | tail -n 1 >> set_ftrace_filter
$ head -n 1 available_filter_functions >> set_ftrace_filter
$ cat set_ftrace_filter | wc -l
2
$ echo 2 >> set_ftrace_filter
$ cat set_ftrace_filter | wc -l
3
$ echo 0 > set_ftrace_filter
echo: write error: Invalid argument
$ echo $?
1
$ echo 1000000 > set_ftrace_filter
echo: write error: Invalid argument

# A word that matches nothing fails the write, yet the file commits at close as Linux's
# does: after `>` that is an empty filter, after `>>` the old one; words before the bad
# one count, words after it are never written.
$ echo nosuch > set_ftrace_filter
echo: write error: Invalid argument
$ echo $?
1
$ cat set_ftrace_filter
#### all functions enabled ####
$ echo kfree > set_ftrace_filter; echo nosuch >> set_ftrace_filter
echo: write error: Invalid argument
$ echo $?
1
$ cat set_ftrace_filter
kfree
$ echo 'kmalloc nosuch kzalloc' > set_ftrace_filter
echo: write error: Invalid argument
$ cat set_ftrace_filter
kmalloc

# Writing nothing, or only blanks, empties the filter.
$ echo > set_ftrace_filter
$ echo $?
0
$ cat set_ftrace_filter
#### all functions enabled ####
$ echo kfree > set_ftrace_filter
$ echo "   " > set_ftrace_filter
$ echo $?
0
$ cat set_ftrace_filter
#### all functions enabled ####

# set_ftrace_notrace: the same syntax, its own empty text, and no commands.
$ echo kfree > set_ftrace_notrace
$ cat set_ftrace_notrace
kfree
$ echo kmalloc >> set_ftrace_notrace
$ cat set_ftrace_notrace
kmalloc
kfree
$ cat set_ftrace_filter
#### all functions enabled ####
$ echo nosuch > set_ftrace_notrace
echo: write error: Invalid argument
$ echo $?
1
$ cat set_ftrace_notrace
#### no functions disabled ####
$ echo 'kfree:traceoff' > set_ftrace_notrace
echo: write error: Invalid argument
$ echo $?
1
$ cat set_ftrace_notrace
#### no functions disabled ####

# Filters alone enable nothing: no tracer is on.
$ echo 'k*' > set_ftrace_filter
$ cat enabled_functions | wc -l
0
$ echo > set_ftrace_filter
$ echo > set_ftrace_notrace
$ cat set_ftrace_filter
#### all functions enabled ####
$ cat set_ftrace_notrace
#### no functions disabled ####
