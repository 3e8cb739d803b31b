/*
 * instances/: trace arrays that users make with `mkdir instances/NAME` and remove with
 * `rmdir`, as Linux's. Each has its own per-CPU buffer, recording switch, clock, CPU mask,
 * snapshot, tracer (nop or function: the tracers that allow_instances) and event enables,
 * behind the same files as the top level (TRACEFS_FILE's .instance, per_cpu/, events/).
 *
 * The top level stays what it was: its hot paths never look at an instance. An instance's
 * function tracer is an ftrace op of its own; its events are copies the event write path
 * makes out of line (events/event_instances.c). Creation and removal run under the tracefs
 * control mutex (pfs_user_mkdir, pfs_user_rmdir), so they never race each other or a file.
 */
#include <kernel/errno.h>
#include <kernel/init.h>
#include <kernel/mm.h>
#include <kernel/printk.h>
#include <kernel/synchronize.h>
#include <kernel/tracefs.h>
#include <lib/printf.h>
#include <lib/string.h>

#include "events/event_core.h"
#include "events/event_trigger.h"
#include "trace_internal.h"

struct trace_array *volatile trace_instances[TRACE_INSTANCES_MAX];
struct sync_readers trace_instance_writers = SYNC_READERS_INIT;

/* Frees what instance_mkdir made; its files are gone and no writer can reach it. */
static void instance_free(struct trace_array *tr)
{
    if (tr->snapshot)
        trace_snapshot_write(tr, -1, 0);
    trace_error_log_clear(tr);
    if (tr->buffer)
        rb_destroy(tr->buffer);
    if (tr->function_ops) {
        ftrace_hash_free(tr->function_ops->filter_hash);
        ftrace_hash_free(tr->function_ops->notrace_hash);
        kfree(tr->function_ops);
    }
    kfree((void *)tr->name);
    kfree(tr);
}

static struct pfs_node *instances_dir;

/* A buffer on a fixed range keeps its pages: an instance on one has no snapshot files. */
static void remove_snapshot_files(struct trace_array *tr)
{
    char path[40];
    struct pfs_node *n;
    for (int c = -1; c < (int)rb_ncpus(tr->buffer); c++) {
        for (int raw = 0; raw < 2; raw++) {
            if (c < 0 && raw)
                continue;
            if (c < 0)
                snprintf(path, sizeof(path), "snapshot");
            else
                snprintf(path, sizeof(path), "per_cpu/cpu%d/snapshot%s", c, raw ? "_raw" : "");
            if (pfs_lookup_at(tr->dir, path, &n) == 0)
                pfs_remove(n);
        }
    }
}

int trace_instance_create(const char *name, struct ring_buffer *buffer, struct trace_array **out)
{
    unsigned slot = 0;
    while (slot < TRACE_INSTANCES_MAX && trace_instances[slot])
        slot++;
    struct pfs_node *existing;
    int err = !instances_dir                                       ? -ENOENT
              : pfs_lookup_at(instances_dir, name, &existing) == 0 ? -EEXIST
              : slot == TRACE_INSTANCES_MAX                        ? -ENOSPC
                                                                   : 0;
    if (err) {
        rb_destroy(buffer);
        return err;
    }
    struct trace_array *tr = kzalloc(sizeof(*tr));
    if (!tr) {
        rb_destroy(buffer);
        return -ENOMEM;
    }
    tr->instance_slot = slot;
    tr->name = kstrdup(name);
    tr->function_ops = kzalloc(sizeof(*tr->function_ops));
    err = -ENOMEM;
    if (buffer)
        trace_array_init_on(tr, buffer);
    if (!tr->name || !tr->function_ops ||
        (!buffer && trace_array_init(tr, TRACE_DEFAULT_KB * 1024))) {
        instance_free(tr);
        return -ENOMEM;
    }
    tr->dir = tracefs_create_dir(name, instances_dir);
    if (tr->dir)
        err = tracefs_create_array_files(tr, tr->dir);
    if (!err && !ftrace_filter_files_create_in(tr->dir, tr->function_ops, tr))
        err = -ENOMEM;
    if (!err)
        err = trace_event_instance_files_create(tr, tr->dir);
    if (!err && rb_is_in_range(tr->buffer))
        remove_snapshot_files(tr);
    if (err) {
        /* Nothing can have opened its files yet (the control mutex is held): a removal
         * that failed all the same keeps the array its files point at, leaked. */
        if (!tr->dir || pfs_remove_tree(tr->dir) == 0)
            instance_free(tr);
        return err;
    }
    /* Fully made before the event write path can find it. */
    __atomic_store_n(&trace_instances[slot], tr, __ATOMIC_RELEASE);
    if (out)
        *out = tr;
    return 0;
}

static int instance_mkdir(struct pfs_node *parent, const char *name)
{
    (void)parent;
    return trace_instance_create(name, NULL, NULL);
}

static int instance_rmdir(struct pfs_node *parent, struct pfs_node *entry)
{
    (void)parent;
    struct trace_array *tr = NULL;
    for (unsigned slot = 0; slot < TRACE_INSTANCES_MAX && !tr; slot++)
        if (trace_instances[slot] && trace_instances[slot]->dir == entry)
            tr = trace_instances[slot];
    if (!tr)
        return -ENOENT;
    /* Linux: EBUSY while a file of it is open (a trace_pipe read included). No file can
     * be opened meanwhile: opens take the control mutex, which is held. */
    if (pfs_tree_is_open(entry))
        return -EBUSY;
    /* Its function commands first: taking them out may fail (for memory to re-patch the
     * sites), and the instance must then stay whole, as it is. */
    int err = ftrace_filter_commands_clear(tr);
    if (err)
        return err;
    /* Its event triggers too: they hold their events and targets in soft mode there. */
    if (!trace_event_instance_triggers_clear(tr))
        return -EBUSY;
    err = pfs_remove_tree(entry);
    if (err)
        return err;
    trace_array_set_tracer(tr, "nop");
    trace_event_instance_disable_all(tr);
    WRITE_ONCE(trace_instances[tr->instance_slot], NULL);
    synchronize_readers(&trace_instance_writers);
    /* Nothing follows forks into it now: its lists are left empty for the slot's next. */
    trace_event_instance_pids_empty(tr);
    instance_free(tr);
    /* Its options/event-fork and function-fork no longer need the fork events. */
    trace_event_update_follow();
    return 0;
}

static const struct pfs_dir_ops instances_dir_ops = {.mkdir = instance_mkdir,
                                                     .rmdir = instance_rmdir};

static void trace_instances_init(void)
{
    instances_dir = pfs_mkdir_user_dir(pfs_mkdir(TRACEFS_ROOT), "instances", &instances_dir_ops);
    if (!instances_dir) {
        printk("tracefs: cannot create instances\n");
        return;
    }
    /* The trace_instance= ones: nothing can open an instance's files before this. */
    trace_boot_instances_create();
}
LATE_INITCALL(trace_instances_init);
