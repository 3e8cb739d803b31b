#ifndef KERNEL_FTRACE_TEST_H
#define KERNEL_FTRACE_TEST_H

#include <kernel/compiler.h>

/*
 * Traced functions that exist to be traced: self-tests, the torture test and the
 * benchmarks attach ops to them and count. Built with -pg like any kernel code.
 */
unsigned long ftrace_test_target(unsigned long a, unsigned long b, unsigned long c);
unsigned long ftrace_test_target_hot(unsigned long a);
unsigned long ftrace_test_target_other(unsigned long a);
/* a calls b calls c calls ftrace_test_target_hot: a known call tree. */
unsigned long ftrace_test_chain_a(unsigned long a);
unsigned long ftrace_test_chain_b(unsigned long a);
unsigned long ftrace_test_chain_c(unsigned long a);
/* An empty traced function and its twin built without -pg (bench nop). */
void ftrace_test_empty(void);
void ftrace_test_empty_untraced(void);

#endif
