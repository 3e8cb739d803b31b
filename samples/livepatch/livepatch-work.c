/*
 * livepatch_work: fixes work_count_bits (kernel/workload/work.c), which misses bit 63, while the
 * `work` load runs on every CPU. Unpatched, every check of the load fails ("N of N bit
 * counts wrong"); once the transition completes none does.
 *
 *     echo 1 > /sys/kernel/livepatch/livepatch_work/enabled
 */
#include <kernel/init.h>
#include <kernel/livepatch.h>
#include <kernel/printk.h>

static unsigned livepatch_work_count_bits(uint64_t v)
{
    unsigned n = 0;
    for (unsigned i = 0; i < 64; i++)
        n += (unsigned)(v >> i) & 1;
    return n;
}

static struct klp_func funcs[] = {
    {.old_name = "work_count_bits", .new_func = livepatch_work_count_bits},
    {},
};

static struct klp_object objs[] = {
    {.name = NULL, .funcs = funcs},
    {},
};

static struct klp_patch patch = {
    .name = "livepatch_work",
    .objs = objs,
};

static void livepatch_work_init(void)
{
    int err = klp_register_patch(&patch);
    if (err)
        printk("livepatch_work: cannot register: %d\n", err);
}
LATE_INITCALL(livepatch_work_init);
