#include <kernel/compiler.h>
#include <lib/printf.h>
#include <lib/string.h>

/*
 * <limits.h> cannot be used under -nostdinc: gcc's copy pulls in the C library's limits.h,
 * which a freestanding build does not have. The compiler's predefined macros are enough.
 */
#define INT_MAX __INT_MAX__

printf_symbol_fn printf_symbol_hook;

/*
 * Output goes through a sink that counts every byte of the full result but stores only what
 * fits before the terminator, so truncation needs no special cases in the formatters.
 */
struct sink {
    char *buf;
    size_t size;
    size_t len;
};

static size_t sink_room(const struct sink *out)
{
    return out->len + 1 < out->size ? out->size - 1 - out->len : 0;
}

static void sink_put(struct sink *out, char c)
{
    if (sink_room(out) > 0)
        out->buf[out->len] = c;
    out->len++;
}

static void sink_write(struct sink *out, const char *s, size_t n)
{
    size_t stored = MIN(n, sink_room(out));

    if (stored > 0)
        memcpy(out->buf + out->len, s, stored);
    out->len += n;
}

static void sink_fill(struct sink *out, char c, size_t n)
{
    size_t stored = MIN(n, sink_room(out));

    if (stored > 0)
        memset(out->buf + out->len, c, stored);
    out->len += n;
}

enum {
    FMT_LEFT = 1 << 0,
    FMT_PLUS = 1 << 1,
    FMT_SPACE = 1 << 2,
    FMT_ALT = 1 << 3,
    FMT_ZERO = 1 << 4,
};

enum fmt_length {
    LEN_DEFAULT,
    LEN_HH,
    LEN_H,
    LEN_L,
    LEN_LL,
    LEN_Z,
    LEN_T,
    LEN_J,
};

struct fmt_spec {
    unsigned int flags;
    size_t width;
    int precision; /* negative when none was given */
    enum fmt_length length;
};

/* Pads a ready-made piece of text to the field width; '0' never applies to text. */
static void emit_text(struct sink *out, const struct fmt_spec *spec, const char *text, size_t len)
{
    size_t pad = spec->width > len ? spec->width - len : 0;

    if (!(spec->flags & FMT_LEFT))
        sink_fill(out, ' ', pad);
    sink_write(out, text, len);
    if (spec->flags & FMT_LEFT)
        sink_fill(out, ' ', pad);
}

static void emit_integer(struct sink *out, const struct fmt_spec *spec,
                         unsigned long long magnitude, char sign, unsigned int base, bool upper)
{
    const char *alphabet = upper ? "0123456789ABCDEF" : "0123456789abcdef";
    char digits[24]; /* 64 bits take 22 octal digits */
    char *first = digits + sizeof(digits);
    size_t ndigits, min_digits, zeros, body, pad;
    char prefix[3];
    size_t prefix_len = 0;

    if (sign)
        prefix[prefix_len++] = sign;
    if ((spec->flags & FMT_ALT) && base == 16 && magnitude != 0) {
        prefix[prefix_len++] = '0';
        prefix[prefix_len++] = upper ? 'X' : 'x';
    }

    for (; magnitude != 0; magnitude /= base)
        *--first = alphabet[magnitude % base];
    ndigits = digits + sizeof(digits) - first;

    /* A zero with precision 0 prints no digits at all, per C99. */
    min_digits = spec->precision < 0 ? 1 : (size_t)spec->precision;
    zeros = min_digits > ndigits ? min_digits - ndigits : 0;
    /* '#' with octal asks for a leading 0, which only precision padding might already give. */
    if ((spec->flags & FMT_ALT) && base == 8 && zeros == 0)
        zeros = 1;

    body = prefix_len + zeros + ndigits;
    if ((spec->flags & (FMT_ZERO | FMT_LEFT)) == FMT_ZERO && spec->precision < 0 &&
        spec->width > body) {
        zeros += spec->width - body;
        body = spec->width;
    }
    pad = spec->width > body ? spec->width - body : 0;

    if (!(spec->flags & FMT_LEFT))
        sink_fill(out, ' ', pad);
    sink_write(out, prefix, prefix_len);
    sink_fill(out, '0', zeros);
    sink_write(out, first, ndigits);
    if (spec->flags & FMT_LEFT)
        sink_fill(out, ' ', pad);
}

