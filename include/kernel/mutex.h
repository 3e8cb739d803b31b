#ifndef KERNEL_MUTEX_H
#define KERNEL_MUTEX_H

#include <kernel/compiler.h>
#include <kernel/wait.h>

/*
 * A sleeping lock for control paths (tracefs writes, probe installs, node removal): its
 * holder may sleep, allocate and be preempted, and a thread that wants it sleeps instead
 * of spinning. It knows its owner thread: taking it twice on the same thread, taking it in
 * an interrupt handler, or releasing it from another thread panics. Never on a path the
 * tracer runs in (a traced call can come from any context).
 */
struct mutex {
    struct thread *volatile owner; /* NULL when free */
    struct wait_queue waiters;
    const char *name;
};

#define MUTEX_INIT(var)                                                                            \
    {                                                                                              \
        NULL, WAIT_QUEUE_INIT((var).waiters), #var                                                 \
    }
#define DEFINE_MUTEX(var) struct mutex var = MUTEX_INIT(var)

void mutex_init(struct mutex *m, const char *name);
void mutex_lock(struct mutex *m);
bool mutex_trylock(struct mutex *m);
void mutex_unlock(struct mutex *m);
/* Whether the calling thread holds m (for ASSERTs of a caller's locking duty). */
bool mutex_is_mine(const struct mutex *m);

#endif
