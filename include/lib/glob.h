#ifndef LIB_GLOB_H
#define LIB_GLOB_H

#include <stdbool.h>

/*
 * Shell-style match of the whole string: '*' any run, '?' one char, "[a-z]", "[!x]"/"[^x]"
 * classes, '\' escapes the next char. Same semantics as Linux's glob_match().
 */
bool glob_match(const char *pattern, const char *str);

#endif
