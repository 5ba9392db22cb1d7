#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# What tools/demo shows: each part of the series at work, as
# 'MMFAST-DEMO KEY VALUE' lines that tools/demo turns into a table.
#   mmfast.demo=all        ZONE_DEVICE memmap init of the NVDIMM (fsdax
#                          map=dev and devdax), zone contiguity after a
#                          virtio-mem plug, and re-use after free page
#                          reporting (boot with or without
#                          virtio_balloon.host_zeroes_reported=1)
#   mmfast.demo=reporting  only the last one
#   mmfast.pz_mb=N         size of each page_zeroed case (default 64)
#   mmfast.demo_plug=MIB   memory plugged for the contiguity part (512)
#   mmfast.rebinds=N       rebinds per pmem mode, median taken (3)
# Every part checks what it shows: a bind that fails, a zone that is not
# contiguous, a byte that does not read zero fail the scenario.
. /scenarios/lib.sh

what=$(param mmfast.demo all)
mb=$(param mmfast.pz_mb 64)
more=$(param mmfast.demo_plug 512)
n=$(param mmfast.rebinds 3)
case "$what" in all|reporting) ;; *) bad "mmfast.demo must be all or reporting, not '$what'"; exit 1 ;; esac
for v in "$mb" "$more" "$n"; do
	case "$v" in ''|0|*[!0-9]*) bad "mmfast.pz_mb, mmfast.demo_plug and mmfast.rebinds take a positive number, not '$v'"; exit 1 ;; esac
done
demo() { echo "MMFAST-DEMO $*"; }
# median of the numbers on stdin
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }
tr=/sys/kernel/tracing
[ -d $tr/trace_stat ] || mount -t tracefs tracefs $tr 2>/dev/null

# ZONE_DEVICE memory map of the NVDIMM: memmap_init_zone_device() times
# from its pr_debug, the median of n binds per mode.
pmem_part() {
	memmap_debug_on || return
	ns=$(ndctl list -N 2>/dev/null | sed -n 's/.*"dev":"\(namespace[0-9.]*\)".*/\1/p' | head -1)
	[ -n "$ns" ] || { bad "no nvdimm namespace"; return; }
	# The template path is off while the page_ref_set tracepoint is on.
	ev=$tr/events/page_ref/page_ref_set/enable
	demo template_path "$( [ -r $ev ] && [ "$(cat $ev)" != 0 ] && echo off || echo on)"
	for mode in fsdax devdax; do
		if [ $mode = fsdax ]; then
			args="-m fsdax -M dev" drv=nd_pmem
		else
			args="-m devdax -a 2M" drv=dax_pmem
		fi
		ndctl create-namespace -f -e "$ns" $args > /tmp/ns.json ||
			{ bad "$mode: ndctl create-namespace $args failed"; continue; }
		# map=dev: the memory map lives on the device (an altmap)
		demo ${mode}_map "$(sed -n 's/.*"map":"\([a-z]*\)".*/\1/p' /tmp/ns.json)"
		memmap_rebind $mode $drv "$n" || continue
		demo ${mode}_pages "$(head -1 /tmp/$mode.times | cut -d' ' -f1)"
		demo ${mode}_ms "$(cut -d' ' -f2 /tmp/$mode.times | median)"
	done
}

