; The target every call site is compiled against (-pg -mfentry). Sites are turned into
; NOPs at boot, so this only runs before that, and it must do nothing.

global __fentry__:function (__fentry__.end - __fentry__)

section .text
__fentry__:
    ret
.end:
