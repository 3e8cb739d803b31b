# fentros: one Makefile for the kernel, its ISO, and the host tools.
#   make            build/kernel.elf and build/fentros.iso
#   make run        boot it in QEMU with the serial console on this terminal
#   make test       the QEMU test harness (N passed, N failed), after format-check and check-refs
#   make bench      the tracer's costs, one table
#   make bench-linux the same costs measured on Debian's Linux in the same QEMU, side by side
#   make bench-export what recording a trace.dat costs (tools/fentros-trace)
#   make fuzz       the seeded shell/tracefs fuzzer (SEED=N LINES=N)
#   make soak       tracing changed every way at once on 4 CPUs for MINUTES=N, then the books
#   make typecheck  mypy --strict over the host tool (tools/fentros-trace), part of make test
#   make deps       install the host tools this needs (Debian)

BUILD      := build
CC         := gcc
LD         := ld
NASM       := nasm
OBJCOPY    := objcopy
PYTHON     := python3

QEMU       := qemu-system-x86_64
QEMU_ACCEL ?= tcg
SMP        ?= 2
MEM        ?= 256M
CMDLINE    ?=
# QEMU_REBOOT=1: a reset of the guest boots it again (RAM kept) instead of ending QEMU.
QEMU_REBOOT ?=

GCC_INCLUDE := $(shell $(CC) -print-file-name=include)

CFLAGS_BASE := -std=gnu11 -ffreestanding -nostdinc -isystem $(GCC_INCLUDE) \
	-Iinclude -Iarch/x86_64/include \
	-mcmodel=kernel -mno-red-zone -mno-sse -mno-sse2 -mno-mmx -mno-3dnow -mno-avx \
	-fno-pic -fno-pie -fno-stack-protector -fno-omit-frame-pointer \
	-fno-asynchronous-unwind-tables -fno-common -ffunction-sections \
	-O2 -g -Wall -Wextra -Werror -Wno-unused-parameter -Wmissing-prototypes \
	-Wmissing-declarations -MMD -MP

# The tracer's private headers (kernel/trace/trace_internal.h and the subsystems' headers
# under kernel/trace/) are found only from these directories, one reason each; the rest of
# the kernel sees <kernel/ftrace.h> and <kernel/trace_events.h>.
TRACE_PRIVATE_DIRS := kernel/trace/   # the tracer itself
TRACE_PRIVATE_DIRS += kernel/bench/   # rows time the ring buffer alone, size its records, and
                                      # save and restore the tracer's settings around a run
TRACE_PRIVATE_DIRS += kernel/torture/ # the commands check the tracer's sites and books
TRACE_PRIVATE_INC  := -iquote kernel/trace

# Every function gets a 5-byte `call __fentry__` as its first instruction, and its address
# in __mcount_loc; dynamic ftrace turns these into NOPs at boot.
TRACE_FLAGS := -pg -mfentry -mrecord-mcount

# Built without TRACE_FLAGS, one reason each. The tracer must never trace itself, nor
# anything it runs through on the way from a traced call to the ring buffer.
NOTRACE_DIRS  := kernel/trace/          # the tracer: ops, ring buffer, output, tracefs files
NOTRACE_DIRS  += kernel/torture/        # their ftrace callbacks run inside the tracer, and the
                                        # checker reads the sites it is checking
NOTRACE_FILES := lib/string.c           # mem*/str* run inside the tracer and the patching path
NOTRACE_FILES += lib/printf.c           # formats trace output and panic reports
NOTRACE_FILES += lib/sort.c             # sorts and searches call-site records
NOTRACE_FILES += kernel/printk.c        # panic and ftrace bug reports go through it
NOTRACE_FILES += kernel/panic.c         # must work when the tracer is broken
NOTRACE_FILES += kernel/spinlock.c      # locks taken by the tracer and the patching code
NOTRACE_FILES += kernel/symbols.c       # symbol lookup for trace output and backtraces
NOTRACE_FILES += arch/x86_64/traps.c    # exception dispatch, including the int3 of live patching
NOTRACE_FILES += arch/x86_64/serial.c   # the console that panic and dump write to
NOTRACE_FILES += arch/x86_64/unwind.c   # backtraces for panic and the stack tracer's callback
NOTRACE_FILES += arch/x86_64/text_poke.c # writes kernel text; tracing it would patch the patcher
NOTRACE_FILES += arch/x86_64/kprobes.c  # the int3 handler of kprobes, its slots and emulation
NOTRACE_FILES += arch/x86_64/tsc.c      # the trace clock
NOTRACE_FILES += arch/x86_64/paging.c   # maps the writable alias in the middle of a patch batch
NOTRACE_FILES += arch/x86_64/apic.c     # sends the IPIs of a patch batch's sync rounds
NOTRACE_FILES += arch/x86_64/nop_twin.c # the untraced twin that `bench nop` compares against
NOTRACE_FILES += kernel/smp.c           # the sync rounds and cross-CPU calls of patching
NOTRACE_FILES += kernel/synchronize.c   # waits out the tracer's callbacks before an op goes