# Zone contiguity: plug more virtio-mem memory (onlined movable), time the
# decisions with the function profiler, read the verdict, and time the
# full scan the base kernel runs after every hotplug operation
# (zone_scan_contiguous(), kept by the series for DEBUG_VM; reading
# /sys/kernel/debug/mm/zone_contiguous runs it).
contig_part() {
	zc=/sys/kernel/debug/mm/zone_contiguous
	[ -r $zc ] || { bad "no $zc (needs CONFIG_DEBUG_VM)"; return; }
	[ -w $tr/function_profile_enabled ] || { bad "no function profiler"; return; }
	bs=$(( 0x$(cat /sys/devices/system/memory/block_size_bytes) >> 20 ))
	plug=$(param mmfast.plug 512)
	# The count (zone_range_contiguous_pages()) and, on DEBUG_VM
	# kernels, the full scan that confirms every "contiguous" verdict.
	echo zone_range_contiguous_pages > $tr/set_ftrace_filter &&
	echo zone_scan_contiguous >> $tr/set_ftrace_filter ||
		{ bad "cannot profile the contiguity decision"; return; }
	echo 0 > $tr/function_profile_enabled
	echo 1 > $tr/function_profile_enabled
	target=$(( $(memtotal_kb) + more * 1024 ))
	qmp_request_size $((plug + more))
	wait_memtotal "$target" 120 $((plug + more)) ||
		{ bad "virtio-mem plug of $more MiB did not arrive"; echo 0 > $tr/function_profile_enabled; return; }
	echo 0 > $tr/function_profile_enabled
	cat $tr/trace_stat/function* | awk '$4 == "us" || $4 == "ms" {
		t[$1] += $4 == "ms" ? $3 * 1000 : $3 }
		END { printf "%d %d\n", t["zone_range_contiguous_pages"], t["zone_scan_contiguous"] }' > /tmp/cu
	read -r cus sus < /tmp/cu
	nb=$(( more / bs ))
	[ "$nb" -gt 0 ] || nb=1
	demo contig_plug_mb "$more"
	demo contig_count_us_per_block $(( cus / nb ))
	demo contig_check_us_per_block $(( sus / nb ))
	grep ' zone Movable ' $zc | sed 's/^/MMFAST: /'
	c=$(grep ' zone Movable ' $zc | sed -n 's/.* contiguous \([01]\).*/\1/p')
	demo contig_movable "${c:-none}"
	check "ZONE_MOVABLE contiguous after plugging $more MiB" test "$c" = 1
	echo zone_scan_contiguous > $tr/set_ftrace_filter || { bad "cannot profile zone_scan_contiguous"; return; }
	echo 0 > $tr/function_profile_enabled
	echo 1 > $tr/function_profile_enabled
	cat $zc > /dev/null
	echo 0 > $tr/function_profile_enabled
	# one scan per zone: take the Movable zone's, the largest here
	scan=$(cat $tr/trace_stat/function* | awk '$1 == "zone_scan_contiguous" && ($4 == "us" || $4 == "ms") {
		t = $4 == "ms" ? $3 * 1000 : $3; if ($2 > 0 && t / $2 > m) m = t / $2 } END { printf "%d\n", m }')
	demo contig_scan_us "$scan"
	sp=$(awk '/zone +Movable/ { z = 1 } z && $1 == "spanned" { print $2; exit }' /proc/zoneinfo)
	demo contig_movable_mb $(( ${sp:-0} / 256 ))
}

# Free page reporting: the page_zeroed kselftest dirties, frees and
# reports memory, then gets it back five ways and reads every byte.
reporting_part() {
	vb=$(virtio_devs virtio_balloon | head -1)
	[ -n "$vb" ] && [ "$(cut -c6 "$vb/features")" = 1 ] ||
		{ bad "no virtio-balloon with free page reporting"; return; }
	trusted=$(cat /sys/module/virtio_balloon/parameters/host_zeroes_reported 2>/dev/null || echo n/a)
	demo pz_trusted "$trusted"
	export PAGE_ZEROED_MB=$mb
	# The gigantic page case needs a free, aligned 1 GiB range, which the
	# earlier parts of the demo may have broken up (tools/test's reporting
	# scenario runs it in a guest of its own).
	if selftest page_zeroed "alloc_free=no free 1 GiB range may be left after the pmem and hotplug parts"; then
		zero=yes
	else
		zero=no
		bad "page_zeroed kselftest"
	fi
	demo pz_all_read_zero "$zero"
	sed -n 's/^\(# \)*metric //p' /tmp/page_zeroed.tap |
		awk '$1 ~ /_skipped$/ { s += $2; n++ } END { printf "%d %d\n", s, n }' > /tmp/pz
	read -r skipped cases < /tmp/pz
	demo pz_skipped "$skipped"
	# Trusted: clears must have been skipped; not trusted: none may be.
	if [ "$trusted" = Y ]; then
		check "host trusted: clears skipped ($skipped)" test "${skipped:-0}" -gt 0
	else
		check "host not trusted: no clear skipped ($skipped)" test "${skipped:--1}" = 0
	fi
	demo pz_pages $(( cases * mb * 256 ))
	demo pgzero_skipped "$(awk '$1 == "pgzero_skipped" { print $2 }' /proc/vmstat)"
}

demo accel "$(param mmfast.accel tcg)"
if [ "$what" = all ]; then
	pmem_part
	contig_part
fi
reporting_part
[ "$fails" = 0 ]
