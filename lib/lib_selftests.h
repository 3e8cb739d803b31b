/* What the library self-tests (the *_selftests.c files of lib/) share. */
#ifndef LIB_LIB_SELFTESTS_H
#define LIB_LIB_SELFTESTS_H

#define TEST_UINT64_MAX 18446744073709551615ULL
#define TEST_INT64_MAX 9223372036854775807LL
#define TEST_INT64_MIN (-TEST_INT64_MAX - 1)

#endif
