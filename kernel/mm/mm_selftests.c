/* Self-tests of the page allocator and the heap. */
#include <kernel/mm.h>
#include <kernel/selftest.h>
#include <kernel/time.h>
#include <lib/string.h>

SELFTEST(pmm_alloc_free)
{
    uint64_t total, free_before, free_now;
    pmm_get_stats(&total, &free_before);
    EXPECT(total > 1000);
    uint64_t pages[16];
    for (int i = 0; i < 16; i++) {
        pages[i] = page_alloc();
        EXPECT(pages[i] != 0);
        EXPECT_EQ(pages[i] & (PAGE_SIZE - 1), 0);
        /* Pages come zeroed and are usable through the direct map. */
        const uint8_t *p = phys_to_virt(pages[i]);
        EXPECT(p[0] == 0 && p[PAGE_SIZE - 1] == 0);
        memset(phys_to_virt(pages[i]), 0xa5, PAGE_SIZE);
        for (int j = 0; j < i; j++)
            EXPECT(pages[j] != pages[i]);
    }
    pmm_get_stats(&total, &free_now);
    EXPECT_EQ(free_now, free_before - 16);
    uint64_t run = page_alloc_n(8);
    EXPECT(run != 0);
    for (int i = 0; i < 16; i++)
        page_free(pages[i]);
    page_free_n(run, 8);
    pmm_get_stats(&total, &free_now);
    EXPECT_EQ(free_now, free_before);
}

SELFTEST(heap_sizes_free_reuse)
{
    static const size_t sizes[] = {1,    7,    16,   17,   64,   100,   255,
                                   1000, 2048, 4000, 4081, 8192, 20000, 100000};
    void *p[ARRAY_SIZE(sizes)];
    uint64_t in_use_before, mapped, allocs, frees;
    heap_get_stats(&in_use_before, &mapped, &allocs, &frees);
    for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
        p[i] = kmalloc(sizes[i]);
        EXPECT(p[i] != NULL);
        EXPECT_EQ((uintptr_t)p[i] & 15, 0);
        memset(p[i], (int)i, sizes[i]);
    }
    /* No block overlaps another: each still holds its own pattern. */
    for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
        const uint8_t *b = p[i];
        EXPECT(b[0] == (uint8_t)i && b[sizes[i] - 1] == (uint8_t)i);
    }
    for (size_t i = 0; i < ARRAY_SIZE(sizes); i++)
        kfree(p[i]);
    uint64_t in_use;
    heap_get_stats(&in_use, &mapped, &allocs, &frees);
    EXPECT_EQ(in_use, in_use_before);

    /* A freed small block is handed out again (per-size free lists). */
    void *a = kmalloc(48);
    kfree(a);
    void *b = kmalloc(48);
    EXPECT(a == b);
    kfree(b);

    void *z = kzalloc(300);
    EXPECT(z != NULL);
    EXPECT(((uint8_t *)z)[299] == 0);
    void *r = krealloc(z, 5000);
    EXPECT(r != NULL);
    kfree(r);
    EXPECT(kmalloc((size_t)1 << 40) == NULL);
}

SELFTEST(heap_many_blocks)
{
    enum { N = 512 };
    void **blocks = kmalloc(N * sizeof(void *));
    ASSERT_TRUE(blocks != NULL);
    uint64_t in_use_before, mapped, allocs, frees, in_use;
    heap_get_stats(&in_use_before, &mapped, &allocs, &frees);
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < N; i++) {
            blocks[i] = kmalloc(16 + (size_t)(i * 37 % 3000));
            EXPECT(blocks[i] != NULL);
        }
        /* Free in an order unlike the allocation order. */
        for (int i = 0; i < N; i += 2)
            kfree(blocks[i]);
        for (int i = 1; i < N; i += 2)
            kfree(blocks[i]);
    }
    heap_get_stats(&in_use, &mapped, &allocs, &frees);
    EXPECT_EQ(in_use, in_use_before);
    kfree(blocks);
}

/*
 * A freed stack slot comes back once every CPU has had a tick to drop its old
 * translations (vmalloc_stack), mapped and writable, and the pages are given back.
 */
SELFTEST(stack_slot_reuse_after_flush)
{
    uint64_t free_before, free_after, total;
    /* A first slot of this size may need page-table pages that stay: made here first. */
    void *warm = vmalloc_stack(3);
    ASSERT_TRUE(warm != NULL);
    vfree_stack(warm, 3);
    sleep_ns(30 * 1000 * 1000);
    pmm_get_stats(&total, &free_before);
    char *a = vmalloc_stack(3);
    ASSERT_TRUE(a != NULL);
    memset(a - 3 * PAGE_SIZE, 0x5a, 3 * PAGE_SIZE);
    vfree_stack(a, 3);
    /* Two ticks on every CPU (the timer runs at 100 Hz or faster). */
    sleep_ns(30 * 1000 * 1000);
    char *b = vmalloc_stack(3);
    ASSERT_TRUE(b != NULL);
    EXPECT(b == a);
    memset(b - 3 * PAGE_SIZE, 0xa5, 3 * PAGE_SIZE);
    EXPECT_EQ((unsigned char)b[-1], 0xa5);
    EXPECT(stack_guard_hit((uintptr_t)b - 3 * PAGE_SIZE - 1));
    vfree_stack(b, 3);
    pmm_get_stats(&total, &free_after);
    EXPECT_EQ(free_after, free_before);
}
