#include <kernel/compiler.h>
#include <kernel/errno.h>
#include <lib/ctype.h>
#include <lib/string.h>

/*
 * <limits.h> cannot be used under -nostdinc: gcc's copy pulls in the C library's limits.h,
 * which a freestanding build does not have. The compiler's predefined macros are enough.
 */
#define UINT_MAX (__INT_MAX__ * 2U + 1U)
#define LONG_MAX __LONG_MAX__
#define LONG_MIN (-__LONG_MAX__ - 1L)
#define ULONG_MAX (__LONG_MAX__ * 2UL + 1UL)
#define ULLONG_MAX (__LONG_LONG_MAX__ * 2ULL + 1ULL)

static unsigned int digit_value(char c)
{
    if (isdigit(c))
        return c - '0';
    if (isalpha(c))
        return tolower(c) - 'a' + 10;
    return UINT_MAX;
}

static bool base_is_valid(int base) { return base == 0 || (base >= 2 && base <= 36); }

/*
 * Resolves base 0 from the prefix and skips a "0x" that base 16 allows. A "0x" not followed
 * by a hex digit is not a prefix: the '0' alone is the number.
 */
static const char *resolve_base(const char *s, unsigned int *base)
{
    bool hex_prefix = s[0] == '0' && tolower(s[1]) == 'x' && isxdigit(s[2]);

    if (*base == 0)
        *base = hex_prefix ? 16 : s[0] == '0' ? 8 : 10;
    if (*base == 16 && hex_prefix)
        s += 2;
    return s;
}

/*
 * Accumulates digits of base from s. Keeps consuming after an overflow so the caller's end
 * pointer covers the whole number, as the C library does.
 */
static const char *parse_digits(const char *s, unsigned int base, unsigned long long *value,
                                bool *overflow)
{
    unsigned long long limit = ULLONG_MAX / base;
    unsigned int last_digit_limit = ULLONG_MAX % base;
    unsigned long long acc = 0;
    unsigned int digit;

    *overflow = false;
    for (; (digit = digit_value(*s)) < base; s++) {
        if (acc > limit || (acc == limit && digit > last_digit_limit))
            *overflow = true;
        else
            acc = acc * base + digit;
    }
    *value = acc;
    return s;
}

/*
 * Shared front end of the strto* family: whitespace, sign, prefix, digits. Returns false
 * when no digits were found; *end is then the start of the string.
 */
static bool parse_c_number(const char *s, char **end, int base, unsigned long long *magnitude,
                           bool *negative, bool *overflow)
{
    const char *p = s;
    const char *digits;
    const char *after;
    unsigned int radix = (unsigned int)base;

    *magnitude = 0;
    *negative = false;
    *overflow = false;
    if (!base_is_valid(base))
        goto no_number;

    while (isspace(*p))
        p++;
    if (*p == '-' || *p == '+')
        *negative = *p++ == '-';
    digits = resolve_base(p, &radix);
    after = parse_digits(digits, radix, magnitude, overflow);
    if (after == digits)
        goto no_number;
    if (end)
        *end = (char *)after;
    return true;

no_number:
    if (end)
        *end = (char *)s;
    return false;
}

unsigned long long strtoull(const char *s, char **end, int base)
{
    unsigned long long magnitude;
    bool negative, overflow;

    if (!parse_c_number(s, end, base, &magnitude, &negative, &overflow))
        return 0;
    if (overflow)
        return ULLONG_MAX;
    return negative ? 0 - magnitude : magnitude;
}

unsigned long strtoul(const char *s, char **end, int base)
{
    unsigned long long magnitude;
    bool negative, overflow;

    if (!parse_c_number(s, end, base, &magnitude, &negative, &overflow))
        return 0;
    if (overflow || magnitude > ULONG_MAX)
        return ULONG_MAX;
    return negative ? 0 - (unsigned long)magnitude : (unsigned long)magnitude;
}

long strtol(const char *s, char **end, int base)
{
    unsigned long long magnitude;
    bool negative, overflow;

    if (!parse_c_number(s, end, base, &magnitude, &negative, &overflow))
        return 0;
    if (negative) {
        if (overflow || magnitude > (unsigned long long)LONG_MAX + 1)
            return LONG_MIN;
        return magnitude == (unsigned long long)LONG_MAX + 1 ? LONG_MIN : -(long)magnitude;
    }
    if (overflow || magnitude > LONG_MAX)
        return LONG_MAX;
    return (long)magnitude;
}

/*
 * The strict parser behind kstrto*: no whitespace and no sign, the whole string must be the
 * number except for one trailing newline (what `echo` appends). Overflow is reported ahead
 * of trailing garbage.
 */
static int parse_strict(const char *s, int base, unsigned long long *value)
{
    unsigned int radix = (unsigned int)base;
    const char *digits;
    const char *after;
    bool overflow;

    if (!base_is_valid(base))
        return -EINVAL;
    digits = resolve_base(s, &radix);
    after = parse_digits(digits, radix, value, &overflow);
    if (overflow)
        return -ERANGE;
    if (after == digits)
        return -EINVAL;
    if (*after == '\n')
        after++;
    return *after == '\0' ? 0 : -EINVAL;
}

int kstrtoul(const char *s, int base, unsigned long *out)
{
    unsigned long long value;
    int err;

    if (*s == '+')
        s++;
    err = parse_strict(s, base, &value);
    if (err)
        return err;
    if (value > ULONG_MAX)
        return -ERANGE;
    *out = (unsigned long)value;
    return 0;
}

int kstrtol(const char *s, int base, long *out)
{
    unsigned long long magnitude;
    bool negative = false;
    int err;

    if (*s == '-' || *s == '+')
        negative = *s++ == '-';
    err = parse_strict(s, base, &magnitude);
    if (err)
        return err;
    if (negative) {
        if (magnitude > (unsigned long long)LONG_MAX + 1)
            return -ERANGE;
        *out = magnitude == (unsigned long long)LONG_MAX + 1 ? LONG_MIN : -(long)magnitude;
    } else {
        if (magnitude > LONG_MAX)
            return -ERANGE;
        *out = (long)magnitude;
    }
    return 0;
}

int parse_size(const char *s, char **end, unsigned long long *out)
{
    static const char suffixes[] = "kmgtpe";
    char *stop;

    *end = (char *)s;
    if (!isdigit((unsigned char)*s))
        return -EINVAL;
    unsigned long long v = strtoull(s, &stop, 0);
    unsigned shift = 0;
    const char *suffix = *stop ? strchr(suffixes, tolower((unsigned char)*stop)) : NULL;
    if (suffix) {
        shift = 10 * (unsigned)(suffix - suffixes + 1);
        stop++;
    }
    if (shift && v > (~0ULL >> shift))
        return -ERANGE;
    *end = stop;
    *out = v << shift;
    return 0;
}
