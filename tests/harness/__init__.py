"""The pieces of tests/run.py: QEMU console, .t scripts, KTAP, ISO cache."""