NOTRACE := $(strip $(NOTRACE_FILES))

# The benchmarks' functions start on a 2 KiB boundary, and each is under 2 KiB, so none
# straddles a page: under TCG a loop whose jump crosses a page pays a code lookup on every
# pass (bench_wakeup_sample did, and the rows it times read 100 ns high). About 100 KiB
# of padding in the image.
BENCH_ALIGN := -falign-functions=2048

# Not probed, on purpose and in one place: kprobes refuse every function of these (the
# kprobe blacklist, /sys/kernel/debug/kprobes/blacklist). The linker gathers their text
# into one range, [__kprobes_text_start, __kprobes_text_end), from $(BUILD)/noprobe.ld.
NOPROBE := kernel/trace/              # the tracer and the probe machinery: the handlers run it
NOPROBE += arch/x86_64/kprobes.c      # the int3 handler, its slots and emulation
NOPROBE += arch/x86_64/traps.c        # exception dispatch on the way to the handler
NOPROBE += arch/x86_64/entry.asm      # the interrupt entry and exit stubs
NOPROBE += arch/x86_64/switch.asm     # the context switch: between two stacks
NOPROBE += arch/x86_64/ftrace_entry.asm arch/x86_64/ftrace_graph.asm # ftrace's way in and out
NOPROBE += boot/boot.asm              # boot code, and the 64-bit entry of every CPU
NOPROBE += arch/x86_64/nofault.asm    # loads whose faults are fixed up by address
NOPROBE += arch/x86_64/text_poke.c    # writes the int3s
NOPROBE += arch/x86_64/paging.c       # maps the text-poke alias
NOPROBE += arch/x86_64/unwind.c       # stack traces of panics and probes
NOPROBE += arch/x86_64/tsc.c          # the trace clock of every probe record
NOPROBE += arch/x86_64/serial.c       # the console of panic reports
NOPROBE += lib/string.c lib/printf.c  # memcpy and formatting inside the handlers
NOPROBE += kernel/symbols.c           # symbol fetch types and trace output
NOPROBE += kernel/printk.c kernel/panic.c # must work when a probe goes wrong
NOPROBE += kernel/spinlock.c          # locks of the ring buffer and the patching code
NOPROBE += kernel/smp.c kernel/synchronize.c # the sync rounds of arming and removal
noprobe_pattern = $(if $(filter %/,$(1)),*$(1)[a-z]*.o,$(if $(filter %.asm,$(1)),*$(1).o,*$(1:.c=.o)))
NOTRACE_DIR_LIST := $(strip $(NOTRACE_DIRS))

in_notrace_dir = $(strip $(foreach d,$(NOTRACE_DIR_LIST),$(filter $(d)%,$(1))))
is_notrace = $(or $(filter $(NOTRACE),$(1)),$(call in_notrace_dir,$(1)))

C_SRCS   := $(filter-out arch/x86_64/asm_offsets.c arch/x86_64/tools/%,$(sort $(shell find kernel lib arch samples -name '*.c')))
# The scale kernel (make bench-scale) is this kernel plus SCALE_FUNCS generated traceable
# functions, built in a BUILD of its own; tools/genscale.py writes them under it.
SCALE_FUNCS ?=
ifneq ($(strip $(SCALE_FUNCS)),)
C_SRCS   += $(shell $(PYTHON) tools/genscale.py $(SCALE_FUNCS) $(BUILD)/gen/scale)
endif
ASM_SRCS := $(sort $(shell find boot arch -name '*.asm'))
OBJS     := $(patsubst %.c,$(BUILD)/obj/%.o,$(C_SRCS)) $(patsubst %.asm,$(BUILD)/obj/%.asm.o,$(ASM_SRCS))

