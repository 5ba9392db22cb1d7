#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Time memremap_pages() of a large MEMORY_DEVICE_PRIVATE range, the
# test_hmm way: bench/memremap_bench maps mmfast.dp_mb MiB (default 16384)
# mmfast.dp_loops times (default 5), with memunmap_pages() in between.
. /scenarios/lib.sh

mb=$(param mmfast.dp_mb 16384)
loops=$(param mmfast.dp_loops 5)
case "$mb" in ''|0|*[!0-9]*) bad "mmfast.dp_mb must be a size in MiB, not '$mb'"; exit 1 ;; esac
case "$loops" in ''|0|*[!0-9]*) bad "mmfast.dp_loops must be at least 1, not '$loops'"; exit 1 ;; esac
ko=/modules/memremap_bench.ko
[ -f "$ko" ] || { say "no $ko in the initramfs (kernel built without modules?)"; exit 4; }
memmap_debug_on || exit 1
dmesg -c > /dev/null
check "memremap_bench loaded" insmod "$ko" size_mb="$mb" loops="$loops"
rmmod memremap_bench
dmesg | sed -n 's/.*memremap_bench: memremap_pages \([0-9]*\) us.*/\1/p' > /tmp/us
got=$(wc -l < /tmp/us)
check "$loops memremap_pages() of $mb MiB device private memory timed ($got)" test "$got" = "$loops"
while read -r us; do
	metric device_private_memremap "$us" us
done < /tmp/us
dmesg | sed -n 's/.*memmap_init_zone_device initialised [0-9]* pages in \([0-9]*\)ms.*/\1/p' > /tmp/ms
check "$loops memmap_init_zone_device() timings ($(wc -l < /tmp/ms))" test "$(wc -l < /tmp/ms)" = "$loops"
while read -r ms; do metric device_private_memmap_init "$ms" ms; done < /tmp/ms
say "device private ${mb} MiB memremap_pages, us: $(tr '\n' ' ' < /tmp/us)"
[ "$fails" = 0 ]
