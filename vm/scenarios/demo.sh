#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# append: ftrace=function ftrace_filter=deferred_init_memmap,files_maxfiles_init trace_clock=local
# What tools/demo shows: each part of the series at work, as
# 'MMFAST-DEMO KEY VALUE' lines that tools/demo turns into a table.  The
# same scenario runs on the base kernel (mmfast.kernel=base), so that
# tools/demo can put the base's figures from the same run beside them.
#   mmfast.demo=all        deferred struct page init at boot (the tracer
#                          the append: line above starts), ZONE_DEVICE
#                          memmap init of the NVDIMM (fsdax map=dev and
#                          devdax), zone contiguity and the memory map's
#                          cost after a virtio-mem plug, isolation when
#                          it is unplugged again, and re-use after free
#                          page reporting (boot with or without
#                          virtio_balloon.host_zeroes_reported=1)
#   mmfast.demo=reporting  only the last one
#   mmfast.kernel=base     the base kernel: the same measurements, the
#                          checks of what only the series has left out
#                          (and said so), no reporting part
#   mmfast.pz_mb=N         size of each page_zeroed case (default 64)
#   mmfast.demo_plug=MIB   memory plugged for the contiguity part (512)
#   mmfast.rebinds=N       timed rebinds per pmem mode, median taken (3)
# Every part checks what it shows on the patched kernel: a bind that
# fails, a zone that is not contiguous, a byte that does not read zero
# fail the scenario.
. /scenarios/lib.sh

what=$(param mmfast.demo all)
kernel=$(param mmfast.kernel patched)
mb=$(param mmfast.pz_mb 64)
more=$(param mmfast.demo_plug 512)
n=$(param mmfast.rebinds 3)
case "$what" in all|reporting) ;; *) bad "mmfast.demo must be all or reporting, not '$what'"; exit 1 ;; esac
case "$kernel" in base|patched) ;; *) bad "mmfast.kernel must be base or patched, not '$kernel'"; exit 1 ;; esac
for v in "$mb" "$more" "$n"; do
	case "$v" in ''|0|*[!0-9]*) bad "mmfast.pz_mb, mmfast.demo_plug and mmfast.rebinds take a positive number, not '$v'"; exit 1 ;; esac
done
demo() { echo "MMFAST-DEMO $*"; }
# median of the numbers on stdin
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }
tr=/sys/kernel/tracing
[ -d $tr/trace_stat ] || mount -t tracefs tracefs $tr 2>/dev/null
# Profiled times leave out the time the task spent scheduled out (in
# cond_resched(), say, while page reporting or a kworker ran): the CPU
# time of the function, not how busy the guest was meanwhile.
echo 0 > $tr/options/sleep-time 2>/dev/null || say "cannot turn the profiler's sleep-time off: times include time scheduled out"

# Function profiler (sleep-time off, above): prof_on FUNCTION-GLOB... profiles those functions
# (fresh counts: enabling resets them); prof_off stops it; prof_us NAME
# and prof_hits NAME print the microseconds and calls of the functions
# whose name starts with NAME, summed over the CPUs.
prof_on() {
	echo 0 > $tr/function_profile_enabled
	echo "$1" > $tr/set_ftrace_filter || return 1
	shift
	for f in "$@"; do
		echo "$f" >> $tr/set_ftrace_filter || return 1
	done
	echo 1 > $tr/function_profile_enabled
}
prof_off() { echo 0 > $tr/function_profile_enabled; }
prof_us() {
	cat $tr/trace_stat/function* | awk -v f="$1" 'index($1, f) == 1 && ($4 == "us" || $4 == "ms" || $4 == "s") {
		t += $4 == "s" ? $3 * 1000000 : $4 == "ms" ? $3 * 1000 : $3 } END { printf "%d\n", t }'
}
prof_hits() {
	cat $tr/trace_stat/function* | awk -v f="$1" 'index($1, f) == 1 { n += $2 } END { print n + 0 }'
}