KERNEL   := $(BUILD)/kernel.elf
ISO      := $(BUILD)/fentros.iso
GENSYMS  := $(BUILD)/tools/gensyms
GENINSN  := $(BUILD)/tools/geninsn
OBJDUMP  ?= objdump

.PHONY: FORCE all iso run test bench bench-linux bench-export bench-scale fuzz soak icount ftracetest deps clean check-deps format format-check typecheck check-refs
all: $(KERNEL) $(ISO)
iso: $(ISO)

$(BUILD)/obj/%.o: %.c Makefile
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(CFLAGS_BASE) $(if $(filter $(addsuffix %,$(TRACE_PRIVATE_DIRS)),$<),$(TRACE_PRIVATE_INC)) \
		$(if $(filter kernel/bench/%,$<),$(BENCH_ALIGN)) \
		$(if $(call is_notrace,$<),,$(TRACE_FLAGS)) -c $< -o $@

# The numbers assembly shares with C (struct offsets, constants), generated from
# arch/x86_64/asm_offsets.c: compiled to assembly only, its marker lines become %defines.
ASM_OFFSETS := $(BUILD)/gen/asm-offsets.inc
$(ASM_OFFSETS): arch/x86_64/asm_offsets.c Makefile
	@mkdir -p $(dir $@)
	@echo "  GEN     $@"
	@$(CC) $(CFLAGS_BASE) -S -o $@.s $<
	@sed -n 's/^[[:space:]]*\.ascii "->\([A-Z_0-9]*\) \(-\{0,1\}[0-9]*\)"$$/%define \1 \2/p' $@.s > $@.tmp
	@test -s $@.tmp || { echo "asm-offsets: no definitions generated" >&2; exit 1; }
	@rm -f $@.s; mv $@.tmp $@

$(BUILD)/obj/%.asm.o: %.asm Makefile $(ASM_OFFSETS)
	@mkdir -p $(dir $@)
	@echo "  NASM    $<"
	@$(NASM) -f elf64 -g -F dwarf -Iarch/x86_64/include/ -I$(BUILD)/gen/ -MD $@.d -MP $< -o $@

$(BUILD)/linker.ld: linker.ld Makefile $(BUILD)/noprobe.ld
	@mkdir -p $(BUILD)
	@$(CC) -E -P -x c -undef $< -o $@

$(BUILD)/noprobe.ld: Makefile
	@mkdir -p $(BUILD)
	@printf '%s\n' $(foreach f,$(NOPROBE),'$(call noprobe_pattern,$(f))(.text .text.*)') > $@

$(GENSYMS): tools/gensyms.c include/kernel/ksymtab.h
	@mkdir -p $(dir $@)
	$(CC) -O2 -Wall -Wextra -Werror -Iinclude -o $@ $<

$(GENINSN): arch/x86_64/tools/geninsn.c arch/x86_64/include/arch/insn_table.h
	@mkdir -p $(dir $@)
	$(CC) -O2 -Wall -Wextra -Werror -Iarch/x86_64/include -o $@ $<

# Two links: the first gives the addresses, gensyms turns its symbols into a table and
# geninsn turns objdump's disassembly of it into the instruction table (for kprobes at
# any instruction); the second embeds both. The tables live in the last segment, so
# nothing moves; the final check proves it.
EMBED = $(OBJCOPY) -I binary -O elf64-x86-64 -B i386:x86-64 \
	--rename-section .data=$(1),alloc,load,readonly,data,contents
$(BUILD)/ksyms.empty.o: $(GENSYMS) $(GENINSN)
	$(GENSYMS) --empty $(BUILD)/ksyms.empty.bin
	$(GENINSN) --empty $(BUILD)/kinsn.empty.bin
	$(call EMBED,.ksymtab) $(BUILD)/ksyms.empty.bin $@
	$(call EMBED,.kinsntab) $(BUILD)/kinsn.empty.bin $(BUILD)/kinsn.empty.o

