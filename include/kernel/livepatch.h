#ifndef KERNEL_LIVEPATCH_H
#define KERNEL_LIVEPATCH_H

#include <kernel/compiler.h>
#include <kernel/list.h>

/*
 * Live patching: a patch replaces functions of the running kernel by new versions
 * compiled into it. Each patched function gets a PERMANENT, IPMODIFY ftrace op whose
 * callback sends the call on to the new version; a transition switches threads one at a
 * time, each only when it runs none of the functions being replaced (docs/livepatch.md).
 *
 * A patch is described as Linux describes one:
 *
 *     static struct klp_func funcs[] = {
 *         {.old_name = "show_cmdline", .new_func = livepatch_show_cmdline},
 *         {}
 *     };
 *     static struct klp_object objs[] = {{.name = NULL, .funcs = funcs}, {}};
 *     static struct klp_patch patch = {.name = "livepatch_sample", .objs = objs};
 *
 * and made visible under /sys/kernel/livepatch/ with klp_register_patch() at boot.
 */

/* A thread's patch state during a transition (struct thread's patch_state). */
#define KLP_UNDEFINED (-1) /* no transition: the state is not looked at */
#define KLP_UNPATCHED 0
#define KLP_PATCHED 1

struct klp_object;

struct klp_func {
    const char *old_name;     /* the function to replace */
    void *new_func;           /* its new version, with the same prototype */
    unsigned long old_sympos; /* which of several same-named functions (1-based); 0: the only one */
    /* Filled in by klp_init_patch. */
    unsigned long old_func; /* address of the function replaced */
    unsigned long old_size, new_size;
    struct klp_object *obj;
    struct list_node stack_node; /* in the function's stack of patches, newest first */
    bool patched;                /* on its function's stack */
    volatile bool transition;    /* a transition of its patch is running */
};

struct klp_object {
    const char *name;       /* NULL: the kernel itself ("vmlinux") */
    struct klp_func *funcs; /* ends with an entry whose old_name is NULL */
    bool patched;
};

struct klp_patch {
    const char *name;
    struct klp_object *objs; /* ends with an entry whose funcs is NULL */
    bool replace;            /* Linux's atomic replace: not supported (EINVAL) */
    /* Owned by the livepatch core. */
    bool initialized;
    bool registered; /* has its /sys/kernel/livepatch tree */
    bool enabled;
    bool forced; /* a transition of it was forced */
    struct list_node node;
};

/* Resolves every function (name, sympos, call site, sizes). 0 or -EINVAL/-ENOENT. */
int klp_init_patch(struct klp_patch *patch);
/* klp_init_patch, then its /sys/kernel/livepatch/<name>/ tree. For patches in the kernel. */
int klp_register_patch(struct klp_patch *patch);

/* A patch klp_register_patch made visible, by name; NULL when there is none. */
struct klp_patch *klp_find_patch(const char *name);

/*
 * Start a transition to the patched (enable) or unpatched (disable) state. They return
 * once every function's op is in place and the transition has started: it may still be
 * running (klp_patch_in_transition). EBUSY while any transition runs or when an op cannot
 * be registered (another IPMODIFY op, ftrace_enabled 0); EINVAL when already in that state.
 */
int klp_enable_patch(struct klp_patch *patch);
int klp_disable_patch(struct klp_patch *patch);
bool klp_patch_in_transition(const struct klp_patch *patch);
/* Switches every remaining thread now and completes the transition; EINVAL when none runs. */
int klp_force_transition(struct klp_patch *patch);
/* Waits up to timeout_ns for the patch's transition to end: 0, or -ETIMEDOUT. */
int klp_wait_transition(const struct klp_patch *patch, uint64_t timeout_ns);
/* Threads still to switch in the running transition (0 when none runs). */
size_t klp_pending_threads(void);

/* Scheduler hooks. */
struct thread;
/* A new thread's patch state: it starts with nothing on its stack, so in the target state. */
void klp_thread_init(struct thread *t);
/* The running thread at a safe point (it called the scheduler, the idle loop): switches it
 * if its stack is reliable and holds no function of the transition's patch. */
void klp_update_patch_state_self(void);
/* From every CPU's timer tick, interrupts off: runs a requested check of this CPU's
 * threads that are not running. */
void klp_tick(void);

#endif
