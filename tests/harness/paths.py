"""Where the test drivers (run.py, bench.py, icount.py, soak.py, fuzz.py and the scripts
under trace/) find the tree's pieces and put what they make: one place for every path."""

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
SHELL_DIR = ROOT / "tests" / "shell"  # the .t scripts, one folder per area
TRACE_DIR = ROOT / "tests" / "trace"
KERNEL = ROOT / "build" / "kernel.elf"
ISO = ROOT / "build" / "fentros.iso"
ISO_DIR = ROOT / "build" / "test-isos"  # the test ISOs, one per kernel command line
TEST_LOG_DIR = ROOT / "build" / "test-logs"
BENCH_LOG_DIR = ROOT / "build" / "bench-logs"
MKISO = ROOT / "tools" / "mkiso.sh"
GRUB_TEMPLATE = ROOT / "iso" / "grub.cfg.in"

# Every test ISO powers off on a panic, so a crash ends QEMU instead of hanging the run.
TEST_CMDLINE = "panic=poweroff"
