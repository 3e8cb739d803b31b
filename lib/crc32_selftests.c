#include <kernel/selftest.h>
#include <lib/crc32.h>
#include <lib/string.h>

/* The check value every CRC-32 catalogue gives for "123456789", and a run split in two. */
SELFTEST(crc32_check_value)
{
    static const char digits[] = "123456789";
    ASSERT_EQ(crc32(0, digits, 9), 0xcbf43926u);
    ASSERT_EQ(crc32(crc32(0, digits, 4), digits + 4, 5), 0xcbf43926u);
    ASSERT_EQ(crc32(0, digits, 0), 0u);
    /* zlib.crc32(b"\0" * 32) */
    static const uint8_t zeros[32];
    ASSERT_EQ(crc32(0, zeros, sizeof(zeros)), 0x190a55adu);
}
