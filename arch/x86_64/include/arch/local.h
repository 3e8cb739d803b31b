/*
 * local_t-style operations: atomic against interrupts and NMIs on this CPU, for words only
 * this CPU writes (other CPUs may read them). The ring buffer's writers count with these.
 */
#ifndef ARCH_LOCAL_H
#define ARCH_LOCAL_H

#include <kernel/compiler.h>

/*
 * Same-CPU atomics for words only this CPU's writers change. One instruction each, so an
 * interrupt lands before or after, never inside; no lock prefix, since no other CPU
 * writes these words (readers elsewhere only load them). The "memory" clobber keeps the
 * compiler from moving other accesses across them: the order is what nested writers see.
 */
#ifdef __SANITIZE_THREAD__
/* ThreadSanitizer cannot see inline assembly: its build uses the (stronger) locked forms. */
static __always_inline void local_inc(unsigned long *p)
{
    __atomic_fetch_add(p, 1, __ATOMIC_SEQ_CST);
}
static __always_inline void local_dec(unsigned long *p)
{
    __atomic_fetch_sub(p, 1, __ATOMIC_SEQ_CST);
}
static __always_inline void local_add(unsigned long *p, unsigned long v)
{
    __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
}
static __always_inline void local_sub64(uint64_t *p, uint64_t v)
{
    __atomic_fetch_sub(p, v, __ATOMIC_SEQ_CST);
}
static __always_inline bool local_cmpxchg(uint64_t *p, uint64_t old, uint64_t new)
{
    return __atomic_compare_exchange_n(p, &old, new, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}
static __always_inline bool local_cmpxchg_ptr(void **p, void *old, void *new)
{
    return __atomic_compare_exchange_n(p, &old, new, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}
#else
static __always_inline void local_inc(unsigned long *p)
{
    __asm__ __volatile__("incq %0" : "+m"(*p)::"memory");
}
static __always_inline void local_dec(unsigned long *p)
{
    __asm__ __volatile__("decq %0" : "+m"(*p)::"memory");
}
static __always_inline void local_add(unsigned long *p, unsigned long v)
{
    __asm__ __volatile__("addq %1, %0" : "+m"(*p) : "er"(v) : "memory");
}
static __always_inline void local_sub64(uint64_t *p, uint64_t v)
{
    __asm__ __volatile__("subq %1, %0" : "+m"(*p) : "er"(v) : "memory");
}
static __always_inline bool local_cmpxchg(uint64_t *p, uint64_t old, uint64_t new)
{
    bool ok;
    __asm__ __volatile__("cmpxchgq %3, %1"
                         : "=@ccz"(ok), "+m"(*p), "+a"(old)
                         : "r"(new)
                         : "memory");
    return ok;
}
static __always_inline bool local_cmpxchg_ptr(void **p, void *old, void *new)
{
    bool ok;
    __asm__ __volatile__("cmpxchgq %3, %1"
                         : "=@ccz"(ok), "+m"(*p), "+a"(old)
                         : "r"(new)
                         : "memory");
    return ok;
}
#endif

#endif