static size_t format_hex(char *buf, uintptr_t value, size_t min_digits)
{
    char digits[2 * sizeof(value)];
    size_t n = 0, len = 0;

    do {
        digits[n++] = "0123456789abcdef"[value & 0xf];
        value >>= 4;
    } while (value != 0);
    while (n < min_digits)
        digits[n++] = '0';
    buf[len++] = '0';
    buf[len++] = 'x';
    while (n > 0)
        buf[len++] = digits[--n];
    return len;
}

static void emit_pointer(struct sink *out, const struct fmt_spec *spec, uintptr_t addr,
                         char extension)
{
    char text[256];
    int len = -1;

    if (extension == 'p') {
        emit_text(out, spec, text, format_hex(text, addr, 2 * sizeof(addr)));
        return;
    }
    if (printf_symbol_hook)
        len = printf_symbol_hook(text, sizeof(text), addr, extension == 'S');
    if (len < 0)
        len = (int)format_hex(text, addr, 1);
    emit_text(out, spec, text, MIN((size_t)len, sizeof(text) - 1));
}

static long long fetch_signed(va_list *args, enum fmt_length length)
{
    switch (length) {
    case LEN_HH:
        return (signed char)va_arg(*args, int);
    case LEN_H:
        return (short)va_arg(*args, int);
    case LEN_L:
        return va_arg(*args, long);
    case LEN_LL:
        return va_arg(*args, long long);
    case LEN_Z:
        return va_arg(*args, ssize_t);
    case LEN_T:
        return va_arg(*args, ptrdiff_t);
    case LEN_J:
        return va_arg(*args, intmax_t);
    default:
        return va_arg(*args, int);
    }
}

static unsigned long long fetch_unsigned(va_list *args, enum fmt_length length)
{
    switch (length) {
    case LEN_HH:
        return (unsigned char)va_arg(*args, unsigned int);
    case LEN_H:
        return (unsigned short)va_arg(*args, unsigned int);
    case LEN_L:
        return va_arg(*args, unsigned long);
    case LEN_LL:
        return va_arg(*args, unsigned long long);
    case LEN_Z:
        return va_arg(*args, size_t);
    case LEN_T:
        return (size_t)va_arg(*args, ptrdiff_t);
    case LEN_J:
        return va_arg(*args, uintmax_t);
    default:
        return va_arg(*args, unsigned int);
    }
}

/* Digits of a width or precision; absurd values saturate instead of overflowing. */
static int parse_count(const char **fmt)
{
    int value = 0;

    for (; **fmt >= '0' && **fmt <= '9'; (*fmt)++) {
        int digit = **fmt - '0';

        value = value > (INT_MAX - digit) / 10 ? INT_MAX : value * 10 + digit;
    }
    return value;
}

/* Parses flags, width, precision and length after '%'; returns the conversion character. */
static char parse_spec(const char **fmt, va_list *args, struct fmt_spec *spec)
{
    const char *p = *fmt;

    spec->flags = 0;
    spec->width = 0;
    spec->precision = -1;
    spec->length = LEN_DEFAULT;

    for (;; p++) {
        if (*p == '-')
            spec->flags |= FMT_LEFT;
        else if (*p == '+')
            spec->flags |= FMT_PLUS;
        else if (*p == ' ')
            spec->flags |= FMT_SPACE;
        else if (*p == '#')
            spec->flags |= FMT_ALT;
        else if (*p == '0')
            spec->flags |= FMT_ZERO;
        else
            break;
    }

    if (*p == '*') {
        int width = va_arg(*args, int);

        p++;
        /* A negative width argument means '-' and its magnitude. */
        if (width < 0) {
            spec->flags |= FMT_LEFT;
            spec->width = 0u - (unsigned int)width;
        } else {
            spec->width = (size_t)width;
        }
    } else {
        spec->width = (size_t)parse_count(&p);
    }

    if (*p == '.') {
        p++;
        if (*p == '*') {
            p++;
            /* A negative precision argument counts as none given. */
            spec->precision = va_arg(*args, int);
            if (spec->precision < 0)
                spec->precision = -1;
        } else {
            spec->precision = parse_count(&p);
        }
    }

    switch (*p) {
    case 'h':
        p++;
        spec->length = LEN_H;
        if (*p == 'h') {
            p++;
            spec->length = LEN_HH;
        }
        break;
    case 'l':
        p++;
        spec->length = LEN_L;
        if (*p == 'l') {
            p++;
            spec->length = LEN_LL;
        }
        break;
    case 'z':
        p++;
        spec->length = LEN_Z;
        break;
    case 't':
        p++;
        spec->length = LEN_T;
        break;
    case 'j':
        p++;
        spec->length = LEN_J;
        break;
    default:
        break;
    }

    *fmt = p;
    return *p;
}

