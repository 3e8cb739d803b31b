#!/bin/sh
# Runs Linux's ftracetest against the fentros mount, in a mount namespace of its own: every
# mount and unmount below stays in it, and the host's own tracefs, which it hides, is never
# written. tests/ftracetest/ftracetest.py runs it.
#
# usage: in_namespace.sh TRACING GUEST_PROC SUITE LOGDIR SECONDS [TEST.tc...]
#   TRACING     the guest's /sys/kernel/tracing in the FUSE mount
#   GUEST_PROC  the guest's /proc in the FUSE mount, or "" when the mount has none
#   SUITE       the copy of tools/testing/selftests/ftrace with the name map applied
#   LOGDIR      ftracetest -l LOGDIR
#   SECONDS     the whole run's time limit
#   TEST.tc     the tests to run (default: all)
set -eu

refuse() {
    echo "ftracetest: refusing to run: $*" >&2
    exit 2
}

# The script enters the namespace itself, so no way of starting it runs the unmounts below
# in the caller's namespace: that would take the host's tracefs away from every process.
# The namespace is told apart by its id, recorded before unshare; an id that cannot be
# read refuses rather than passes.
if [ "${1:-}" != --inside ]; then
    outer=$(readlink /proc/self/ns/mnt) || refuse "cannot read this mount namespace's id"
    [ -n "$outer" ] || refuse "cannot read this mount namespace's id"
    exec unshare --mount --propagation private sh "$0" --inside "$outer" "$@"
fi
outer=$2
shift 2
inner=$(readlink /proc/self/ns/mnt) || refuse "cannot read the new mount namespace's id"
[ -n "$outer" ] && [ -n "$inner" ] && [ "$inner" != "$outer" ] ||
    refuse "not in a mount namespace of its own ($inner, started from $outer)"
# Private propagation, or unmounts here would reach the host's mounts all the same.
! grep -q ' shared:' /proc/self/mountinfo || refuse "a mount here propagates to the host's"

tracing=$1 guest_proc=$2 suite=$3 logdir=$4 seconds=$5
shift 5
snapshot= scratch=
trap 'rm -rf $snapshot $scratch' EXIT

# Lazy unmounts: /sys/kernel/debug/tracing is an automount below debugfs, and a busy mount
# must go too. A detached parent takes its children along, hence the rounds.
for round in 1 2 3 4 5; do
    targets=$(awk '$3 == "tracefs" || $3 == "debugfs" { print $2 }' /proc/mounts | sort -r)
    [ -n "$targets" ] || break
    for target in $targets; do
        umount -l "$target" 2>/dev/null || true
    done
done

# The FUSE mount at the place tools expect, first: ftracetest takes the first tracefs line
# of /proc/mounts, and the guest's files bound below are tracefs lines too.
mount --bind "$tracing" /sys/kernel/tracing

# ftracetest sets the host's RT throttling for its wakeup tests and the stack tests turn the
# stack tracer on through /proc/sys/kernel: the guest's files replace the host's here, and
# sched_rt_runtime_us (fentros has no RT throttling) becomes a plain file.
host_rt_runtime=$(cat /proc/sys/kernel/sched_rt_runtime_us 2>/dev/null || echo 950000)
mount -t tmpfs ftracetest-sysctl /proc/sys/kernel
echo "$host_rt_runtime" >/proc/sys/kernel/sched_rt_runtime_us
if [ -n "$guest_proc" ] && [ -d "$guest_proc/sys/kernel" ]; then
    for file in "$guest_proc"/sys/kernel/*; do
        name=${file##*/}
        : >"/proc/sys/kernel/$name"
        mount --bind "$file" "/proc/sys/kernel/$name"
    done
fi

# The scripts read /proc/kallsyms (which function forks, what to probe) and /proc/version:
# they must see the guest's, never the host's. The guest's symbols do not change while it
# runs, so copies serve; without a guest /proc they are empty.
snapshot=$(mktemp -d /tmp/ftracetest-proc.XXXXXX)
: >"$snapshot/kallsyms"
: >"$snapshot/version"
if [ -n "$guest_proc" ]; then
    cat "$guest_proc/kallsyms" >"$snapshot/kallsyms"
    cat "$guest_proc/version" >"$snapshot/version"
fi
mount --bind "$snapshot/kallsyms" /proc/kallsyms
mount --bind "$snapshot/version" /proc/version

# The mount's own mount point goes from this namespace.
others=$(awk '$1 == "tracefs" && $2 != "/sys/kernel/tracing" && $2 !~ "^/proc/sys/kernel/" \
    { print $2 }' /proc/mounts | sort -r)
for target in $others; do
    # -i: no unmount helper, which would end the daemon's mount for the host too.
    umount -i -l "$target"
done

# The check the whole arrangement is for: the first tracefs line is the FUSE mount at
# /sys/kernel/tracing, every tracefs line is FUSE, and no real tracefs or debugfs is left.
first=$(grep tracefs /proc/mounts | head -1 | cut -f2,3 -d' ')
case "$first" in
"/sys/kernel/tracing fuse" | "/sys/kernel/tracing fuse."*) ;;
*) refuse "the first tracefs in /proc/mounts is \"$first\", not the FUSE mount" ;;
esac
if grep tracefs /proc/mounts | awk '$3 != "fuse" && $3 !~ /^fuse\./ { bad = 1 } END { exit !bad }'; then
    refuse "a tracefs that is not the FUSE mount is visible: $(grep tracefs /proc/mounts)"
fi
if awk '$3 == "tracefs" || $3 == "debugfs" { bad = 1 } END { exit !bad }' /proc/mounts; then
    refuse "the host's tracefs or debugfs is still mounted here"
fi
[ -f /sys/kernel/tracing/current_tracer ] || refuse "no current_tracer in the mount"

cd "$suite"
# ftracetest's instance pass cds to "$TRACING_DIR/instances/NEW", and to $HOME when that
# cannot be made (fentros has no instances): HOME is an empty scratch directory, so its
# writes to tracing_on and current_tracer land there.
scratch=$(mktemp -d /tmp/ftracetest-home.XXXXXX)
# ftracetest has no time limit of its own; -k keeps every test's log, which names its file.
status=0
HOME=$scratch timeout -k 10 "$seconds" ./ftracetest -k -l "$logdir" "$@" || status=$?
exit $status