$(KERNEL): $(OBJS) $(BUILD)/linker.ld $(BUILD)/ksyms.empty.o $(GENSYMS) $(GENINSN)
	@echo "  LD      $@ (two links, symbol and instruction tables embedded)"
	@$(LD) -n -nostdlib -z max-page-size=4096 -z noexecstack -L $(BUILD) -T $(BUILD)/linker.ld -o $(BUILD)/kernel.pass1.elf \
		$(OBJS) $(BUILD)/ksyms.empty.o $(BUILD)/kinsn.empty.o
	@$(GENSYMS) $(BUILD)/kernel.pass1.elf $(BUILD)/ksyms.bin
	@$(OBJDUMP) -d -w -z -j .text $(BUILD)/kernel.pass1.elf > $(BUILD)/kernel.pass1.dis
	@$(GENINSN) $(BUILD)/kernel.pass1.dis $(BUILD)/kinsn.bin
	@$(call EMBED,.ksymtab) $(BUILD)/ksyms.bin $(BUILD)/ksyms.o
	@$(call EMBED,.kinsntab) $(BUILD)/kinsn.bin $(BUILD)/kinsn.o
	@$(LD) -n -nostdlib -z max-page-size=4096 -z noexecstack -L $(BUILD) -T $(BUILD)/linker.ld -o $@.tmp \
		$(OBJS) $(BUILD)/ksyms.o $(BUILD)/kinsn.o
	@$(GENSYMS) --check $@.tmp $(BUILD)/ksyms.bin
	@mv $@.tmp $@

# The command line the ISO was made with: a new CMDLINE makes the ISO again.
$(BUILD)/cmdline.txt: FORCE
	@mkdir -p $(BUILD)
	@echo '$(CMDLINE)' | cmp -s - $@ || echo '$(CMDLINE)' > $@
FORCE:

$(ISO): $(KERNEL) iso/grub.cfg.in tools/mkiso.sh $(BUILD)/cmdline.txt
	@echo "  ISO     $@"
	@tools/mkiso.sh $(KERNEL) $@ $(CMDLINE)

QEMU_FLAGS = -accel $(QEMU_ACCEL) -smp $(SMP) -m $(MEM) -cdrom $(ISO) -display none \
	-serial stdio $(if $(QEMU_REBOOT),,-no-reboot) -device isa-debug-exit,iobase=0xf4,iosize=0x04

# poweroff leaves QEMU through isa-debug-exit with status 1: that is success here.
run: check-deps all
	@echo "fentros: serial console below; 'poweroff' or Ctrl-A X quits."
	-$(QEMU) $(QEMU_FLAGS) -monitor none; true

test: check-deps all format-check typecheck check-refs
	$(PYTHON) tests/run.py --smp 1,2,4 --keep-going

# The C sources as .clang-format describes them. format rewrites them in place;
# format-check lists the files that differ and fails if there are any.
FORMAT_SRCS = $(shell git ls-files '*.c' '*.h' 2>/dev/null || find kernel lib arch include tools tests -name '*.[ch]')
CLANG_FORMAT := clang-format

format: check-deps
	@$(CLANG_FORMAT) -i $(FORMAT_SRCS)

# One clang-format over every file first (a process per file took 8 s of make test); only
# when that one finds something does a file-by-file pass name the files.
format-check: check-deps
	@if ! $(CLANG_FORMAT) --dry-run -Werror $(FORMAT_SRCS) >/dev/null 2>&1; then \
	bad=""; for f in $(FORMAT_SRCS); do $(CLANG_FORMAT) --dry-run -Werror $$f >/dev/null 2>&1 || bad="$$bad $$f"; done; \
	if [ -n "$$bad" ]; then echo "format-check: not formatted (run make format):$$bad"; exit 1; fi; fi; \
	echo "format-check: every C file is formatted"

# The host tool's Python checked as typed code: tools/fentros-trace, its packages and their
# unit tests (mypy caches under build/, so a rerun takes a fraction of a second).
TYPED_PY := tools/fentros-trace tools/fentros_trace tools/fentros_machine tests/tools \
	tests/ftracetest

typecheck: check-deps
	@MYPYPATH=tools mypy --strict --cache-dir $(BUILD)/mypy $(TYPED_PY)

# Every file that a comment, a document or a test script names must be in the tree, so a
# move cannot leave stale names behind (tools/check_refs.py; its unit tests run in make test).
check-refs:
	@$(PYTHON) tools/check_refs.py

