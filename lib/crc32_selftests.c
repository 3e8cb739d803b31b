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

/* Long runs take the sliced path: the same values as zlib, and as the byte loop in pieces. */
SELFTEST(crc32_sliced)
{
    static uint8_t buf[1001];
    for (unsigned i = 0; i < sizeof(buf); i++)
        buf[i] = (uint8_t)(i * 7 + 3);
    /* zlib.crc32(bytes((i * 7 + 3) & 0xff for i in range(1001))[1:]), unaligned on purpose */
    EXPECT_EQ(crc32(0, buf + 1, 1000), 0x42d75771u);
    uint32_t pieces = 0;
    for (unsigned at = 1; at < sizeof(buf); at += 40)
        pieces = crc32(pieces, buf + at, MIN(40u, sizeof(buf) - at));
    EXPECT_EQ(pieces, crc32(0, buf + 1, 1000));
}
