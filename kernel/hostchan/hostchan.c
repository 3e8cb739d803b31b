/*
 * The host channel's device: QEMU's ivshmem-plain (a PCI device whose BAR2 is memory the
 * host shares, typically a file in /dev/shm), added to a machine with
 *
 *   -object memory-backend-file,id=hostchan,share=on,mem-path=/dev/shm/NAME,size=16M
 *   -device ivshmem-plain,memdev=hostchan
 *
 * Found on the PCI bus at boot; without it the channel reports -ENODEV and nothing else
 * changes. The ring over its memory is ring.c's.
 */
#include <kernel/errno.h>
#include <kernel/hostchan.h>
#include <kernel/hostchan_fileserv.h>
#include <kernel/init.h>
#include <kernel/mm.h>
#include <kernel/pci.h>
#include <kernel/printk.h>
#include <kernel/shell.h>
#include <kernel/time.h>

#define IVSHMEM_VENDOR 0x1af4
#define IVSHMEM_DEVICE 0x1110
#define IVSHMEM_SHARED_BAR 2

/* A host that consumes nothing for this long is taken to have stopped reading. */
#define HOSTCHAN_STALL_NS (2 * NSEC_PER_SEC)

static struct hostchan_ring hostchan;
static const struct pci_device *hostchan_pdev;
static bool hostchan_busy;
static uint8_t *fileserv_area;
static size_t fileserv_size;

bool hostchan_present(void) { return hostchan_pdev != NULL; }

struct hostchan_ring *hostchan_acquire(int *err)
{
    if (!hostchan_pdev) {
        *err = -ENODEV;
        return NULL;
    }
    if (__atomic_exchange_n(&hostchan_busy, true, __ATOMIC_ACQUIRE)) {
        *err = -EBUSY;
        return NULL;
    }
    return &hostchan;
}

void hostchan_release(struct hostchan_ring *r)
{
    __atomic_store_n(&hostchan_busy, false, __ATOMIC_RELEASE);
}

static void hostchan_init(void)
{
    const struct pci_device *pdev = pci_find_device(IVSHMEM_VENDOR, IVSHMEM_DEVICE, NULL);
    if (!pdev)
        return;
    const struct pci_bar *bar = &pdev->bars[IVSHMEM_SHARED_BAR];
    if (!bar->size || !bar->base || (bar->flags & PCI_BAR_IO)) {
        printk("hostchan: ivshmem at %02x:%02x.%x has no shared memory BAR, not used\n", pdev->bus,
               pdev->dev, pdev->fn);
        return;
    }
    pci_enable_decoding(pdev);
    void *mem = arch_map_shared_memory(bar->base, bar->size);
    /* The file service's area is carved from the end, so the ring stays where it was. */
    size_t area = fileserv_area_size(bar->size);
    if (!mem || hostchan_ring_init(&hostchan, mem, bar->size - area, HOSTCHAN_STALL_NS)) {
        printk("hostchan: ivshmem at %02x:%02x.%x: %llu bytes cannot hold a ring, not used\n",
               pdev->bus, pdev->dev, pdev->fn, (unsigned long long)bar->size);
        return;
    }
    hostchan_pdev = pdev;
    if (area) {
        fileserv_size = area;
        fileserv_area = (uint8_t *)mem + HOSTCHAN_HEADER_SIZE + hostchan.size;
        hostchan.shared->fileserv_offset = HOSTCHAN_HEADER_SIZE + hostchan.size;
        hostchan.shared->fileserv_size = area;
    }
    printk("hostchan: ivshmem at %02x:%02x.%x, %llu KiB shared at %#llx, ring of %llu KiB\n",
           pdev->bus, pdev->dev, pdev->fn, (unsigned long long)bar->size / 1024,
           (unsigned long long)bar->base, (unsigned long long)hostchan.size / 1024);
}
CORE_INITCALL(hostchan_init);

/* Late: the thread serves the tree, which the tracefs files' initcalls fill. */
static void hostchan_fileserv_init(void)
{
    if (fileserv_area)
        fileserv_start(fileserv_area, fileserv_size);
}
LATE_INITCALL(hostchan_fileserv_init);

SHELL_COMMAND(hostchan, "hostchan", "the host channel: device, ring, frames sent and dropped")
{
    if (argc != 1)
        return shell_usage(ctx);
    if (!hostchan_pdev) {
        shell_eprintf(ctx, "hostchan: no device: boot QEMU with -device ivshmem-plain "
                           "(see tools/fentros-trace record --channel shm)\n");
        return 1;
    }
    const struct hostchan_shared *s = hostchan.shared;
    uint64_t head = __atomic_load_n(&s->head, __ATOMIC_ACQUIRE);
    uint64_t tail = __atomic_load_n(&s->tail, __ATOMIC_ACQUIRE);
    shell_printf(ctx, "device: ivshmem %02x:%02x.%x\n", hostchan_pdev->bus, hostchan_pdev->dev,
                 hostchan_pdev->fn);
    shell_printf(ctx, "ring: %llu bytes, head %llu, tail %llu\n", (unsigned long long)hostchan.size,
                 (unsigned long long)head, (unsigned long long)tail);
    fileserv_show_status(ctx);
    shell_printf(ctx, "frames: %llu sent, %llu dropped (%llu bytes)\n",
                 (unsigned long long)s->frames, (unsigned long long)s->dropped_frames,
                 (unsigned long long)s->dropped_bytes);
    return 0;
}