# ZONE_DEVICE memory map of the NVDIMM.  Per mode: one bind with the
# functions that write struct pages field by field profiled (their calls
# say which path ran: about one per struct page on the base, a handful
# with the template), then n binds, each timed alone by the function
# profiler (memmap_init_zone_device(), in microseconds; the base and the
# series both have it), the median printed.  The struct pages per bind
# come from memmap_init_zone_device()'s pr_debug.
# rebind DRIVER DEV: unbind and bind DEV again.
rebind() {
	echo "$2" > "/sys/bus/nd/drivers/$1/unbind" && echo "$2" > "/sys/bus/nd/drivers/$1/bind"
}
pmem_part() {
	memmap_debug_on || return
	[ -w $tr/function_profile_enabled ] || { bad "no function profiler"; return; }
	ns=$(ndctl list -N 2>/dev/null | sed -n 's/.*"dev":"\(namespace[0-9.]*\)".*/\1/p' | head -1)
	[ -n "$ns" ] || { bad "no nvdimm namespace"; return; }
	# The series takes the template path unless the page_ref_set
	# tracepoint is on.
	ev=$tr/events/page_ref/page_ref_set/enable
	demo page_ref_tracepoint "$( [ -r $ev ] && [ "$(cat $ev)" != 0 ] && echo on || echo off)"
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
		dev=$(cd /sys/bus/nd/drivers/$drv && ls -d pfn* dax* namespace* 2>/dev/null | head -1)
		[ -n "$dev" ] || { bad "$mode: nothing bound to $drv"; continue; }
		dmesg -c > /dev/null
		if prof_on '__init_zone_device_*'; then
			rebind $drv "$dev" || { prof_off; bad "$mode: rebind of $dev failed"; continue; }
			prof_off
			demo ${mode}_field_calls "$(prof_hits __init_zone_device_)"
		else
			# Not a function (inlined) or not traceable here.
			rebind $drv "$dev" || { bad "$mode: rebind of $dev failed"; continue; }
			demo ${mode}_field_calls none
		fi
		i=0
		: > /tmp/$mode.us
		while [ $i -lt "$n" ]; do
			echo "$dev" > "/sys/bus/nd/drivers/$drv/unbind" ||
				{ bad "$mode: unbind $i of $dev failed"; break; }
			prof_on memmap_init_zone_device || { bad "cannot profile memmap_init_zone_device"; break; }
			echo "$dev" > "/sys/bus/nd/drivers/$drv/bind" ||
				{ prof_off; bad "$mode: bind $i of $dev failed"; break; }
			prof_off
			[ "$(prof_hits memmap_init_zone_device)" = 1 ] &&
				prof_us memmap_init_zone_device >> /tmp/$mode.us
			i=$((i + 1))
		done
		dmesg | sed -n 's/.*memmap_init_zone_device initialised \([0-9]*\) pages in \([0-9]*\)ms.*/\1 \2/p' > /tmp/$mode.times
		check "$mode: $((n + 1)) rebinds of $dev, $(wc -l < /tmp/$mode.us) of $n timed" \
			test "$(wc -l < /tmp/$mode.us)" = "$n" -a "$(wc -l < /tmp/$mode.times)" = $((n + 1))
		demo ${mode}_pages "$(head -1 /tmp/$mode.times | cut -d' ' -f1)"
		demo ${mode}_us "$(median < /tmp/$mode.us)"
		demo ${mode}_us_all "$(tr '\n' ',' < /tmp/$mode.us | sed 's/,$//')"
	done
}

# The Movable zone's spanned pages.
movable_spanned() { awk '/zone +Movable/ { z = 1 } z && $1 == "spanned" { print $2; exit }' /proc/zoneinfo; }

