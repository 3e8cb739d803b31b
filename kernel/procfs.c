/*
 * /proc: version, cmdline, meminfo, uptime, kallsyms, as on Linux. The system commands that show
 * the same facts (version, meminfo, uptime, dmesg, poweroff, reboot) live here too.
 */
#include <arch/power.h>
#include <arch/setup.h>
#include <kernel/bootinfo.h>
#include <kernel/errno.h>
#include <kernel/init.h>
#include <kernel/mm.h>
#include <kernel/percpu.h>
#include <kernel/printk.h>
#include <kernel/pseudofs.h>
#include <kernel/shell.h>
#include <kernel/symbols.h>
#include <kernel/thread.h>
#include <kernel/time.h>

static const char version_text[] =
    "fentros version " FENTROS_VERSION " (gcc " __VERSION__ ") #1 SMP " ARCH_NAME "\n";

static int show_version(struct seqbuf *s, void *data) { return seq_puts(s, version_text); }

static int show_cmdline(struct seqbuf *s, void *data)
{
    return seq_printf(s, "%s\n", boot_info.cmdline);
}

static int show_meminfo(struct seqbuf *s, void *data)
{
    struct mm_stats st;
    mm_get_stats(&st);
    seq_printf(s, "%-16s%8llu kB\n", "MemTotal:", (unsigned long long)(st.total_pages * 4));
    seq_printf(s, "%-16s%8llu kB\n", "MemFree:", (unsigned long long)(st.free_pages * 4));
    seq_printf(s, "%-16s%8llu kB\n", "MemAvailable:", (unsigned long long)(st.free_pages * 4));
    seq_printf(s, "%-16s%8llu kB\n",
               "KernelHeap:", (unsigned long long)(st.heap_bytes_mapped / 1024));
    seq_printf(s, "%-16s%8llu kB\n",
               "HeapInUse:", (unsigned long long)(st.heap_bytes_in_use / 1024));
    seq_printf(s, "%-16s%8llu\n", "HeapAllocs:", (unsigned long long)st.heap_allocs);
    return seq_printf(s, "%-16s%8llu\n", "HeapFrees:", (unsigned long long)st.heap_frees);
}

static int show_uptime(struct seqbuf *s, void *data)
{
    uint64_t up = clock_ns() / 10000000, idle = idle_time_ns() / 10000000;
    return seq_printf(s, "%llu.%02llu %llu.%02llu\n", (unsigned long long)(up / 100),
                      (unsigned long long)(up % 100), (unsigned long long)(idle / 100),
                      (unsigned long long)(idle % 100));
}

extern const char __text_start[], __text_end[];

/*
 * Linux's "address type name" lines, in address order: functions (t, T when global), data
 * objects (d, r, b, capitals when global), as Linux's with CONFIG_KALLSYMS_ALL, which
 * kprobe users need for @SYM. _stext and _etext bound the text as on Linux: a reader takes
 * a function to end where the next symbol starts, so the last one needs _etext after it.
 * The two sorted tables and the two bounds are merged as they are printed.
 */
static int show_kallsyms(struct seqbuf *s, void *data)
{
    size_t f = 0, d = 0;
    bool stext = false, etext = false;

    while (!s->overflow) {
        uintptr_t faddr = UINTPTR_MAX, daddr = UINTPTR_MAX;
        const char *fname = sym_at(f, &faddr), *dname = sym_data_at(d, &daddr);
        uintptr_t next = faddr < daddr ? faddr : daddr;
        if (!stext && (uintptr_t)__text_start <= next) {
            seq_printf(s, "%016lx T _stext\n", (unsigned long)__text_start);
            stext = true;
        } else if (!etext && (uintptr_t)__text_end <= next) {
            seq_printf(s, "%016lx T _etext\n", (unsigned long)__text_end);
            etext = true;
        } else if (fname && faddr == next) {
            seq_printf(s, "%016lx %c %s\n", (unsigned long)faddr, sym_type_at(f++, false), fname);
        } else if (dname) {
            seq_printf(s, "%016lx %c %s\n", (unsigned long)daddr, sym_type_at(d++, true), dname);
        } else {
            break;
        }
    }
    return s->overflow ? -ENOMEM : 0;
}

static void procfs_init(void)
{
    struct pfs_node *proc = pfs_mkdir("/proc");
    pfs_create_seq(proc, "version", 0444, show_version, NULL, NULL);
    pfs_create_seq(proc, "cmdline", 0444, show_cmdline, NULL, NULL);
    pfs_create_seq(proc, "meminfo", 0444, show_meminfo, NULL, NULL);
    pfs_create_seq(proc, "uptime", 0444, show_uptime, NULL, NULL);
    pfs_create_seq(proc, "kallsyms", 0444, show_kallsyms, NULL, NULL);
}
CORE_INITCALL(procfs_init);

/* Runs a show() function and sends its text to the command's output. */
static int print_seq(struct shell_ctx *ctx, pfs_show_fn show)
{
    struct seqbuf s = {0};
    show(&s, NULL);
    int err = s.len ? shell_write(ctx, s.buf, s.len) : 0;
    seqbuf_free(&s);
    return err < 0 && err != -EPIPE ? 1 : 0;
}

SHELL_COMMAND(version, "version", "show the kernel version")
{
    return argc == 1 ? print_seq(ctx, show_version) : shell_usage(ctx);
}

SHELL_COMMAND(meminfo, "meminfo", "show physical memory and heap usage")
{
    return argc == 1 ? print_seq(ctx, show_meminfo) : shell_usage(ctx);
}

SHELL_COMMAND(uptime, "uptime", "show how long the system has been up")
{
    if (argc != 1)
        return shell_usage(ctx);
    uint64_t ms = clock_ns() / 1000000;
    unsigned long secs = ms / 1000;
    return shell_printf(ctx, "up %lu:%02lu:%02lu.%03lu, %u CPU%s online\n", secs / 3600,
                        secs / 60 % 60, secs % 60, (unsigned long)(ms % 1000), cpus_online,
                        cpus_online == 1 ? "" : "s") < 0;
}

struct dmesg_out {
    struct shell_ctx *ctx;
    int err;
};

static void dmesg_chunk(const char *chunk, size_t len, void *arg)
{
    struct dmesg_out *out = arg;
    out->err = shell_write(out->ctx, chunk, len);
}

SHELL_COMMAND(dmesg, "dmesg", "print the kernel log")
{
    if (argc != 1)
        return shell_usage(ctx);
    struct dmesg_out out = {ctx, 0};
    int err = printk_log_for_each(dmesg_chunk, &out);
    if (err) {
        shell_eprintf(ctx, "dmesg: %s\n", strerror(-err));
        return 1;
    }
    if (out.err == -EINTR)
        return 130;
    return out.err && out.err != -EPIPE ? 1 : 0;
}

SHELL_COMMAND(poweroff, "poweroff", "power the machine off (QEMU exits with success)")
{
    if (argc != 1)
        return shell_usage(ctx);
    printk("reboot: Power down\n");
    arch_poweroff(ARCH_EXIT_SUCCESS);
}

SHELL_COMMAND(reboot, "reboot", "restart the machine")
{
    if (argc != 1)
        return shell_usage(ctx);
    printk("reboot: Restarting system\n");
    arch_reboot();
}
