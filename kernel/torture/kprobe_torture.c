/*
 * `kprobe_torture SECONDS [SEED]`: makes, enables, disables and removes entry and return
 * probes (with fetch arguments that read registers, the stack and memory, good pointers
 * and bad) on the functions `work` runs, while `work` runs on every CPU, and meanwhile
 * enables and disables the live patch livepatch_work, whose function work_count_bits is
 * among the probed ones (a kprobe and a live patch on one site). Each action must give
 * the errno the rules say (EBUSY for an enabled probe's removal or a patch change during
 * a transition, nothing else failing); at the end every probe is gone, every probed site
 * is a NOP again (the patch back as it was), the load's books balance, probes fired, and
 * the heap holds what it held before.
 *
 * A fifth of the probes made are fprobe events (an entry with $argN, or an exit with
 * $retval), a fifth event probes on the scheduler's and interrupts' events, which every CPU
 * writes all the while: enabling and disabling one hangs a trigger on a live event and takes
 * it off again, in and out of soft mode; a fifth tracepoint probes on the same events'
 * tracepoints, attached and detached while the tracepoints fire.
 *
 * Half the entry kprobes go to a random offset inside their function instead of its entry:
 * an int3 on whatever instruction is there (its copy runs out of line, or it is
 * emulated). An offset inside an instruction must be refused with EILSEQ, one on an
 * instruction no probe can run (an indirect branch, cli) with EINVAL; any other must work.
 */
#include <arch/cpu.h>
#include <arch/kprobes.h>
#include <kernel/errno.h>
#include <kernel/ftrace.h>
#include <kernel/livepatch.h>
#include <kernel/mm.h>
#include <kernel/shell.h>
#include <kernel/symbols.h>
#include <kernel/time.h>
#include <kernel/work.h>
#include <lib/printf.h>
#include <lib/string.h>

#include "dynamic_events.h"
#include "events/event_core.h"
#include "probes/trace_kprobe.h"
#include "trace_internal.h"

#define TORTURE_PROBES 12
#define TORTURE_MAX_SECONDS 3600

static const char *const torture_funcs[] = {
    "work_rotate_mix", "krealloc", "work_compute", "work_heap_churn", "work_table_op",
    "kmalloc",         "kfree",    "kzalloc",      "work_count_bits", /* what livepatch_work
                                                                         replaces */
};

/* Entry arguments: registers, $argN, the stack, memory through a register (maybe bad). */
static const char *const torture_args[] = {
    "a=%di b=%si",
    "x=$arg1:u32 y=$arg2:s64 s=$stack0",
    "m=+0(%di):x64 c=$comm",
    "str=+0(%si):string n=+8(%di):u16",
    "deep=+0(+0(%di)):x32 sym=+0($stack):symbol",
    "",
};

/* Event probes: an event every CPU writes under `work`, and arguments its fields give. */
static const char *const torture_eprobes[] = {
    "sched.sched_switch p=$prev_pid:s32 n=$next_comm:string c=+0($prev_comm):x32",
    "sched/sched_waking pid=$pid c=$comm:string if prio < 200",
    "sched.sched_wakeup",
    "irq/irq_handler_entry irq=$irq:s32 name=$name:string",
};

/* Tracepoint probes: the same events' tracepoints, and what their C arguments point at. */
static const char *const torture_tprobes[] = {
    "sched_switch p=+8($arg1):s32 n=+12($arg2):string a=$arg2",
    "sched_waking pid=+8($arg1):s32 c=$comm",
    "sched_wakeup",
    "irq_handler_entry irq=$arg1:s32 name=+0($arg2):string",
};

struct torture_probe {
    bool made, on, is_return;
    char kind; /* 'p', 'f', 'e' or 't' */
    char name[16];
};