# Zone contiguity.  A timed plug: plug more virtio-mem memory (onlined
# movable) with the function profiler on what each hotplug operation runs
# to decide contiguity: the series' record (zone_contiguous_begin() and
# _end(), less the full scan zone_contiguous_scan() that DEBUG_VM kernels
# run inside them to confirm some "contiguous" verdicts, shown apart), the
# base's full-zone scan
# (set_zone_contiguous()).  Then a verdict plug of one memory block more:
# the series' verdict from /sys/kernel/debug/zone_contiguous (after
# both plugs); the base has no such file, so its scan is traced with the
# function graph tracer: a scan that calls __pageblock_pfn_to_page() for
# fewer pageblocks than the zone spans stopped at a hole, and left the
# zone non-contiguous.
contig_part() {
	zc=/sys/kernel/debug/zone_contiguous
	if [ "$kernel" = patched ]; then
		[ -r $zc ] || { bad "no $zc (needs CONFIG_DEBUG_VM)"; return; }
	fi
	[ -w $tr/function_profile_enabled ] || { bad "no function profiler"; return; }
	bs=$(( 0x$(cat /sys/devices/system/memory/block_size_bytes) >> 20 ))
	plug=$(param mmfast.plug 512)
	if [ "$kernel" = patched ]; then
		prof_on zone_contiguous_begin zone_contiguous_end zone_contiguous_scan ||
			{ bad "cannot profile the contiguity decision"; return; }
	else
		prof_on set_zone_contiguous || { bad "cannot profile set_zone_contiguous"; return; }
	fi
	# online_pages() too: less the contiguity decisions (all made inside
	# it), what onlining spends on the memory map.
	echo online_pages >> $tr/set_ftrace_filter 2>/dev/null && echo add_memory_driver_managed >> $tr/set_ftrace_filter ||
		{ bad "cannot profile online_pages"; prof_off; return; }
	echo 0 > $tr/function_profile_enabled; echo 1 > $tr/function_profile_enabled
	target=$(( $(memtotal_kb) + more * 1024 ))
	qmp_request_size $((plug + more))
	wait_memtotal "$target" 120 $((plug + more)) ||
		{ bad "virtio-mem plug of $more MiB did not arrive"; prof_off; return; }
	nb=$(( more / bs ))
	[ "$nb" -gt 0 ] || nb=1
	settle add_memory_driver_managed "$nb"
	prof_off
	demo contig_plug_mb "$more"
	if [ "$kernel" = patched ]; then
		cns=$(( $(prof_ns zone_contiguous_begin) + $(prof_ns zone_contiguous_end) ))
	else
		cns=$(prof_ns set_zone_contiguous)
	fi
	demo memmap_online_per_page "$(awk -v n=$(( $(prof_ns online_pages) - cns )) -v p=$(( more * 256 )) 'BEGIN { printf "%.1f", n / p }')"
	demo contig_blocks "$nb"
	if [ "$kernel" = patched ]; then
		demo contig_count_us_per_block $(( ($(prof_us zone_contiguous_begin) + $(prof_us zone_contiguous_end) - $(prof_us zone_contiguous_scan)) / nb ))
		demo contig_check_us_per_block $(( $(prof_us zone_contiguous_scan) / nb ))
		grep ' zone Movable ' $zc | sed 's/^/MMFAST: /'
		c=$(grep ' zone Movable ' $zc | sed -n 's/.* contiguous \([01]\).*/\1/p')
		demo contig_movable "${c:-none}"
		check "ZONE_MOVABLE contiguous after plugging $more MiB" test "$c" = 1
	else
		demo contig_base_calls "$(prof_hits set_zone_contiguous)"
		demo contig_base_us_per_block $(( $(prof_us set_zone_contiguous) / nb ))
	fi

	# The verdict plug: one memory block more.
	if [ "$kernel" = base ]; then
		echo 0 > $tr/tracing_on
		echo nop > $tr/current_tracer
		echo set_zone_contiguous > $tr/set_ftrace_filter &&
		echo __pageblock_pfn_to_page >> $tr/set_ftrace_filter &&
		echo set_zone_contiguous > $tr/set_graph_function &&
		echo 8192 > $tr/buffer_size_kb &&
		echo function_graph > $tr/current_tracer &&
		echo > $tr/trace ||
			{ bad "cannot trace set_zone_contiguous with the function graph tracer"; return; }
		echo 1 > $tr/tracing_on
	fi
	target=$(( $(memtotal_kb) + bs * 1024 ))
	qmp_request_size $((plug + more + bs))
	wait_memtotal "$target" 120 $((plug + more + bs)) ||
		{ bad "virtio-mem plug of one more block ($bs MiB) did not arrive"; echo 0 > $tr/tracing_on; return; }
	sp=$(movable_spanned)
	demo contig_verdict_plug_mb "$bs"
	demo contig_movable_mb $(( ${sp:-0} / 256 ))
	if [ "$kernel" = patched ]; then
		grep ' zone Movable ' $zc | sed 's/^/MMFAST: /'
		c=$(grep ' zone Movable ' $zc | sed -n 's/.* contiguous \([01]\).*/\1/p')
		demo contig_movable_after "${c:-none}"
		check "ZONE_MOVABLE contiguous after plugging $bs MiB more" test "$c" = 1
		return
	fi
	echo 0 > $tr/tracing_on
	# Pageblocks of the span (pageblock_order is the PMD order here).
	pb=$(( $(cat /sys/kernel/mm/transparent_hugepage/hpage_pmd_size 2>/dev/null || echo 2097152) / 4096 ))
	demo contig_pageblocks $(( (${sp:-0} + pb - 1) / pb ))
	# Per scan, the pageblocks it looked at: 'scans LAST-SCAN'.
	awk '/set_zone_contiguous\(\) \{/ { s++; k = 0 } /__pageblock_pfn_to_page\(\);/ { k++ }
		/set_zone_contiguous\(\);/ { s++; k = 0 }
		END { printf "%d %d\n", s, k }' $tr/trace > /tmp/scan
	read -r scans looked < /tmp/scan
	echo nop > $tr/current_tracer
	say "set_zone_contiguous: $scans scans in the verdict plug, the last looked at $looked pageblocks"
	demo contig_base_scans "$scans"
	demo contig_base_scanned "$looked"
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
	if selftest page_zeroed "alloc_free=no free 1 GiB range may be left after the pmem and hotplug parts" \
		"round_trip=hibernation runs in the reporting scenario's mmfast.pz_hibernate=1 mode only"; then
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

# settle FUNC N: wait (at most 200 polls of 20 ms) until the profiled
# FUNC has been called N times and the profile has stopped moving: the
# guest sees a plug or unplug done before its last call has returned.
settle() {
	local n=0 prev=-1 now
	while [ $n -lt 200 ]; do
		now=$(cat $tr/trace_stat/function* | awk '$4 == "us" { t += $3 } END { printf "%.3f", t }')
		[ "$(prof_hits "$1")" -ge "$2" ] && [ "$now" = "$prev" ] && return 0
		prev=$now
		usleep 20000
		n=$((n + 1))
	done
	say "$1 called $(prof_hits "$1") times, not $2, after 200 polls"
}

# Deferred struct page init at boot, on the raw trace clock (set by the
# kernel parameters at the top): from deferred_init_memmap() to the next
# files_maxfiles_init(), per struct page initialised (the highest zone's
# managed pages but its first section).
boot_part() {
	local t0 t1 z man
	t0=$(traced deferred_init_memmap)
	t1=$(traced files_maxfiles_init "${t0:-0}")
	if [ -z "$t0" ] || [ -z "$t1" ]; then
		say "no deferred init traced (a kernel without CONFIG_DEFERRED_STRUCT_PAGE_INIT?)"
		demo deferred_per_page none
		return
	fi
	z=$(awk '$1 == "Node" && $2 == "0," { z = $4 } z ~ /^(DMA|DMA32|Normal)$/ && $1 == "managed" && $2 > 0 { print z, $2; z = "" }' /proc/zoneinfo | tail -1)
	man=${z#* }
	demo deferred_pages $((man - 32768))
	demo deferred_per_page "$(awk -v n=$((t1 - t0)) -v p=$((man - 32768)) 'BEGIN { printf "%.1f", n / p }')"
}

# Unplug what contig_part plugged: the isolation of the blocks taken
# away (set_migratetype_isolate(), which page-isolation makes step over
# free buddy pages), per memory block.
unplug_part() {
	local plug bs nb target
	plug=$(param mmfast.plug 512)
	bs=$(( 0x$(cat /sys/devices/system/memory/block_size_bytes) >> 20 ))
	prof_on set_migratetype_isolate offline_and_remove_memory ||
		{ bad "cannot profile set_migratetype_isolate"; return; }
	target=$(( $(memtotal_kb) - (more + bs) * 1024 ))
	qmp_request_size "$plug"
	wait_memtotal "$target" 120 "$plug" ||
		{ bad "virtio-mem unplug back to $plug MiB did not complete"; prof_off; return; }
	nb=$(( (more + bs) / bs ))
	settle offline_and_remove_memory "$nb"
	prof_off
	demo unplug_blocks "$nb"
	demo isolate_kinsn_per_block $(( $(prof_ns set_migratetype_isolate) / nb / 1000 ))
}

demo accel "$(param mmfast.accel tcg)"
demo icount "$icount"
demo kernel "$kernel"
if [ "$what" = all ]; then
	boot_part
	pmem_part
	contig_part
	unplug_part
fi
if [ "$kernel" = base ]; then
	say "reporting part left out: the base kernel cannot skip clears (mmfast.kernel=base)"
	[ "$what" = all ] || bad "mmfast.demo=reporting shows nothing on the base kernel"
else
	reporting_part
fi
[ "$fails" = 0 ]
