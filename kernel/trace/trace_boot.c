/*
 * Tracing from the kernel command line, with Linux's parameters:
 *
 *   ftrace=TRACER               start this tracer at boot
 *   ftrace_filter=GLOBS         set_ftrace_filter (comma-separated globs, '!' removes)
 *   ftrace_notrace=GLOBS        set_ftrace_notrace
 *   ftrace_graph_filter=GLOBS   set_graph_function
 *   ftrace_graph_notrace=GLOBS  set_graph_notrace
 *   trace_buf_size=SIZE         bytes per CPU, with a K, M or G suffix (Linux's memparse)
 *   trace_options=OPTS          comma-separated trace_options words (sym-offset, noprint-parent)
 *   stacktrace                  start the stack tracer
 *   stacktrace_filter=GLOBS     stack_trace_filter (and start the stack tracer, as Linux)
 *   ftrace_dump_on_oops[=orig_cpu]  print the trace buffer in a panic report
 *
 * They are applied by a TRACE_INITCALL, the level right after the tracing core's
 * (trace_init, a CORE_INITCALL), so what boot does after it can be traced: the remaining
 * initcalls (the tracefs and per-CPU files being made), the end of boot and the shell
 * starting. Everything before, including SMP start-up, runs before the
 * ring buffer exists. Values that cannot be used are reported in the boot log, in the form
 * `ftrace: PARAM=VALUE: why; ignored`, and the rest still applies.
 */
#include <kernel/bootinfo.h>
#include <kernel/errno.h>
#include <kernel/ftrace.h>
#include <kernel/init.h>
#include <kernel/panic.h>
#include <kernel/printk.h>
#include <lib/ctype.h>
#include <lib/string.h>

#include "trace_internal.h"

/* The command line is at most this long, and so is any value in it. */
static char boot_value[BOOT_CMDLINE_MAX];

static void boot_ignored(const char *param, const char *value, const char *why)
{
    printk("ftrace: %s=%s: %s; ignored\n", param, value, why);
}

static const char *boot_param(const char *key)
{
    return cmdline_value(key, boot_value, sizeof(boot_value));
}

/* ---- trace_buf_size ---- */

/* Linux's memparse, the whole value: a number in base 0, then an optional K, M, G ... */
static int boot_parse_size(const char *text, unsigned long long *bytes)
{
    char *end;
    int err = parse_size(text, &end, bytes);
    return err ? err : *end ? -EINVAL : 0;
}

static void boot_buffer_size(void)
{
    const char *v = boot_param("trace_buf_size");
    unsigned long long bytes;

    if (!v)
        return;
    if (boot_parse_size(v, &bytes) != 0) {
        boot_ignored("trace_buf_size", v, "not a size");
        return;
    }
    if (bytes == 0) {
        boot_ignored("trace_buf_size", v, "a buffer cannot be empty");
        return;
    }
    /* The ring buffer rounds up to whole pages; buffer_size_kb then shows what it got, as
     * Linux does for a size given at boot. */
    int err = trace_resize(-1, (unsigned long)((bytes + 1023) / 1024));
    if (err)
        boot_ignored("trace_buf_size", v, strerror(-err));
}

/* ---- trace_options ---- */

/* Tracer-specific options apply only for the tracer started at boot, as in Linux. */
static void boot_options(const char *tracer)
{
    const char *v = boot_param("trace_options");
    char *list, *word;

    if (!v)
        return;
    list = boot_value;
    while ((word = strsep(&list, ",")) != NULL) {
        bool on = strncmp(word, "no", 2) != 0;
        int opt;

        if (!*word)
            continue;
        opt = trace_option_by_name(on ? word : word + 2);
        if (opt < 0 && !on) {
            opt = trace_option_by_name(word);
            on = true;
        }
        if (opt < 0) {
            boot_ignored("trace_options", word, "no such option");
            continue;
        }
        const char *owner = trace_option_defs[opt].tracer;
        if (owner && (!tracer || strcmp(owner, tracer) != 0)) {
            printk("ftrace: trace_options=%s: only for the %s tracer; ignored\n", word, owner);
            continue;
        }
        trace_set_option((unsigned)opt, on);
    }
}

/* ---- function lists ---- */

/*
 * Applies a comma-separated list of globs to hash, reporting each one that matches no
 * function; a list without any usable glob leaves hash empty. Returns the globs that
 * matched (comma-separated, for set_graph_*) in good, when given.
 */
