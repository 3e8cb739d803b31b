"""A fentros machine on the host: the one QEMU command line every boot uses (qemu) and the
serial console that drives its shell (console).

tools/fentros-trace boots through it, and so do the test harness (tests/run.py) and the
bench drivers, so a trace, a test and a figure always come from the same machine.
"""
