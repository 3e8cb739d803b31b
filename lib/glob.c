#include <kernel/compiler.h>
#include <lib/glob.h>

/*
 * Evaluates the bracket expression whose body starts at p (just past '['). The first member
 * may be ']' without closing the class, and '-' is a range only between two members. Returns
 * the pattern position after the closing ']', or NULL when the class never closes, in which
 * case the caller treats the '[' as an ordinary character.
 */
static const char *match_class(const char *p, unsigned char c, bool *matched)
{
    bool negated = *p == '!' || *p == '^';
    bool hit = false;
    bool first = true;

    if (negated)
        p++;
    while (first || *p != ']') {
        unsigned char low = (unsigned char)*p++;
        unsigned char high = low;

        first = false;
        if (low == '\0')
            return NULL;
        if (p[0] == '-' && p[1] != ']') {
            high = (unsigned char)p[1];
            if (high == '\0')
                return NULL;
            p += 2;
        }
        if (low <= c && c <= high)
            hit = true;
    }
    *matched = hit != negated;
    return p + 1;
}

/*
 * Greedy matching with a single backtrack point: on a mismatch, the most recent '*' absorbs
 * one more character and matching resumes after it. An earlier '*' never needs revisiting,
 * because whatever it could absorb the later one can absorb as well.
 */
bool glob_match(const char *pattern, const char *str)
{
    const char *p = pattern;
    const char *s = str;
    const char *star_pattern = NULL;
    const char *star_string = NULL;

    for (;;) {
        unsigned char c = (unsigned char)*s;
        unsigned char literal = (unsigned char)*p;
        const char *next = p + 1;
        bool matched;

        switch (*p) {
        case '*':
            if (p[1] == '\0')
                return true;
            star_pattern = p + 1;
            star_string = s;
            p++;
            continue;
        case '?':
            matched = c != '\0';
            break;
        case '[':
            if (c == '\0')
                return false;
            next = match_class(p + 1, c, &matched);
            if (next)
                break;
            next = p + 1;
            matched = c == '[';
            break;
        case '\\':
            literal = (unsigned char)p[1];
            /* A trailing backslash escapes the end of the pattern. */
            next = literal ? p + 2 : p + 1;
            matched = c == literal;
            break;
        default:
            matched = c == literal;
            break;
        }

        if (matched) {
            if (c == '\0')
                return true;
            p = next;
            s++;
            continue;
        }
        if (c == '\0' || !star_pattern)
            return false;
        p = star_pattern;
        s = ++star_string;
    }
}
