#include <kernel/compiler.h>
#include <lib/ctype.h>
#include <lib/string.h>

/*
 * gcc recognises byte loops as memcpy/memset/memmove idioms and replaces them with calls to
 * those very functions; inside their own definitions that would recurse forever.
 */
#ifdef __clang__
#define no_idiom_calls __attribute__((no_builtin))
#else
#define no_idiom_calls __attribute__((optimize("no-tree-loop-distribute-patterns")))
#endif

/* Word accesses may alias any object the caller passed in. */
typedef uint64_t __attribute__((may_alias)) word_t;
#define WORD_SIZE sizeof(word_t)
#define WORD_MASK (WORD_SIZE - 1)

/*
 * The upward copy memcpy is and memmove uses whenever the destination starts below the
 * source: each store lands on bytes already read, a word at a time included.
 */
no_idiom_calls static __always_inline void copy_up(unsigned char *d, const unsigned char *s,
                                                   size_t n)
{
    /* Word copies only pay off when both sides can reach alignment together. */
    if ((((uintptr_t)d ^ (uintptr_t)s) & WORD_MASK) == 0) {
        while (n > 0 && ((uintptr_t)d & WORD_MASK) != 0) {
            *d++ = *s++;
            n--;
        }
        for (; n >= WORD_SIZE; n -= WORD_SIZE, d += WORD_SIZE, s += WORD_SIZE)
            *(word_t *)d = *(const word_t *)s;
    }
    while (n > 0) {
        *d++ = *s++;
        n--;
    }
}

no_idiom_calls void *memcpy(void *dst, const void *src, size_t n)
{
    copy_up(dst, src, n);
    return dst;
}

no_idiom_calls void *memmove(void *dst, const void *src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;

    if (d == s || n == 0)
        return dst;
    if ((uintptr_t)d < (uintptr_t)s || (uintptr_t)d >= (uintptr_t)s + n) {
        copy_up(d, s, n);
        return dst;
    }

    /* The destination overlaps the source from above: copy from the end down. */
    d += n;
    s += n;
    if ((((uintptr_t)d ^ (uintptr_t)s) & WORD_MASK) == 0) {
        while (n > 0 && ((uintptr_t)d & WORD_MASK) != 0) {
            *--d = *--s;
            n--;
        }
        for (; n >= WORD_SIZE; n -= WORD_SIZE) {
            d -= WORD_SIZE;
            s -= WORD_SIZE;
            *(word_t *)d = *(const word_t *)s;
        }
    }
    while (n > 0) {
        *--d = *--s;
        n--;
    }
    return dst;
}

no_idiom_calls void *memset(void *dst, int c, size_t n)
{
    unsigned char *d = dst;
    unsigned char byte = (unsigned char)c;
    word_t pattern = byte * (word_t)0x0101010101010101ULL;

    while (n > 0 && ((uintptr_t)d & WORD_MASK) != 0) {
        *d++ = byte;
        n--;
    }
    for (; n >= WORD_SIZE; n -= WORD_SIZE, d += WORD_SIZE)
        *(word_t *)d = pattern;
    while (n > 0) {
        *d++ = byte;
        n--;
    }
    return dst;
}

no_idiom_calls int memcmp(const void *a, const void *b, size_t n)
{
    const unsigned char *x = a, *y = b;

    for (; n > 0; n--, x++, y++) {
        if (*x != *y)
            return *x - *y;
    }
    return 0;
}

no_idiom_calls void *memchr(const void *s, int c, size_t n)
{
    const unsigned char *p = s;
    unsigned char byte = (unsigned char)c;

    for (; n > 0; n--, p++) {
        if (*p == byte)
            return (void *)p;
    }
    return NULL;
}

size_t strlen(const char *s)
{
    const char *p = s;

    while (*p)
        p++;
    return p - s;
}

size_t strnlen(const char *s, size_t max)
{
    size_t len = 0;

    while (len < max && s[len])
        len++;
    return len;
}