bench: check-deps all
	$(PYTHON) tests/bench.py --smp $(SMP) --mem $(MEM) --accel $(QEMU_ACCEL)

# Fetches Debian's kernel with apt-get download (cached in ~/.cache/linux-ref, never in
# the tree) and builds tools/linux-bench/syscall_loop.c statically for its initramfs.
# RESULTS=1 rewrites the rows it measured in tests/BENCH_RESULTS.md's current table.
bench-linux: check-deps all
	$(PYTHON) tests/bench_linux.py --smp $(SMP) --mem $(MEM) --accel $(QEMU_ACCEL) \
		$(if $(RESULTS),--results)

# The seeded shell and tracefs fuzzer (tests/fuzz.py): SEED, LINES, SMP.
SEED  ?= 1
LINES ?= 2000
fuzz: check-deps all
	$(PYTHON) tests/fuzz.py --seed $(SEED) --lines $(LINES) --smp $(SMP)

# Everything that changes tracing at once on 4 CPUs, then the buffer's books (tests/soak.py).
MINUTES ?= 10
soak: check-deps all
	$(PYTHON) tests/soak.py --minutes $(MINUTES) --smp 4

# The tracer at Linux's scale: a second kernel (build/scale/, never instead of the normal
# one) with SCALE_N extra traceable functions, booted and measured (tests/bench_scale.py).
SCALE_N ?= 35000
bench-scale: check-deps all
	@$(MAKE) --no-print-directory BUILD=build/scale SCALE_FUNCS=$(SCALE_N) CMDLINE= all
	$(PYTHON) tests/bench_scale.py --iso build/scale/fentros.iso --smp $(SMP) --funcs $(SCALE_N) \
		$(if $(SCALE_LINUX),--linux)

# A full default buffer recorded with tools/fentros-trace: transfer rate, record time,
# the host's widening cost per event.
bench-export: check-deps all
	$(PYTHON) tests/bench_export.py --smp $(SMP)

# Linux 6.1's own ftrace selftests run on the host against a mounted fentros (Debian's
# linux-source-6.1, cached in ~/.cache/fentros/ftracetest, never in the tree); fails when a
# test of tests/ftracetest/expected_pass.txt does not pass. make test runs it too.
ftracetest: check-deps all
	$(PYTHON) tests/ftracetest/ftracetest.py

# The instructions of one traced call under each tracer, single-stepped in QEMU's gdbstub.
# RESULTS=1 rewrites the function and function_graph rows of tests/BENCH_RESULTS.md.
icount: check-deps all
	$(PYTHON) tests/icount.py nop
	$(PYTHON) tests/icount.py function $(if $(RESULTS),--results)
	$(PYTHON) tests/icount.py function_graph $(if $(RESULTS),--results)
	$(PYTHON) tests/icount.py sched_switch

# Host tools: package name : a command it provides.
DEP_PKGS := qemu-system-x86:qemu-system-x86_64 nasm:nasm grub-pc-bin:/usr/lib/grub/i386-pc/modinfo.sh \
	grub-common:grub-mkrescue xorriso:xorriso mtools:mformat python3:python3 gcc:gcc \
	binutils:ld binutils:objdump make:make libc6-dev:/usr/lib/x86_64-linux-gnu/libc.a gdb:gdb \
	clang-format:clang-format trace-cmd:trace-cmd mypy:mypy \
	fuse3:fusermount3 python3-fusepy:/usr/lib/python3/dist-packages/fusepy.py

check-deps:
	@missing=""; for pair in $(DEP_PKGS); do pkg=$${pair%%:*}; cmd=$${pair#*:}; \
		if [ "$${cmd#/}" != "$$cmd" ]; then [ -e "$$cmd" ] || missing="$$missing $$pkg"; \
		else command -v "$$cmd" >/dev/null 2>&1 || missing="$$missing $$pkg"; fi; done; \
	if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" = 0 ]; then echo "installing:$$missing"; \
			apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
		else echo "missing host tools; run: sudo apt-get install -y$$missing"; exit 1; fi; fi

deps: check-deps
	@echo "all host tools present"

clean:
	rm -rf $(BUILD)

-include $(OBJS:.o=.d)
-include $(BUILD)/obj/boot/*.asm.o.d
