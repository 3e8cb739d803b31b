#ifndef LIB_CRC32_H
#define LIB_CRC32_H

#include <kernel/compiler.h>

/*
 * CRC-32 as zlib, Ethernet and PNG compute it (reflected polynomial 0xedb88320, initial
 * and final inversion): crc32(0, data, len), or continue with a previous result.
 * Python's zlib.crc32 gives the same value, so the host can check what the kernel sends.
 */
uint32_t crc32(uint32_t crc, const void *data, size_t len);

#endif
