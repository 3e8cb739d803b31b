#ifndef LIB_STRING_H
#define LIB_STRING_H

#include <stddef.h>

void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
void *memchr(const void *s, int c, size_t n);
size_t strlen(const char *s);
size_t strnlen(const char *s, size_t max);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
int strcasecmp(const char *a, const char *b);
int strncasecmp(const char *a, const char *b, size_t n);
char *strchr(const char *s, int c);
char *strrchr(const char *s, int c);
char *strstr(const char *haystack, const char *needle);
char *strcasestr(const char *haystack, const char *needle);
char *strcpy(char *dst, const char *src);
char *strncpy(char *dst, const char *src, size_t n);
/* Copies at most size-1 bytes and always terminates; returns strlen(src). */
size_t strlcpy(char *dst, const char *src, size_t size);
size_t strlcat(char *dst, const char *src, size_t size);
size_t strspn(const char *s, const char *accept);
size_t strcspn(const char *s, const char *reject);
/* The first byte of s that is in accept, or NULL. */
char *strpbrk(const char *s, const char *accept);
/* Splits *s at the first byte in delim (strsep semantics). */
char *strsep(char **s, const char *delim);

/* Number parsing as the C library, base 0 = auto (0x, 0). */
unsigned long strtoul(const char *s, char **end, int base);
long strtol(const char *s, char **end, int base);
unsigned long long strtoull(const char *s, char **end, int base);
/* Strict parse of a whole string: returns 0 or -EINVAL / -ERANGE. */
int kstrtoul(const char *s, int base, unsigned long *out);
int kstrtol(const char *s, int base, long *out);
/*
 * A size as Linux's command line writes it (memparse): a number in base 0, then an
 * optional K, M, G, T, P or E (either case) multiplying it by a power of 1024. *end
 * points after what was parsed. Returns 0, -EINVAL (no number) or -ERANGE (too large).
 */
int parse_size(const char *s, char **end, unsigned long long *out);

#endif