int strcmp(const char *a, const char *b)
{
    const unsigned char *x = (const unsigned char *)a, *y = (const unsigned char *)b;

    while (*x && *x == *y) {
        x++;
        y++;
    }
    return *x - *y;
}

int strncmp(const char *a, const char *b, size_t n)
{
    const unsigned char *x = (const unsigned char *)a, *y = (const unsigned char *)b;

    for (; n > 0; n--, x++, y++) {
        if (*x != *y)
            return *x - *y;
        if (*x == '\0')
            break;
    }
    return 0;
}

int strcasecmp(const char *a, const char *b) { return strncasecmp(a, b, SIZE_MAX); }

int strncasecmp(const char *a, const char *b, size_t n)
{
    const unsigned char *x = (const unsigned char *)a, *y = (const unsigned char *)b;

    for (; n > 0; n--, x++, y++) {
        int cx = tolower(*x), cy = tolower(*y);

        if (cx != cy)
            return cx - cy;
        if (cx == '\0')
            break;
    }
    return 0;
}

char *strchr(const char *s, int c)
{
    char wanted = (char)c;

    for (;; s++) {
        if (*s == wanted)
            return (char *)s;
        if (*s == '\0')
            return NULL;
    }
}

char *strrchr(const char *s, int c)
{
    char wanted = (char)c;
    const char *last = NULL;

    for (;; s++) {
        if (*s == wanted)
            last = s;
        if (*s == '\0')
            return (char *)last;
    }
}

char *strstr(const char *haystack, const char *needle)
{
    size_t needle_len = strlen(needle);

    if (needle_len == 0)
        return (char *)haystack;
    for (; *haystack; haystack++) {
        if (*haystack == *needle && strncmp(haystack, needle, needle_len) == 0)
            return (char *)haystack;
    }
    return NULL;
}

char *strcasestr(const char *haystack, const char *needle)
{
    size_t needle_len = strlen(needle);

    if (needle_len == 0)
        return (char *)haystack;
    for (; *haystack; haystack++) {
        if (strncasecmp(haystack, needle, needle_len) == 0)
            return (char *)haystack;
    }
    return NULL;
}

char *strcpy(char *dst, const char *src)
{
    char *d = dst;

    while ((*d++ = *src++) != '\0')
        ;
    return dst;
}

char *strncpy(char *dst, const char *src, size_t n)
{
    size_t i = 0;

    for (; i < n && src[i]; i++)
        dst[i] = src[i];
    for (; i < n; i++)
        dst[i] = '\0';
    return dst;
}

size_t strlcpy(char *dst, const char *src, size_t size)
{
    size_t src_len = strlen(src);

    if (size > 0) {
        size_t copy = src_len < size ? src_len : size - 1;

        memcpy(dst, src, copy);
        dst[copy] = '\0';
    }
    return src_len;
}

size_t strlcat(char *dst, const char *src, size_t size)
{
    size_t dst_len = strnlen(dst, size);

    /* With no terminator within size, strlcpy gets no room and dst is left alone. */
    return dst_len + strlcpy(dst + dst_len, src, size - dst_len);
}

size_t strspn(const char *s, const char *accept)
{
    size_t n = 0;

    while (s[n] && strchr(accept, s[n]))
        n++;
    return n;
}

size_t strcspn(const char *s, const char *reject)
{
    size_t n = 0;

    while (s[n] && !strchr(reject, s[n]))
        n++;
    return n;
}

char *strsep(char **s, const char *delim)
{
    char *token = *s;
    char *end;

    if (token == NULL)
        return NULL;
    end = token + strcspn(token, delim);
    if (*end) {
        *end = '\0';
        *s = end + 1;
    } else {
        *s = NULL;
    }
    return token;
}

char *strpbrk(const char *s, const char *accept)
{
    for (; *s; s++)
        if (strchr(accept, *s))
            return (char *)s;
    return NULL;
}
