#ifndef KERNEL_LIVEPATCH_INTERNAL_H
#define KERNEL_LIVEPATCH_INTERNAL_H

#include <kernel/livepatch.h>
#include <kernel/spinlock.h>

/*
 * Shared by the livepatch core (core.c), its consistency model (transition.c) and its
 * sysfs files (sysfs.c).
 *
 * klp_lock serialises enabling, disabling, forcing and the tries to complete a
 * transition; it is a spinlock held only across work that does not sleep.
 * klp_state_lock (taken with interrupts off, before the thread list's lock) guards every
 * thread's patch_state and patch_pending, and the two globals below, so a thread that
 * switches itself never races a transition that starts, completes or is forced.
 */
extern struct spinlock klp_lock;
extern struct spinlock klp_state_lock;
extern struct klp_patch *klp_transition_patch; /* the patch in transition, or NULL */
extern int klp_target_state;                   /* KLP_PATCHED or KLP_UNPATCHED */

#define klp_for_each_object(patch, obj) for (obj = (patch)->objs; obj->funcs; obj++)
#define klp_for_each_func(obj, func) for (func = (obj)->funcs; func->old_name; func++)

/* core.c: the ops that redirect calls. Under klp_lock. */
int klp_patch_objects(struct klp_patch *patch);
void klp_unpatch_objects(struct klp_patch *patch);
/* The function that runs now for func's old function below func (the original or an
 * older patch's version), as start and size. */
void klp_func_below(const struct klp_func *func, unsigned long *start, unsigned long *size);

/* transition.c. Under klp_lock. */
void klp_init_transition(struct klp_patch *patch, int target);
void klp_cancel_transition(void);
void klp_start_transition(void);
/* One round: switches every thread it can; completes the transition when none is left. */
bool klp_try_complete_transition(void);
/* One enable or disable at a time: 0, or EBUSY while another runs. */
int klp_change_begin(void);
void klp_change_end(void);
/* Drives the running transition (tick rounds, tries) for up to timeout_ns, sleeping
 * between tries; true once none runs. Not under klp_lock. */
bool klp_drive(uint64_t timeout_ns);
/* Within a change: joins the last worker (no transition running: it is ending), and
 * starts one for the transition just started. */
void klp_reap_worker(void);
void klp_start_worker(void);
/* Joins a finished worker from anywhere: does nothing while a transition or a change runs. */
void klp_reap_idle_worker(void);
/* Drives any transition to its end: 0, -ETIMEDOUT, or -EINTR (Ctrl-C). */
int klp_wait_all(uint64_t timeout_ns);

/* The threads still to switch, for the `livepatch` command. */
struct klp_pending_thread {
    int pid;
    unsigned cpu;
    bool running;
    char name[16];
};
size_t klp_list_pending(struct klp_pending_thread *out, size_t max);
/* Every patch klp_init_patch took, in that order (under klp_lock). */
extern struct list_node klp_patches;

#endif
