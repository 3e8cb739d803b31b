"""The pieces of tests/run.py: .t scripts, KTAP, ISO cache, trace checks, host checks.
The QEMU command line and the console are tools/fentros_machine's."""
