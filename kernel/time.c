#include <kernel/errno.h>
#include <kernel/time.h>
#include <kernel/wait.h>

static struct wait_queue sleepers = WAIT_QUEUE_INIT(sleepers);

int sleep_ns_interruptible(uint64_t ns)
{
    if (ns == 0)
        return 0;
    int err = wait_event_timeout(&sleepers, NULL, NULL, ns, true);
    return err == -EINTR ? -EINTR : 0;
}

void sleep_ns(uint64_t ns)
{
    if (ns)
        wait_event_timeout(&sleepers, NULL, NULL, ns, false);
}
