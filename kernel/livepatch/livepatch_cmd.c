/*
 * `livepatch`: every patch with its state, and during a transition the threads that have
 * not switched yet (what /sys/kernel/livepatch cannot show).
 */
#include <kernel/errno.h>
#include <kernel/mm.h>
#include <kernel/percpu.h>
#include <kernel/shell.h>
#include <kernel/thread.h>
#include <kernel/time.h>
#include <lib/string.h>

#include "livepatch_internal.h"

#define KLP_CMD_MAX_PATCHES 32

/* `livepatch wait [SECONDS]`: drives any transition to its end (default 10 s), or Ctrl-C. */
static int livepatch_wait(struct shell_ctx *ctx, const char *arg)
{
    unsigned long secs = 10;
    if (arg && (kstrtoul(arg, 10, &secs) != 0 || secs == 0 || secs > 3600)) {
        shell_eprintf(ctx, "livepatch: invalid time '%s' (1..3600)\n", arg);
        return shell_usage(ctx);
    }
    int err = klp_wait_all(secs * NSEC_PER_SEC);
    if (err == -EINTR)
        return 130;
    if (err) {
        shell_eprintf(ctx, "livepatch: wait: %s\n", strerror(-err));
        return 1;
    }
    return 0;
}

SHELL_COMMAND(livepatch, "livepatch [wait [SECONDS]]",
              "list live patches (enabled, transition, forced) and the threads a transition "
              "waits for; wait: until no transition runs")
{
    if (argc >= 2 && strcmp(argv[1], "wait") == 0 && argc <= 3)
        return livepatch_wait(ctx, argc == 3 ? argv[2] : NULL);
    if (argc != 1)
        return shell_usage(ctx);
    struct {
        const char *name;
        bool enabled, transition, forced;
    } rows[KLP_CMD_MAX_PATCHES];
    size_t n = 0;
    spin_lock(&klp_lock);
    struct list_node *pos;
    list_for_each(pos, &klp_patches) {
        const struct klp_patch *p = list_entry(pos, struct klp_patch, node);
        if (!p->registered)
            continue; /* the self-tests' patches */
        if (n == KLP_CMD_MAX_PATCHES)
            break;
        rows[n].name = p->name;
        rows[n].enabled = p->enabled;
        rows[n].transition = klp_transition_patch == p;
        rows[n++].forced = p->forced;
    }
    spin_unlock(&klp_lock);
    for (size_t i = 0; i < n; i++)
        shell_printf(ctx, "%s enabled=%d transition=%d%s\n", rows[i].name, rows[i].enabled,
                     rows[i].transition, rows[i].forced ? " forced" : "");
    size_t max = thread_count() + MAX_CPUS + 16;
    struct klp_pending_thread *pend = kmalloc(max * sizeof(*pend));
    if (!pend) {
        shell_eprintf(ctx, "livepatch: %s\n", strerror(ENOMEM));
        return 1;
    }
    size_t np = klp_list_pending(pend, max);
    for (size_t i = 0; i < np; i++)
        shell_printf(ctx, "pending: %s-%d cpu %u%s\n", pend[i].name, pend[i].pid, pend[i].cpu,
                     pend[i].running ? " running" : "");
    kfree(pend);
    return 0;
}
