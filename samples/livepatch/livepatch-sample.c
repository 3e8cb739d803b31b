/*
 * livepatch_sample: replaces the function behind /proc/cmdline, so that while the patch
 * is enabled `cat /proc/cmdline` prints "this has been live patched".
 *
 *     echo 1 > /sys/kernel/livepatch/livepatch_sample/enabled
 */
#include <kernel/init.h>
#include <kernel/livepatch.h>
#include <kernel/printk.h>
#include <kernel/pseudofs.h>

/* The new version of show_cmdline (kernel/procfs.c): the same prototype. */
static int livepatch_show_cmdline(struct seqbuf *s, void *data)
{
    return seq_printf(s, "%s\n", "this has been live patched");
}

static struct klp_func funcs[] = {
    {.old_name = "show_cmdline", .new_func = livepatch_show_cmdline},
    {},
};

static struct klp_object objs[] = {
    {.name = NULL, .funcs = funcs}, /* NULL: vmlinux */
    {},
};

static struct klp_patch patch = {
    .name = "livepatch_sample",
    .objs = objs,
};

static void livepatch_sample_init(void)
{
    int err = klp_register_patch(&patch);
    if (err)
        printk("livepatch_sample: cannot register: %d\n", err);
}
LATE_INITCALL(livepatch_sample_init);
