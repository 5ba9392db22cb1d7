#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# append: ftrace=function ftrace_filter=deferred_init_memmap trace_clock=perf
# What initialising the memory map costs at boot.  Metrics (guest
# instructions under tools/run-vm --icount, where every log and trace
# timestamp counts instructions; the "append:" line above is added to the
# kernel command line by tools/run-vm):
#   early_memmap      memmap_init(): from its first "pages in unavailable
#                     ranges" line to its last (every range of the boot
#                     memory map but the first few pages below 640 KiB:
#                     the zones below the node's highest, and the first
#                     section of the highest where deferred init takes
#                     the rest); icount only (before that line the log has
#                     no clock without tsc_early_khz=, which --icount
#                     gives); early_per_page: per struct page (the present
#                     pages of those zones, and one section);
#   deferred_init     deferred struct page init (CONFIG_DEFERRED_STRUCT_PAGE_INIT):
#                     from the entry of deferred_init_memmap() (the function
#                     tracer, started at boot by the line above, its clock
#                     the log's: local_clock(), trace_clock=perf; the
#                     default clock is sched_clock() without the log's
#                     per-CPU offset) to its
#                     "node N deferred pages initialised" line, icount
#                     only; deferred_per_page: per struct page (the
#                     highest zone's present pages but its first section);
#                     without --icount, deferred_init_ms, the line's own
#                     figure (a jiffy's resolution);
#                     the scenario fails without such a line, as it would
#                     measure nothing, unless mmfast.boot_deferred=0 says
#                     the kernel has no deferred init;
#   boot_init         the time the kernel took to start /init (the "Run
#                     /init as init process" line).
# The memory size comes from the command line (tools/run-vm --mem).  One
# node is assumed (the guests tools/run-vm boots).
. /scenarios/lib.sh

t=$(printk_ns 'Run /init as init process')
[ -n "$t" ] || { bad "no 'Run /init as init process' line in the kernel log"; exit 1; }
say "memory: $(grep MemTotal /proc/meminfo | tr -s ' ')"

# present PAGES of zone NAME of node 0, from /proc/zoneinfo.
present() {
	awk -v z="$1" '$1 == "Node" && $2 == "0," { cur = $4 } cur == z && $1 == "present" { print $2; exit }' /proc/zoneinfo
}
# The highest zone populated at boot (deferred init's) and the ones below
# it; ZONE_MOVABLE holds only what memory hotplug added here (no
# movablecore=), ZONE_DEVICE nothing counted.
zones=$(awk '$1 == "Node" && $2 == "0," { z = $4 } z ~ /^(DMA|DMA32|Normal)$/ && $1 == "present" && $2 > 0 { print z; z = "" }' /proc/zoneinfo)
top=$(echo "$zones" | tail -1)
below=0
for z in $(echo "$zones" | sed '$d'); do below=$((below + $(present "$z"))); done
sect=32768	# PAGES_PER_SECTION, x86_64
toppages=$(present "$top")
first=$(( toppages < sect ? toppages : sect ))
say "zones: $(echo "$zones" | tr '\n' ' ')(highest $top: $toppages present pages)"

d=$(dmesg | sed -n 's/.*node [0-9]* deferred pages initialised in \([0-9]*\)ms.*/\1/p' |
	sort -n | tail -1)
if [ -z "$d" ]; then
	[ "$(param mmfast.boot_deferred 1)" = 0 ] ||
		bad "no 'deferred pages initialised' line in the kernel log (CONFIG_DEFERRED_STRUCT_PAGE_INIT?)"
elif [ "$icount" = 1 ]; then
	tr=/sys/kernel/tracing
	[ -r $tr/trace ] || mount -t tracefs tracefs $tr 2>/dev/null
	t0=$(sed -n 's/.* \([0-9]*\)\.\([0-9]*\): deferred_init_memmap .*/\1 \2/p' $tr/trace 2>/dev/null |
		head -1 | sec_us_ns)
	t1=$(printk_ns 'deferred pages initialised')
	if [ -z "$t0" ]; then
		bad "no deferred_init_memmap() entry in the trace: boot with ftrace=function ftrace_filter=deferred_init_memmap"
	else
		span deferred_init $((t1 - t0))
		per_page deferred_per_page $((t1 - t0)) $((toppages - first))
	fi
else
	metric deferred_init_ms "$d" ms
fi
if [ "$icount" = 1 ]; then
	e0=$(printk_ns 'pages in unavailable ranges')
	e1=$(dmesg | sed -n 's/^\[ *\([0-9]*\)\.\([0-9]*\)\] .*pages in unavailable ranges.*/\1 \2/p' |
		tail -1 | sec_us_ns)
	if [ -z "$e0" ] || [ "$e0" = "$e1" ]; then
		bad "fewer than two 'pages in unavailable ranges' lines: cannot bracket memmap_init()"
	elif [ "$e0" = 0 ]; then
		bad "the boot log has no clock at memmap_init() (tsc_early_khz= missing?)"
	else
		early=$below
		[ -z "$d" ] && early=$((below + toppages)) || early=$((below + first))
		span early_memmap $((e1 - e0))
		per_page early_per_page $((e1 - e0)) "$early"
	fi
fi
span boot_init "$t"
[ "$fails" = 0 ]
