#ifndef KERNEL_FTRACE_TEST_H
#define KERNEL_FTRACE_TEST_H

#include <kernel/compiler.h>

/*
 * The tracer's test header: what the self-tests, the torture and checker commands and the
 * benchmarks use beyond <kernel/ftrace.h>. Only test code includes it, and the files that
 * define what it declares.
 */

/*
 * Traced functions that exist to be traced: self-tests, the torture test and the
 * benchmarks attach ops to them and count. Built with -pg like any kernel code.
 */
unsigned long ftrace_test_target(unsigned long a, unsigned long b, unsigned long c);
unsigned long ftrace_test_target_hot(unsigned long a);
unsigned long ftrace_test_target_other(unsigned long a);
unsigned long ftrace_replacement_hot(unsigned long a); /* returns a + 100 */
int ftrace_errno_target(unsigned long a);              /* returns -EINVAL */
/* kprobe fetch arguments' target: a string, a struct (kernel/fixtures/ftrace_test_targets.c),
 * a number. */
struct ftrace_probe_item;
long ftrace_probe_target(const char *name, const struct ftrace_probe_item *item, long n);
/* Called by `ftrace_test_strings LEN...` with its first string and the array of all. */
long ftrace_strings_target(const char *first, const char *const *all, unsigned long n);
/* a calls b calls c calls ftrace_test_target_hot: a known call tree. */
unsigned long ftrace_test_chain_a(unsigned long a);
unsigned long ftrace_test_chain_b(unsigned long a);
unsigned long ftrace_test_chain_c(unsigned long a);
/* An empty traced function and its twin built without -pg (bench nop). */
void ftrace_test_empty(void);
/* Emits sched_switch from the current thread to itself (one event write, for icount). */
void ftrace_test_sched_switch(void);
void ftrace_test_empty_untraced(void);
/* Damages its own function_graph frame (when traced) and returns whether it could. */
unsigned long fgraph_mismatch_victim(void);
/*
 * What a return probe reads (the register fixture, <arch/regs_fixture.h>): the fixture
 * returns with register ftrace_test_reg_names[i] holding ftrace_test_reg_value(i) (%bp
 * one no frame walk follows) and the status flags FTRACE_TEST_REG_FLAGS. ftrace_test_regs_want
 * fills a pt_regs so; ftrace_test_regs_call calls the fixture with it (`ftrace_test_call
 * regs N`), on its ftrace site or, with int3, the one without a site.
 */
#define FTRACE_TEST_REGS 15
#define FTRACE_TEST_REG_FLAGS 0x845UL
extern const char *const ftrace_test_reg_names[FTRACE_TEST_REGS];
static inline unsigned long ftrace_test_reg_value(unsigned i)
{
    return 0x0101010101010101UL * (i + 1);
}
struct pt_regs;
void ftrace_test_regs_want(struct pt_regs *want);
void ftrace_test_regs_call(bool int3);
/* kernel/fixtures/stack_depth_test.c: recurses `levels` deep, for the stack tracer's tests. */
unsigned long stack_depth_test_recurse(unsigned levels);

/*
 * Test seams: hooks and queries the self-tests, the torture commands and the benchmarks
 * use to reach inside the tracer and the patching code. Nothing else calls them.
 */

/* Called between the steps of every text patch batch while set (the arch's text patching,
 * <arch/text_patch.h>). */
extern void (*arch_text_poke_test_hook)(void);
/* Overwrites the current thread's top function_graph frame if it belongs to fn. */
bool fgraph_test_damage_top_frame(unsigned long fn);
/* function_graph's max_graph_depth and tracing_thresh, set directly. */
void graph_test_set_limits(unsigned long max_depth, uint64_t thresh_ns);
/* The profiler's hit count (and total time in *time) for the function at ip. */
uint64_t profile_test_hits(unsigned long ip, uint64_t *time);
/* The count left on func's probe of a counted filter command (traceon, ...), as stored
 * (-1 when `func:cmd:` gave none), or -ENOENT when there is no such probe. */
long ftrace_probe_count(const char *cmd, const char *func);

/*
 * Helpers the tracer's self-tests share (kernel/trace/ftrace_filter_selftests.c and
 * ftrace_files_selftests.c).
 */
struct selftest_ctx;
/* The record index of fn, or (size_t)-1. */
size_t ftrace_test_index_of(void *fn);
/* Records available_filter_functions lists (the ones not disabled). */
size_t ftrace_test_visible_records(void);
/* Record index of line `line` (1-based) of available_filter_functions. */
size_t ftrace_test_record_of_line(size_t line);
/* Checks that a read of the whole tracefs file gives exactly expected (a failure if not). */
bool ftrace_test_file_is(struct selftest_ctx *t, const char *name, const char *expected);

/* int3 kprobe targets (kernel/fixtures/kprobe_int3_targets.c). */
extern volatile long kprobe_int3_value;
long kprobe_int3_riprel(long n);
long kprobe_int3_helper(long n);
long kprobe_int3_call(long n);
long kprobe_int3_jcc(long n);
long kprobe_int3_notrace(long n);

#endif
