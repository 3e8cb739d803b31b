/*
 * `chrt`: a thread's scheduling policy and real-time priority, with util-linux chrt's
 * options, output and messages for what fentros has (SCHED_OTHER, SCHED_FIFO, SCHED_RR;
 * kernel/sched/sched.c says what they do). Threads are named by pid (`-p`); pid 0 is the
 * shell itself, as it is the caller on Linux.
 */
#include <kernel/errno.h>
#include <kernel/sched.h>
#include <kernel/shell.h>
#include <kernel/thread.h>
#include <lib/string.h>

static const char *chrt_policy_name(int policy)
{
    switch (policy) {
    case SCHED_FIFO:
        return "SCHED_FIFO";
    case SCHED_RR:
        return "SCHED_RR";
    default:
        return "SCHED_OTHER";
    }
}

static int chrt_bad_usage(struct shell_ctx *ctx)
{
    shell_eprintf(ctx, "chrt: bad usage\nTry 'chrt --help' for more information.\n");
    return 1;
}

static bool chrt_parse_pid(const char *arg, int *pid)
{
    long v;
    if (kstrtol(arg, 10, &v) != 0 || v < 0 || v > 0x7fffffff)
        return false;
    *pid = v ? (int)v : current_thread()->pid;
    return true;
}

static int chrt_show(struct shell_ctx *ctx, const char *arg)
{
    int pid, policy, prio;
    if (!chrt_parse_pid(arg, &pid)) {
        shell_eprintf(ctx, "chrt: invalid PID argument: '%s'\n", arg);
        return 1;
    }
    int err = sched_getscheduler_pid(pid, &policy, &prio);
    if (err) {
        shell_eprintf(ctx, "chrt: failed to get pid %d's policy: %s\n", pid, strerror(-err));
        return 1;
    }
    shell_printf(ctx, "pid %d's current scheduling policy: %s\n", pid, chrt_policy_name(policy));
    shell_printf(ctx, "pid %d's current scheduling priority: %d\n", pid, prio);
    return 0;
}

static int chrt_set(struct shell_ctx *ctx, int policy, const char *prio_arg, const char *pid_arg)
{
    long prio;
    int pid;
    if (kstrtol(prio_arg, 10, &prio) != 0) {
        shell_eprintf(ctx, "chrt: invalid priority argument: '%s'\n", prio_arg);
        return 1;
    }
    long min = policy == SCHED_NORMAL ? 0 : SCHED_RT_PRIO_MIN;
    long max = policy == SCHED_NORMAL ? 0 : SCHED_RT_PRIO_MAX;
    if (prio < min || prio > max) {
        shell_eprintf(ctx,
                      "chrt: unsupported priority value for the policy: %ld: see --max for "
                      "valid range\n",
                      prio);
        return 1;
    }
    if (!chrt_parse_pid(pid_arg, &pid)) {
        shell_eprintf(ctx, "chrt: invalid PID argument: '%s'\n", pid_arg);
        return 1;
    }
    int err = sched_setscheduler_pid(pid, policy, (int)prio);
    if (err) {
        shell_eprintf(ctx, "chrt: failed to set pid %d's policy: %s\n", pid, strerror(-err));
        return 1;
    }
    return 0;
}

SHELL_COMMAND(chrt, "chrt [-f|-r|-o] -p [PRIORITY] PID | chrt -m",
              "show or set a thread's scheduling policy (-f fifo, -r round robin, the default, "
              "-o normal) and real-time priority (1..99)")
{
    int policy = SCHED_RR; /* util-linux's default */
    bool by_pid = false, max = false;
    int i = 1;
    for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
        const char *o = argv[i];
        if (!strcmp(o, "-f") || !strcmp(o, "--fifo"))
            policy = SCHED_FIFO;
        else if (!strcmp(o, "-r") || !strcmp(o, "--rr"))
            policy = SCHED_RR;
        else if (!strcmp(o, "-o") || !strcmp(o, "--other"))
            policy = SCHED_NORMAL;
        else if (!strcmp(o, "-p") || !strcmp(o, "--pid"))
            by_pid = true;
        else if (!strcmp(o, "-m") || !strcmp(o, "--max"))
            max = true;
        else
            return chrt_bad_usage(ctx);
    }
    int left = argc - i;
    if (max) {
        shell_printf(ctx, "SCHED_OTHER min/max priority\t: 0/0\n");
        shell_printf(ctx, "SCHED_FIFO min/max priority\t: %d/%d\n", SCHED_RT_PRIO_MIN,
                     SCHED_RT_PRIO_MAX);
        shell_printf(ctx, "SCHED_RR min/max priority\t: %d/%d\n", SCHED_RT_PRIO_MIN,
                     SCHED_RT_PRIO_MAX);
        return 0;
    }
    if (!by_pid) {
        /* util-linux runs a command here; the shell has no processes to start. */
        if (left < 2)
            return chrt_bad_usage(ctx);
        shell_eprintf(ctx, "chrt: running a command is not supported: use chrt -p\n");
        return 1;
    }
    if (left == 1)
        return chrt_show(ctx, argv[i]);
    if (left == 2)
        return chrt_set(ctx, policy, argv[i], argv[i + 1]);
    return chrt_bad_usage(ctx);
}
