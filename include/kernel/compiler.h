#ifndef KERNEL_COMPILER_H
#define KERNEL_COMPILER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Functions the tracer itself runs through must never call the tracer. */
#define notrace __attribute__((no_instrument_function))
/*
 * A function the kprobe int3 path calls from a file that is otherwise traced and probed:
 * not traced, and on the kprobe blacklist (the linker puts .kprobes.text in its range).
 */
#define __kprobes notrace __attribute__((section(".kprobes.text")))
#define __used __attribute__((used))
#define __unused __attribute__((unused))
#define __noreturn __attribute__((noreturn))
#define __packed __attribute__((packed))
#define __aligned(x) __attribute__((aligned(x)))
#define __section(s) __attribute__((section(s)))
#define __printf(a, b) __attribute__((format(printf, a, b)))
#define __always_inline inline __attribute__((always_inline))
#define __noinline __attribute__((noinline))
#define __cacheline_aligned __aligned(64)

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define ALIGN_UP(x, a) (((x) + ((a)-1)) & ~((__typeof__(x))(a)-1))
#define ALIGN_DOWN(x, a) ((x) & ~((__typeof__(x))(a)-1))
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define container_of(ptr, type, member) ((type *)((char *)(ptr)-offsetof(type, member)))

/* A compiler barrier: no memory access moves across it; the CPU is not fenced. */
#define barrier() __atomic_signal_fence(__ATOMIC_SEQ_CST)
#define READ_ONCE(x) (*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v) (*(volatile __typeof__(x) *)&(x) = (v))

typedef long ssize_t;

#endif