int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
    struct sink out = {buf, size, 0};
    va_list args;

    /* A copy, so helpers can take its address: a va_list parameter may be an array. */
    va_copy(args, ap);

    while (*fmt) {
        const char *spec_start = fmt;
        const char *literal_end;
        struct fmt_spec spec;
        char conversion;

        if (*fmt != '%') {
            literal_end = strchr(fmt, '%');
            if (!literal_end)
                literal_end = fmt + strlen(fmt);
            sink_write(&out, fmt, literal_end - fmt);
            fmt = literal_end;
            continue;
        }

        fmt++;
        conversion = parse_spec(&fmt, &args, &spec);
        if (conversion != '\0')
            fmt++;

        switch (conversion) {
        case 'd':
        case 'i': {
            long long value = fetch_signed(&args, spec.length);
            unsigned long long magnitude =
                value < 0 ? 0ULL - (unsigned long long)value : (unsigned long long)value;
            char sign = '\0';

            if (value < 0)
                sign = '-';
            else if (spec.flags & FMT_PLUS)
                sign = '+';
            else if (spec.flags & FMT_SPACE)
                sign = ' ';

            emit_integer(&out, &spec, magnitude, sign, 10, false);
            break;
        }
        case 'u':
            emit_integer(&out, &spec, fetch_unsigned(&args, spec.length), '\0', 10, false);
            break;
        case 'x':
        case 'X':
            emit_integer(&out, &spec, fetch_unsigned(&args, spec.length), '\0', 16,
                         conversion == 'X');
            break;
        case 'o':
            emit_integer(&out, &spec, fetch_unsigned(&args, spec.length), '\0', 8, false);
            break;
        case 'c': {
            char c = (char)va_arg(args, int);

            emit_text(&out, &spec, &c, 1);
            break;
        }
        case 's': {
            const char *s = va_arg(args, const char *);

            if (!s)
                s = "(null)";
            emit_text(&out, &spec, s,
                      spec.precision < 0 ? strlen(s) : strnlen(s, (size_t)spec.precision));
            break;
        }
        case 'p': {
            uintptr_t addr = (uintptr_t)va_arg(args, void *);
            char extension = 'p';

            if (*fmt == 'S' || *fmt == 's')
                extension = *fmt++;
            emit_pointer(&out, &spec, addr, extension);
            break;
        }
        case '%':
            sink_put(&out, '%');
            break;
        default:
            /* Unknown or cut-off conversions are shown as written rather than dropped. */
            sink_write(&out, spec_start, fmt - spec_start);
            break;
        }
    }
    va_end(args);

    if (size > 0)
        buf[MIN(out.len, size - 1)] = '\0';
    return out.len > INT_MAX ? INT_MAX : (int)out.len;
}

int snprintf(char *buf, size_t size, const char *fmt, ...)
{
    va_list ap;
    int len;

    va_start(ap, fmt);
    len = vsnprintf(buf, size, fmt, ap);
    va_end(ap);
    return len;
}

int vscnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
    int len = vsnprintf(buf, size, fmt, ap);

    if (size == 0)
        return 0;
    return (size_t)len < size ? len : (int)(size - 1);
}

int scnprintf(char *buf, size_t size, const char *fmt, ...)
{
    va_list ap;
    int len;

    va_start(ap, fmt);
    len = vscnprintf(buf, size, fmt, ap);
    va_end(ap);
    return len;
}
