/*
 * The stack tracer. An ftrace op looks at the entry of every traced function (or of those
 * in stack_trace_filter) and measures how much of the current thread's stack is in use.
 * When that is more than ever seen, it records the chain of frames, each with its depth
 * (bytes from the slot holding its return address to the top of the stack), which
 * stack_trace prints in Linux's table. /proc/sys/kernel/stack_tracer_enabled switches it
 * on and off; stack_max_size shows the deepest use and resets it.
 */
#include <arch/cpu.h>
#include <arch/unwind.h>
#include <kernel/errno.h>
#include <kernel/ftrace.h>
#include <kernel/init.h>
#include <kernel/mm.h>
#include <kernel/percpu.h>
#include <kernel/printk.h>
#include <kernel/pseudofs.h>
#include <kernel/spinlock.h>
#include <kernel/thread.h>
#include <lib/ctype.h>
#include <lib/string.h>

#include "trace_internal.h"

/* A thread stack is 16 KiB and a frame at least 16 bytes: this covers any real chain. */
#define STACK_TRACE_MAX_ENTRIES 512

/*
 * The deepest stack seen: written by the callback with the lock taken by trylock (so a
 * callback never waits, whatever context it interrupted), read by the files with it held
 * and interrupts off. stack_max_size is also read without the lock, as the cheap check
 * that keeps almost every call from going further.
 */
static DEFINE_SPINLOCK(stack_max_lock);
static unsigned long stack_max_size;
static unsigned stack_nr_entries;
static struct stack_trace_entry stack_entries[STACK_TRACE_MAX_ENTRIES];

static void stack_trace_call(unsigned long ip, unsigned long parent_ip, struct ftrace_ops *op,
                             struct ftrace_regs *fregs);

/* Its hashes are stack_trace_filter's; registered while the tracer is enabled. */
static struct ftrace_ops stack_ops = {.func = stack_trace_call, .tramp_slot = -1};

/* The sysctl's value as written (Linux keeps any integer; non-zero means on). */
static int stack_tracer_enabled;
static DEFINE_SPINLOCK(stack_enable_lock);

/*
 * Records the frames from the traced function up. parent_slot holds the traced function's
 * return address; just below it the trampoline's call left the return into the traced
 * function (just after its call site, what Linux shows as `func+0x5`), and below that the
 * frame pointer the trampoline saved, still the caller's (arch_ftrace_caller_frame). From
 * there the walk follows the frame-pointer chain, each frame above the last and inside
 * the stack. Called with stack_max_lock held.
 */
static void stack_record(struct thread *t, unsigned long *parent_slot, uintptr_t top)
{
    unsigned long *slot = arch_ftrace_site_return_slot(parent_slot);
    unsigned n = 0;

    stack_entries[n++] = (struct stack_trace_entry){*slot, top - (uintptr_t)slot};
    stack_entries[n++] = (struct stack_trace_entry){
        unwind_real_return(t, *parent_slot, parent_slot), top - (uintptr_t)parent_slot};
    struct unwind_state st;
    unwind_start(&st, t, arch_ftrace_caller_frame(parent_slot), (uintptr_t)(parent_slot + 1), top);
    while (n < STACK_TRACE_MAX_ENTRIES && unwind_next(&st))
        stack_entries[n++] = (struct stack_trace_entry){st.ret, top - (uintptr_t)st.ret_slot};
    stack_nr_entries = n;
    stack_max_size = stack_entries[0].depth;
}

static void stack_trace_call(unsigned long ip, unsigned long parent_ip, struct ftrace_ops *op,
                             struct ftrace_regs *fregs)
{
    unsigned long *parent_slot = (unsigned long *)ftrace_regs_get_stack_pointer(fregs);
    struct percpu *cpu = this_cpu();
    struct thread *t = cpu->current;

    /* Idle threads run on the boot and AP stacks, which no thread owns: not measured. */
    if (!t || !t->stack_top || cpu->nmi_depth)
        return;
    uintptr_t top = (uintptr_t)t->stack_top;
    uintptr_t bottom = top - t->stack_pages * PAGE_SIZE;
    uintptr_t sp = (uintptr_t)arch_ftrace_site_return_slot(parent_slot);
    /* On an exception (IST) stack the depth would be that stack's, not the thread's. */
    if (sp < bottom || sp >= top)
        return;
    if (top - sp <= READ_ONCE(stack_max_size))
        return;

    unsigned long flags = arch_irq_save();
    if (spin_trylock(&stack_max_lock)) {
        /* Another CPU may have recorded a deeper stack since the check above. */
        if (top - sp > stack_max_size)
            stack_record(t, parent_slot, top);
        spin_unlock(&stack_max_lock);
    }
    arch_irq_restore(flags);
}

/* ---- the interface the rest of kernel/trace uses ---- */

int stack_tracer_set_enabled(int value)
{
    int err = 0;

    spin_lock(&stack_enable_lock);
    if ((value != 0) != (stack_tracer_enabled != 0)) {
        if (value)
            err = register_ftrace_function(&stack_ops);
        else
            err = unregister_ftrace_function(&stack_ops);
    }
    if (!err)
        stack_tracer_enabled = value;
    spin_unlock(&stack_enable_lock);
    return err;
}

int stack_tracer_get_enabled(void) { return READ_ONCE(stack_tracer_enabled); }

