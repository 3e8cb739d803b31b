/*
 * /sys/kernel/livepatch, with Linux's layout:
 *   <patch>/enabled      1 or 0: start the patching or unpatching transition
 *   <patch>/transition   1 while a transition of the patch runs
 *   <patch>/force        write 1: switch the remaining threads now and complete it
 *   <patch>/replace      0: atomic replace is not supported
 *   <patch>/<object>/patched           1 while the object's functions are patched
 *   <patch>/<object>/<function,sympos>/
 * The pseudo-filesystem has no removal, so a patch's tree is made when the patch is
 * registered (at boot) and stays.
 */
#include <kernel/errno.h>
#include <kernel/init.h>
#include <kernel/printk.h>
#include <kernel/pseudofs.h>
#include <lib/printf.h>
#include <lib/string.h>

#include "livepatch_internal.h"

#define KLP_SYSFS_ROOT "/sys/kernel/livepatch"

/* Linux's kstrtobool: y/Y/1/on or n/N/0/off, by the first letters. */
static int klp_parse_bool(const char *buf, size_t len, bool *out)
{
    char c = len ? buf[0] : 0, c2 = len > 1 ? buf[1] : 0;
    if (c == 'y' || c == 'Y' || c == '1' || ((c == 'o' || c == 'O') && (c2 == 'n' || c2 == 'N')))
        *out = true;
    else if (c == 'n' || c == 'N' || c == '0' ||
             ((c == 'o' || c == 'O') && (c2 == 'f' || c2 == 'F')))
        *out = false;
    else
        return -EINVAL;
    return 0;
}

static int enabled_show(struct seqbuf *s, void *data)
{
    const struct klp_patch *patch = data;
    return seq_printf(s, "%d\n", READ_ONCE(patch->enabled));
}

static ssize_t enabled_store(void *data, const char *buf, size_t len)
{
    bool on;
    int err = klp_parse_bool(buf, len, &on);
    if (!err)
        err = on ? klp_enable_patch(data) : klp_disable_patch(data);
    return err ? err : (ssize_t)len;
}

static int transition_show(struct seqbuf *s, void *data)
{
    return seq_printf(s, "%d\n", klp_patch_in_transition(data));
}

static ssize_t force_store(void *data, const char *buf, size_t len)
{
    bool on;
    int err = klp_parse_bool(buf, len, &on);
    if (!err && on)
        err = klp_force_transition(data);
    return err ? err : (ssize_t)len;
}

static int replace_show(struct seqbuf *s, void *data)
{
    const struct klp_patch *patch = data;
    return seq_printf(s, "%d\n", patch->replace);
}

static int patched_show(struct seqbuf *s, void *data)
{
    const struct klp_object *obj = data;
    return seq_printf(s, "%d\n", READ_ONCE(obj->patched));
}

int klp_register_patch(struct klp_patch *patch)
{
    int err = klp_init_patch(patch);
    if (err)
        return err;
    patch->registered = true;
    char path[128];
    snprintf(path, sizeof(path), KLP_SYSFS_ROOT "/%s", patch->name);
    struct pfs_node *dir = pfs_mkdir(path);
    if (!dir || !pfs_create_seq(dir, "enabled", 0644, enabled_show, enabled_store, patch) ||
        !pfs_create_seq(dir, "transition", 0444, transition_show, NULL, patch) ||
        !pfs_create_seq(dir, "force", 0200, NULL, force_store, patch) ||
        !pfs_create_seq(dir, "replace", 0444, replace_show, NULL, patch))
        goto nomem;
    struct klp_object *obj;
    struct klp_func *func;
    klp_for_each_object(patch, obj) {
        struct pfs_node *odir = pfs_mkdir_at(dir, obj->name ? obj->name : "vmlinux");
        if (!odir || !pfs_create_seq(odir, "patched", 0444, patched_show, NULL, obj))
            goto nomem;
        klp_for_each_func(obj, func) {
            char name[96];
            snprintf(name, sizeof(name), "%s,%lu", func->old_name,
                     func->old_sympos ? func->old_sympos : 1);
            if (!pfs_mkdir_at(odir, name))
                goto nomem;
        }
    }
    return 0;
nomem:
    /* The patch stays usable from C; only (part of) its files are missing. */
    printk("livepatch: cannot create the sysfs files of '%s'\n", patch->name);
    return -ENOMEM;
}

static void klp_sysfs_init(void)
{
    if (!pfs_mkdir(KLP_SYSFS_ROOT))
        printk("livepatch: cannot create " KLP_SYSFS_ROOT "\n");
}
CORE_INITCALL(klp_sysfs_init);
