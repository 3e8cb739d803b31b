/*
 * error_log: why a tracefs write was refused, in Linux's form, for the parsers that have
 * more to say than an errno (event filters now; probe definitions next).
 */
#ifndef KERNEL_TRACE_TRACE_ERROR_LOG_H
#define KERNEL_TRACE_TRACE_ERROR_LOG_H

/* Linux keeps the newest 16 entries. */
#define TRACE_ERROR_LOG_MAX 16

/*
 * Adds an entry:
 *   [    3.340436] LOCATION: error: MESSAGE
 *     Command: COMMAND
 *              ^            (under COMMAND's character at caret_pos)
 * Process context only (it allocates); a failed allocation drops the entry.
 */
void trace_error_log(const char *location, const char *message, const char *command,
                     unsigned caret_pos);

/* The number of entries now held (for tests). */
unsigned trace_error_log_count(void);

#endif
