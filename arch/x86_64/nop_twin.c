/*
 * The untraced twin of ftrace_test_empty, for `bench nop`: this file is in the Makefile's
 * NOTRACE_FILES, so the only difference between the two is the 5-byte NOP.
 *
 * Written in assembly because the compiler does not emit the same body for both: -pg
 * makes it keep the frame-pointer prologue of the traced one, while without -pg it
 * drops the prologue of an empty leaf function, whatever -fno-omit-frame-pointer says.
 * This is the traced function's body after its call site, instruction for instruction.
 */
#include <kernel/ftrace_test.h>

__asm__(".pushsection .text.ftrace_test_empty_untraced, \"ax\", @progbits\n"
        ".globl ftrace_test_empty_untraced\n"
        ".type ftrace_test_empty_untraced, @function\n"
        ".p2align 4\n"
        "ftrace_test_empty_untraced:\n"
        "    push %rbp\n"
        "    mov %rsp, %rbp\n"
        "    pop %rbp\n"
        "    ret\n"
        ".size ftrace_test_empty_untraced, . - ftrace_test_empty_untraced\n"
        ".popsection\n");
