"""A short fixed-seed run of tests/fuzz.py on the shared boot: 300 lines from the shell's
grammar and every tracefs file's vocabulary, hostile values and raw bytes; the prompt
must come back after each, no fault text may appear, and tracing must still trace a
known call exactly every 50 lines and at the end. `make fuzz` runs longer ones."""

import fuzz
from harness import tracefmt as tf

SEED = 20261125
LINES = 300
TIMEOUT = 60

setup = teardown = tf.reset_tracing


def test_fixed_seed(sh):
    fuzz.fuzz(sh, SEED + sh.smp, LINES, fuzz.shell_commands(sh))
