#!/bin/sh
# Builds a bootable GRUB ISO around a kernel, with the given kernel command line.
#   tools/mkiso.sh KERNEL_ELF OUT_ISO [CMDLINE...]
set -eu
kernel=$1
out=$2
shift 2
cmdline="$*"
here=$(cd "$(dirname "$0")/.." && pwd)
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/iso/boot/grub"
cp "$kernel" "$stage/iso/boot/kernel.elf"
# '|' never appears in a command line we generate; it keeps '/' and '=' intact for sed.
sed "s|@CMDLINE@|$cmdline|" "$here/iso/grub.cfg.in" > "$stage/iso/boot/grub/grub.cfg"
grub-mkrescue -o "$stage/out.iso" "$stage/iso" >/dev/null 2>"$stage/log" || { cat "$stage/log" >&2; exit 1; }
mv "$stage/out.iso" "$out"
