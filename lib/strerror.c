#include <kernel/compiler.h>
#include <kernel/errno.h>
#include <lib/printf.h>

static const char *const errno_text[] = {
    [0] = "Success",
    [EPERM] = "Operation not permitted",
    [ENOENT] = "No such file or directory",
    [ESRCH] = "No such process",
    [EINTR] = "Interrupted system call",
    [EIO] = "Input/output error",
    [ENXIO] = "No such device or address",
    [E2BIG] = "Argument list too long",
    [ENOEXEC] = "Exec format error",
    [EBADF] = "Bad file descriptor",
    [ECHILD] = "No child processes",
    [EAGAIN] = "Resource temporarily unavailable",
    [ENOMEM] = "Cannot allocate memory",
    [EACCES] = "Permission denied",
    [EFAULT] = "Bad address",
    [EBUSY] = "Device or resource busy",
    [EEXIST] = "File exists",
    [ENODEV] = "No such device",
    [ENOTDIR] = "Not a directory",
    [EISDIR] = "Is a directory",
    [EINVAL] = "Invalid argument",
    [ENFILE] = "Too many open files in system",
    [EMFILE] = "Too many open files",
    [ENOTTY] = "Inappropriate ioctl for device",
    [EFBIG] = "File too large",
    [ENOSPC] = "No space left on device",
    [ESPIPE] = "Illegal seek",
    [EROFS] = "Read-only file system",
    [EPIPE] = "Broken pipe",
    [ERANGE] = "Numerical result out of range",
    [ENAMETOOLONG] = "File name too long",
    [ENOSYS] = "Function not implemented",
    [ENOTEMPTY] = "Directory not empty",
    [ENODATA] = "No data available",
    [EOVERFLOW] = "Value too large for defined data type",
    [EILSEQ] = "Invalid or incomplete multibyte or wide character",
    [ETIMEDOUT] = "Connection timed out",
    [ECANCELED] = "Operation canceled",
};

const char *strerror(int err)
{
    static char unknown[32];
    /* Kernel calls return -errno; accept that form too so callers need not negate. */
    unsigned int code = err < 0 ? 0u - (unsigned int)err : (unsigned int)err;

    if (code < ARRAY_SIZE(errno_text) && errno_text[code])
        return errno_text[code];
    snprintf(unknown, sizeof(unknown), "Unknown error %d", err);
    return unknown;
}
