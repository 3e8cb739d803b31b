/*
 * The TSC is the kernel's clock: printk timestamps, sleeps and the trace clock all read
 * it. It is calibrated once at boot against the PIT's fixed 1.193182 MHz input. Not
 * traced: the tracer reads the clock for every event.
 */
#include <arch/cpu.h>
#include <arch/tsc.h>
#include <kernel/printk.h>
#include <kernel/time.h>

#include "x86_cpu.h"

#define PIT_HZ 1193182ULL
#define PIT_CH2_DATA 0x42
#define PIT_CMD 0x43
#define PIT_GATE_PORT 0x61

static uint64_t tsc_freq_hz = 1000000000ULL; /* assumed 1 GHz until calibrated */
/* ns = cycles * ns_mult >> 32, with a 128-bit product so no range is lost. */
struct tsc_clock tsc_clock = {.ns_mult = 1ULL << 32};

void tsc_mark_boot(void) { tsc_clock.boot = rdtsc(); }

/* Counts TSC cycles while PIT channel 2 counts down a fixed interval (one-shot mode 0). */
static uint64_t measure_pit_interval(uint32_t pit_ticks)
{
    uint8_t gate = inb(PIT_GATE_PORT);
    outb(PIT_GATE_PORT, (gate & ~0x02) | 0x01); /* gate on, speaker off */
    outb(PIT_CMD, 0xb0);                        /* channel 2, lo/hi byte, mode 0 */
    outb(PIT_CH2_DATA, pit_ticks & 0xff);
    outb(PIT_CH2_DATA, pit_ticks >> 8);
    uint64_t start = rdtsc();
    while (!(inb(PIT_GATE_PORT) & 0x20))
        ;
    uint64_t end = rdtsc();
    outb(PIT_GATE_PORT, gate);
    return end - start;
}

static void tsc_set_frequency(uint64_t hz)
{
    if (!hz)
        return;
    tsc_freq_hz = hz;
    tsc_clock.ns_mult = (uint64_t)(((unsigned __int128)NSEC_PER_SEC << 32) / hz);
}

void tsc_calibrate(void)
{
    /* 50 ms, three times, keeping the shortest: an emulator's hiccup only lengthens one. */
    const uint32_t ticks = PIT_HZ * 50 / 1000;
    uint64_t best = ~0ULL;
    for (int i = 0; i < 3; i++) {
        uint64_t c = measure_pit_interval(ticks);
        if (c < best)
            best = c;
    }
    tsc_set_frequency(best * PIT_HZ / ticks);
    printk("tsc: %lu.%03lu MHz, calibrated against the PIT\n",
           (unsigned long)(tsc_freq_hz / 1000000), (unsigned long)(tsc_freq_hz / 1000 % 1000));
}

uint64_t tsc_hz(void) { return tsc_freq_hz; }

uint64_t tsc_to_ns(uint64_t cycles)
{
    return (uint64_t)(((unsigned __int128)cycles * tsc_clock.ns_mult) >> 32);
}

uint64_t clock_ns(void) { return tsc_clock_ns(); }

void udelay(uint64_t usecs)
{
    uint64_t end = clock_ns() + usecs * NSEC_PER_USEC;
    while (clock_ns() < end)
        arch_cpu_relax();
}