int stack_trace_set_filter(struct ftrace_hash *filter)
{
    return ftrace_ops_set_hashes(&stack_ops, filter, NULL);
}

struct ftrace_hash *stack_trace_filter_copy(void)
{
    return ftrace_hash_copy(READ_ONCE(stack_ops.filter_hash));
}

unsigned long stack_trace_max_size(void) { return READ_ONCE(stack_max_size); }

void stack_trace_set_max_size(unsigned long size)
{
    unsigned long flags = spin_lock_irqsave(&stack_max_lock);
    stack_max_size = size;
    spin_unlock_irqrestore(&stack_max_lock, flags);
}

unsigned stack_trace_snapshot(struct stack_trace_entry *out, unsigned max, unsigned long *max_size)
{
    unsigned long flags = spin_lock_irqsave(&stack_max_lock);
    unsigned n = MIN(stack_nr_entries, max);
    memcpy(out, stack_entries, n * sizeof(*out));
    if (max_size)
        *max_size = stack_max_size;
    spin_unlock_irqrestore(&stack_max_lock, flags);
    return n;
}

/* ---- stack_trace, stack_max_size ---- */

static const char stack_disabled_text[] =
    "#\n"
    "#  Stack tracer disabled\n"
    "#\n"
    "# To enable the stack tracer, either add 'stacktrace' to the\n"
    "# kernel command line\n"
    "# or 'echo 1 > /proc/sys/kernel/stack_tracer_enabled'\n"
    "#\n";

static int stack_trace_show(struct seqbuf *s, void *data)
{
    struct stack_trace_entry *copy = kmalloc(sizeof(stack_entries));
    unsigned long max;

    if (!copy)
        return -ENOMEM;
    unsigned n = stack_trace_snapshot(copy, STACK_TRACE_MAX_ENTRIES, &max);
    seq_printf(s,
               "        Depth    Size   Location    (%u entries)\n"
               "        -----    ----   --------\n",
               n);
    /* As Linux: the hint shows while the tracer is off and has nothing to show. */
    if (!stack_tracer_get_enabled() && !max)
        seq_puts(s, stack_disabled_text);
    for (unsigned i = 0; i < n; i++) {
        /* A frame's size is the distance to the next one; the outermost owns its depth. */
        unsigned long size = i + 1 < n ? copy[i].depth - copy[i + 1].depth : copy[i].depth;
        seq_printf(s, "%3u) %8lu   %5lu   %pS\n", i, copy[i].depth, size, (void *)copy[i].ip);
    }
    kfree(copy);
    return 0;
}

static int stack_max_size_show(struct seqbuf *s, void *data)
{
    return seq_printf(s, "%ld\n", (long)stack_trace_max_size());
}

static ssize_t stack_max_size_store(void *data, const char *buf, size_t len)
{
    unsigned long v;

    if (tracefs_parse_ulong(buf, len, &v) != 0)
        return -EINVAL;
    stack_trace_set_max_size(v);
    return (ssize_t)len;
}

TRACEFS_FILE(stack_trace, .path = "stack_trace", .mode = 0444, .show = stack_trace_show);
TRACEFS_FILE(stack_max_size, .path = "stack_max_size", .mode = 0644, .show = stack_max_size_show,
             .store = stack_max_size_store);

/* ---- /proc/sys/kernel/stack_tracer_enabled ---- */

int trace_parse_sysctl_int(const char *buf, size_t len, int *out)
{
    char tmp[32];
    char *end;
    size_t i = 0;
    bool neg = false;

    /* Read as Linux's proc_dointvec: blanks, an optional '-', a number in base 0, then a
     * blank or the end; what follows the first number is ignored. */
    while (i < len && isspace((unsigned char)buf[i]))
        i++;
    len -= i;
    buf += i;
    if (len == 0)
        return -EINVAL;
    if (len >= sizeof(tmp))
        len = sizeof(tmp) - 1;
    memcpy(tmp, buf, len);
    tmp[len] = '\0';
    char *p = tmp;
    if (*p == '-') {
        neg = true;
        p++;
    }
    if (!isdigit((unsigned char)*p))
        return -EINVAL;
    unsigned long v = strtoul(p, &end, 0);
    if (*end && !isspace((unsigned char)*end))
        return -EINVAL;
    if (v > (neg ? 2147483648UL : 2147483647UL))
        return -EINVAL;
    *out = neg ? (int)-(long)v : (int)v;
    return 0;
}

static int stack_enabled_show(struct seqbuf *s, void *data)
{
    return seq_printf(s, "%d\n", stack_tracer_get_enabled());
}

static ssize_t stack_enabled_store(void *data, const char *buf, size_t len)
{
    int v;
    int err = trace_parse_sysctl_int(buf, len, &v);

    if (!err)
        err = stack_tracer_set_enabled(v);
    return err ? err : (ssize_t)len;
}

static void stack_files_init(void)
{
    struct pfs_node *dir = pfs_mkdir("/proc/sys/kernel");

    if (!dir || !pfs_create_seq(dir, "stack_tracer_enabled", 0644, stack_enabled_show,
                                stack_enabled_store, NULL))
        printk("trace: cannot create /proc/sys/kernel/stack_tracer_enabled\n");
    if (!ftrace_filter_file_create("stack_trace_filter", &stack_ops, false, NULL))
        printk("tracefs: cannot create stack_trace_filter\n");
}
LATE_INITCALL(stack_files_init);