static void boot_globs(const char *param, char *list, struct ftrace_hash *hash, char *good,
                       size_t good_len)
{
    char *glob;

    if (good && good_len)
        good[0] = '\0';
    while ((glob = strsep(&list, ",")) != NULL) {
        if (!*glob)
            continue;
        if (ftrace_hash_apply_glob(hash, glob) < 0) {
            boot_ignored(param, glob, "no function matches");
            continue;
        }
        if (good) {
            if (good[0])
                strlcat(good, ",", good_len);
            strlcat(good, glob, good_len);
        }
    }
}

static struct ftrace_hash *boot_hash(const char *param)
{
    struct ftrace_hash *hash;

    if (!boot_param(param))
        return NULL;
    hash = ftrace_hash_alloc();
    if (!hash) {
        boot_ignored(param, boot_value, strerror(ENOMEM));
        return NULL;
    }
    boot_globs(param, boot_value, hash, NULL, 0);
    return hash;
}

static void boot_function_filters(void)
{
    struct ftrace_hash *filter = boot_hash("ftrace_filter");
    struct ftrace_hash *never = boot_hash("ftrace_notrace");
    struct ftrace_ops *ops = ftrace_global_ops;

    if (!filter && !never)
        return;
    if (!filter)
        filter = ftrace_hash_copy(ops->filter_hash);
    if (!never)
        never = ftrace_hash_copy(ops->notrace_hash);
    ftrace_ops_set_hashes(ops, filter, never);
    /* The function graph op keeps its own copy of the global filter. */
    fgraph_filter_changed();
}

static void boot_graph_filter(const char *param, bool is_notrace)
{
    static char good[BOOT_CMDLINE_MAX];
    struct ftrace_hash *scratch;

    if (!boot_param(param))
        return;
    scratch = ftrace_hash_alloc();
    if (!scratch) {
        boot_ignored(param, boot_value, strerror(ENOMEM));
        return;
    }
    boot_globs(param, boot_value, scratch, good, sizeof(good));
    ftrace_hash_free(scratch);
    if (good[0])
        fgraph_set_filter_text(is_notrace, good);
}

/* ---- the stack tracer ---- */

static void boot_stack_tracer(void)
{
    struct ftrace_hash *filter = boot_hash("stacktrace_filter");
    bool enable = cmdline_has("stacktrace") || filter;
    int err;

    if (filter)
        stack_trace_set_filter(filter);
    if (enable && (err = stack_tracer_set_enabled(1)) != 0)
        printk("ftrace: stacktrace: %s; ignored\n", strerror(-err));
}

/* ---- ftrace_dump_on_oops ---- */

static void boot_dump_on_oops(void)
{
    const char *v;
    int mode = TRACE_DUMP_ALL;

    if (!cmdline_has("ftrace_dump_on_oops"))
        return;
    v = boot_param("ftrace_dump_on_oops");
    if (v && (strcmp(v, "orig_cpu") == 0 || strcmp(v, "2") == 0))
        mode = TRACE_DUMP_ORIG_CPU;
    else if (v && strcmp(v, "1") != 0) {
        boot_ignored("ftrace_dump_on_oops", v, "expected orig_cpu or nothing");
        return;
    }
    int err = trace_dump_on_oops_set(mode);
    if (err)
        printk("ftrace: ftrace_dump_on_oops: %s; ignored\n", strerror(-err));
}

/* ---- boot ---- */

static void trace_boot(void)
{
    static char tracer[64];
    const char *name = boot_param("ftrace");

    tracer[0] = '\0';
    if (name)
        strlcpy(tracer, name, sizeof(tracer));
    if (tracer[0] && !trace_find_tracer(tracer)) {
        boot_ignored("ftrace", tracer, "no such tracer");
        tracer[0] = '\0';
    }

    /* Everything the tracer starts with comes first, the tracer last. */
    boot_buffer_size();
    boot_options(tracer[0] ? tracer : NULL);
    boot_function_filters();
    boot_graph_filter("ftrace_graph_filter", false);
    boot_graph_filter("ftrace_graph_notrace", true);
    boot_stack_tracer();
    boot_dump_on_oops();

    trace_dump_on_oops_init();

    if (tracer[0]) {
        printk("Starting tracer '%s'\n", tracer);
        int err = trace_set_tracer(tracer);
        if (err)
            boot_ignored("ftrace", tracer, strerror(-err));
    }
}
TRACE_INITCALL(trace_boot);
