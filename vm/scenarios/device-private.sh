#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Time memremap_pages() of a large MEMORY_DEVICE_PRIVATE range, the
# test_hmm way: bench/memremap_bench maps mmfast.dp_mb MiB (default 16384)
# mmfast.dp_loops times (default 5), with memunmap_pages() in between.
# Metrics (guest instructions under tools/run-vm --icount):
#   device_private_memremap     each memremap_pages() call (ktime, in the
#                               module);
#   device_private_memmap_init  memmap_init_zone_device() per call (the
#                               function profiler over all calls, divided
#                               by the calls), and per struct page
#                               (device_private_per_page).
. /scenarios/lib.sh

mb=$(param mmfast.dp_mb 16384)
loops=$(param mmfast.dp_loops 5)
case "$mb" in ''|0|*[!0-9]*) bad "mmfast.dp_mb must be a size in MiB, not '$mb'"; exit 1 ;; esac
case "$loops" in ''|0|*[!0-9]*) bad "mmfast.dp_loops must be at least 1, not '$loops'"; exit 1 ;; esac
ko=/modules/memremap_bench.ko
[ -f "$ko" ] || { say "no $ko in the initramfs (kernel built without modules?)"; exit 4; }
memmap_debug_on || exit 1
prof_init || { bad "no function profiler (CONFIG_FUNCTION_PROFILER)"; exit 1; }
prof_on memmap_init_zone_device || { bad "cannot profile memmap_init_zone_device"; exit 1; }
dmesg -c > /dev/null
check "memremap_bench loaded" insmod "$ko" size_mb="$mb" loops="$loops"
prof_off
rmmod memremap_bench
dmesg | sed -n 's/.*memremap_bench: memremap_pages \([0-9]*\) ns.*/\1/p' > /tmp/ns
got=$(wc -l < /tmp/ns)
check "$loops memremap_pages() of $mb MiB device private memory timed ($got)" test "$got" = "$loops"
while read -r ns; do
	span device_private_memremap "$ns"
done < /tmp/ns
dmesg | sed -n 's/.*memmap_init_zone_device initialised \([0-9]*\) pages in .*/\1/p' > /tmp/pages
hits=$(prof_hits memmap_init_zone_device)
check "$loops memmap_init_zone_device() calls profiled ($hits) and logged ($(wc -l < /tmp/pages))" \
	test "$hits" = "$loops" -a "$(wc -l < /tmp/pages)" = "$loops"
if [ "$hits" -gt 0 ]; then
	each=$(( $(prof_ns memmap_init_zone_device) / hits ))
	span device_private_memmap_init "$each"
	per_page device_private_per_page "$each" "$(head -1 /tmp/pages)"
fi
say "device private ${mb} MiB memremap_pages, ns: $(tr '\n' ' ' < /tmp/ns)"
[ "$fails" = 0 ]