static uint64_t torture_rand(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

SHELL_COMMAND(kprobe_torture, "kprobe_torture SECONDS [SEED]",
              "make, enable, disable and remove kprobes while `work` runs on every CPU")
{
    unsigned long seconds, seed = 0;
    if (argc < 2 || argc > 3 || kstrtoul(argv[1], 10, &seconds) || seconds == 0 ||
        seconds > TORTURE_MAX_SECONDS || (argc == 3 && (kstrtoul(argv[2], 0, &seed) || !seed)))
        return shell_usage(ctx);
    if (!seed)
        seed = (unsigned long)(arch_cycles() | 1);
    uint64_t rng = seed;
    struct torture_probe probes[TORTURE_PROBES] = {0};
    uint64_t makes = 0, enables = 0, disables = 0, removes = 0, busy = 0, hits = 0, misses = 0;
    uint64_t patch_flips = 0, patch_busy = 0, at_offset = 0, off_boundary = 0, unprobeable = 0;
    struct klp_patch *patch = klp_find_patch("livepatch_work");
    bool patch_was_on = patch && patch->enabled;
    struct mm_stats before, after;
    mm_get_stats(&before);

    struct work_run *load = work_start(seconds * 2000, 1);
    if (!load || work_failed_thread(load)) {
        shell_eprintf(ctx, "kprobe_torture: cannot start the load\n");
        if (load)
            work_finish(load, &(struct work_summary){0});
        return 1;
    }
    const char *failed = NULL;
    int failed_err = 0;
    char line[192];
    uint64_t deadline = clock_ns() + seconds * NSEC_PER_SEC;
    while (!failed && clock_ns() < deadline && !shell_interrupted()) {
        int err;
        if (patch && torture_rand(&rng) % 8 == 0) {
            err = patch->enabled ? klp_disable_patch(patch) : klp_enable_patch(patch);
            if (err == -EBUSY) {
                patch_busy++; /* a transition still runs */
            } else if (err) {
                failed = "live patch change";
                failed_err = err;
            } else {
                patch_flips++;
            }
            continue;
        }
        unsigned i = (unsigned)(torture_rand(&rng) % TORTURE_PROBES);
        struct torture_probe *p = &probes[i];
        if (!p->made) {
            p->is_return = torture_rand(&rng) % 3 == 0;
            snprintf(p->name, sizeof(p->name), "kt%u", i);
            unsigned kind = (unsigned)(torture_rand(&rng) % 5);
            p->kind = kind == 0 ? 'f' : kind == 1 ? 'e' : kind == 2 ? 't' : 'p';
            if (p->kind != 'p') {
                const char *fn = torture_funcs[torture_rand(&rng) % ARRAY_SIZE(torture_funcs)];
                if (p->kind == 'e')
                    snprintf(line, sizeof(line), "e:torture/%s %s", p->name,
                             torture_eprobes[torture_rand(&rng) % ARRAY_SIZE(torture_eprobes)]);
                else if (p->kind == 't')
                    snprintf(line, sizeof(line), "t:torture/%s %s", p->name,
                             torture_tprobes[torture_rand(&rng) % ARRAY_SIZE(torture_tprobes)]);
                else
                    snprintf(line, sizeof(line), "f:torture/%s %s%s", p->name, fn,
                             p->is_return ? "%return r=$retval" : " a=$arg1 b=$arg2:u32 c=$comm");
                err = dynamic_events_command(line);
                if (err) {
                    failed = p->kind == 'e'   ? "make an event probe"
                             : p->kind == 't' ? "make a tracepoint probe"
                                              : "make an fprobe";
                    failed_err = err;
                    break;
                }
                p->made = true;
                makes++;
                continue;
            }
            const char *fn = torture_funcs[torture_rand(&rng) % ARRAY_SIZE(torture_funcs)];
            const char *args = p->is_return
                                   ? "r=$retval sp=%sp"
                                   : torture_args[torture_rand(&rng) % ARRAY_SIZE(torture_args)];
            char place[96];
            uintptr_t start = sym_address(fn);
            size_t size = 0;
            sym_lookup(start, &start, &size);
            unsigned long off = 0;
            if (!p->is_return && size > 1 && torture_rand(&rng) % 2)
                off = 1 + torture_rand(&rng) % (size - 1);
            snprintf(place, sizeof(place), off ? "%s+%lu" : "%s", fn, off);
            if (off && strstr(args, "$arg"))
                args = "a=%di b=%si sp=%sp"; /* $argN is for function entries only */
            snprintf(line, sizeof(line), "%c%s:torture/%s %s %s", p->is_return ? 'r' : 'p',
                     p->is_return && torture_rand(&rng) % 2 ? "2" : "", p->name, place, args);
            err = kprobe_command(line);
            if (off && !arch_kprobe_insn_boundary(start + off)) {
                if (err != -EILSEQ) {
                    failed = "an offset inside an instruction (want EILSEQ)";
                    failed_err = err;
                    break;
                }
                off_boundary++;
                continue;
            }
            if (off && err == -EINVAL) {
                unprobeable++;
                continue;
            }
            if (err) {
                failed = "make";
                failed_err = err;
                break;
            }
            at_offset += off != 0;
            p->made = true;
            makes++;
            continue;
        }
        const struct trace_event_call *call = trace_event_find("torture", p->name);
        if (!call) {
            failed = "find";
            break;
        }
        switch (torture_rand(&rng) % 4) {
        case 0:
        case 1:
            err = trace_event_enable(call, !p->on);
            if (err) {
                failed = p->on ? "disable" : "enable";
                failed_err = err;
                break;
            }
            p->on = !p->on;
            if (p->on)
                enables++;
            else
                disables++;
            break;
        default:
            hits += kprobe_hits("torture", p->name, &misses);
            snprintf(line, sizeof(line), "-:torture/%s", p->name);
            err = dynamic_events_command(line);
            if (p->on && err == -EBUSY) {
                busy++;
            } else if (!p->on && err == 0) {
                p->made = false;
                removes++;
            } else {
                failed = p->on ? "remove while enabled (want EBUSY)" : "remove";
                failed_err = err;
            }
            break;
        }
    }
    /* Everything off and away, whatever happened. */
    for (unsigned i = 0; i < TORTURE_PROBES; i++) {
        struct torture_probe *p = &probes[i];
        if (!p->made)
            continue;
        const struct trace_event_call *call = trace_event_find("torture", p->name);
        if (call && p->on)
            trace_event_enable(call, false);
        hits += kprobe_hits("torture", p->name, &misses);
        snprintf(line, sizeof(line), "-:torture/%s", p->name);
        int err = dynamic_events_command(line);
        if (err && !failed) {
            failed = "final remove";
            failed_err = err;
        }
    }
    /* The patch as it was before the run. */
    if (patch) {
        int err = klp_wait_transition(patch, 10 * NSEC_PER_SEC);
        if (!err && patch->enabled != patch_was_on) {
            err = patch_was_on ? klp_enable_patch(patch) : klp_disable_patch(patch);
            if (!err)
                err = klp_wait_transition(patch, 10 * NSEC_PER_SEC);
        }
        if (err && !failed) {
            failed = "putting the live patch back";
            failed_err = err;
        }
    }
    struct work_summary sum;
    work_finish(load, &sum);

    unsigned still_on = 0;
    for (size_t i = 0; i < ARRAY_SIZE(torture_funcs); i++) {
        /* A patched function's site calls its patch's op, not the probes'. */
        if (patch_was_on && strcmp(torture_funcs[i], "work_count_bits") == 0)
            continue;
        struct dyn_ftrace *rec = ftrace_rec_lookup(sym_address(torture_funcs[i]));
        if (rec && (rec->flags & (FTRACE_FL_ENABLED | FTRACE_FL_REGS)))
            still_on++;
    }
    mm_get_stats(&after);
    shell_printf(ctx,
                 "kprobe_torture: %lu s on %u CPUs, seed 0x%lx: %llu makes, %llu enables, "
                 "%llu disables, %llu removes, %llu refused as busy, %llu hits, %llu missed, "
                 "%llu live patch changes (%llu refused during a transition), %llu made at "
                 "an offset, %llu refused off an instruction boundary, %llu on unprobeable "
                 "instructions\n",
                 seconds, sum.cpus, seed, (unsigned long long)makes, (unsigned long long)enables,
                 (unsigned long long)disables, (unsigned long long)removes,
                 (unsigned long long)busy, (unsigned long long)hits, (unsigned long long)misses,
                 (unsigned long long)patch_flips, (unsigned long long)patch_busy,
                 (unsigned long long)at_offset, (unsigned long long)off_boundary,
                 (unsigned long long)unprobeable);
    if (!failed && !sum.books_ok)
        failed = "the load's books do not balance";
    if (!failed && still_on)
        failed = "a probed site still calls the tracer";
    if (!failed && trace_event_find("torture", "kt0"))
        failed = "a probe outlived the run";
    if (!failed && hits == 0)
        failed = "no probe fired";
    /* The first run may keep what lasts for the boot (the group's name, the shared op's
     * filter hash): a few hundred bytes. A leak per probe made would pass this soon. */
    if (!failed && after.heap_bytes_in_use > before.heap_bytes_in_use + 4096)
        failed = "the heap grew";
    if (failed) {
        shell_printf(ctx, "kprobe_torture: FAILED: %s (%d); heap %llu -> %llu bytes\n", failed,
                     failed_err, (unsigned long long)before.heap_bytes_in_use,
                     (unsigned long long)after.heap_bytes_in_use);
        return 1;
    }
    shell_printf(ctx, "kprobe_torture: ok\n");
    return 0;
}
