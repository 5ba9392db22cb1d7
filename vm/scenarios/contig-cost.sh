#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# What counting a zone from scratch costs next to the scan it replaces.
# At boot the series counts every zone with zone_count_online_block_pages(),
# i.e. zone_range_online_block_pages() over the span (the function timed:
# the wrapper is inlined);
# the base ran set_zone_contiguous(), whose loop the series keeps as
# zone_scan_contiguous() (the DEBUG_VM cross-check).  Reading
# /sys/kernel/debug/zone_contiguous (DEBUG_VM kernels) runs both for every
# zone, one after the other, so the ftrace function profiler
# (CONFIG_FUNCTION_PROFILER) times the two interleaved, mmfast.cc_reads
# times (default 10).  The layout of the zones comes from the command line
# (-m, memmap=).  The scan stops at the first pageblock that fails, the
# count cannot; it steps over offline sections a section at a time.
# Metrics per read, all zones together: count_us, scan_us.
. /scenarios/lib.sh

reads=$(param mmfast.cc_reads 10)
case "$reads" in ''|0|*[!0-9]*) bad "mmfast.cc_reads must be at least 1, not '$reads'"; exit 1 ;; esac
zc=/sys/kernel/debug/zone_contiguous
[ -r $zc ] || { bad "no $zc (a kernel without CONFIG_DEBUG_VM?)"; exit 1; }
tr=/sys/kernel/tracing
[ -d $tr/trace_stat ] || mount -t tracefs tracefs $tr 2>/dev/null
[ -w $tr/function_profile_enabled ] || { bad "no function profiler (CONFIG_FUNCTION_PROFILER)"; exit 1; }
echo zone_range_online_block_pages > $tr/set_ftrace_filter &&
echo zone_scan_contiguous >> $tr/set_ftrace_filter ||
	{ bad "cannot profile zone_range_online_block_pages and zone_scan_contiguous"; exit 1; }
sed 's/^/MMFAST: /' $zc
i=0
while [ "$i" -lt "$reads" ]; do
	echo 0 > $tr/function_profile_enabled
	echo 1 > $tr/function_profile_enabled
	cat $zc > /dev/null
	echo 0 > $tr/function_profile_enabled
	# "function  hits  time us  avg us  s^2 us", one file per CPU
	cat $tr/trace_stat/function* | awk '
		($4 == "us" || $4 == "ms") && ($1 == "zone_range_online_block_pages" || $1 == "zone_scan_contiguous") {
			t[$1] += $4 == "ms" ? $3 * 1000 : $3; h[$1] += $2 }
		END { printf "%.1f %d %.1f %d\n", t["zone_range_online_block_pages"], h["zone_range_online_block_pages"],
			t["zone_scan_contiguous"], h["zone_scan_contiguous"] }' > /tmp/cc
	read -r cus chits sus shits < /tmp/cc
	if [ "$chits" = 0 ] || [ "$shits" = 0 ]; then
		bad "read $i: the profiler saw count $chits and scan $shits calls"
		break
	fi
	metric count_us "$cus" us
	metric scan_us "$sus" us
	i=$((i + 1))
done
say "last read: count $cus us ($chits calls), scan $sus us ($shits calls)"
[ "$fails" = 0 ]
