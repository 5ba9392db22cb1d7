#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# append: ftrace=function ftrace_filter=deferred_init_memmap,files_maxfiles_init,kernel_execve trace_clock=local
# What initialising the memory map costs at boot.  Metrics, in guest
# instructions under tools/run-vm --icount (the "append:" line above,
# added to the kernel command line by tools/run-vm, starts the function
# tracer at boot on three functions, on the raw sched_clock(), the TSC,
# which counts instructions; printk's local_clock() carries a per-boot
# offset once sched_clock is stable):
#   early_memmap      memmap_init(): from its first "pages in unavailable
#                     ranges" line to its last, by the log's timestamps
#                     (before sched_clock runs, the log's clock is the raw
#                     TSC, given a frequency by tsc_early_khz=); that is
#                     every range of the boot memory map but the first
#                     pages below 640 KiB: the zones below the node's
#                     highest, and the first section of the highest where
#                     deferred init takes the rest; early_per_page: per
#                     struct page (the present pages of those zones and
#                     one section);
#   deferred_init     deferred struct page init
#                     (CONFIG_DEFERRED_STRUCT_PAGE_INIT): from the entry of
#                     deferred_init_memmap() to the next of
#                     files_maxfiles_init(), which page_alloc_init_late()
#                     calls once every node's deferred init is done: the struct pages written and
#                     freed to the buddy allocator; deferred_per_page: per
#                     struct page it initialised (the highest zone's
#                     managed pages but its first section: reserved pages,
#                     such as the memory map itself, are not deferred);
#                     without --icount, deferred_init_ms, the "node N
#                     deferred pages initialised" line's own figure (a
#                     jiffy's resolution);
#                     the scenario fails without deferred init, as it would
#                     measure nothing, unless mmfast.boot_deferred=0 says
#                     the kernel has none;
#   boot_init         to the first kernel_execve() (the start of /init),
#                     raw clock.
# The memory size comes from the command line (tools/run-vm --mem).  One
# node is assumed (the guests tools/run-vm boots).
. /scenarios/lib.sh

tr=/sys/kernel/tracing
[ -r $tr/trace ] || mount -t tracefs tracefs $tr 2>/dev/null
say "memory: $(grep MemTotal /proc/meminfo | tr -s ' ')"

# zone FIELD NAME: that field (present, managed) of zone NAME of node 0.
zone() {
	awk -v z="$2" -v f="$1" '$1 == "Node" && $2 == "0," { cur = $4 } cur == z && $1 == f { print $2; exit }' /proc/zoneinfo
}
# The highest zone populated at boot (deferred init's) and the ones below
# it; ZONE_MOVABLE holds only what memory hotplug added here (no
# movablecore=), ZONE_DEVICE nothing counted.
zones=$(awk '$1 == "Node" && $2 == "0," { z = $4 } z ~ /^(DMA|DMA32|Normal)$/ && $1 == "present" && $2 > 0 { print z; z = "" }' /proc/zoneinfo)
top=$(echo "$zones" | tail -1)
below=0
for z in $(echo "$zones" | sed '$d'); do below=$((below + $(zone present "$z"))); done
sect=32768	# PAGES_PER_SECTION, x86_64
toppages=$(zone present "$top")
topmanaged=$(zone managed "$top")
first=$(( toppages < sect ? toppages : sect ))
say "zones: $(echo "$zones" | tr '\n' ' ')(highest $top: $toppages present, $topmanaged managed pages)"

d=$(dmesg | sed -n 's/.*node [0-9]* deferred pages initialised in \([0-9]*\)ms.*/\1/p' |
	sort -n | tail -1)
if [ -z "$d" ]; then
	[ "$(param mmfast.boot_deferred 1)" = 0 ] ||
		bad "no 'deferred pages initialised' line in the kernel log (CONFIG_DEFERRED_STRUCT_PAGE_INIT?)"
elif [ "$icount" = 1 ]; then
	# files_maxfiles_init() also runs early (vfs_caches_init()): the
	# first call after deferred init started.
	t0=$(traced deferred_init_memmap)
	t1=$(traced files_maxfiles_init "${t0:-0}")
	if [ -z "$t0" ] || [ -z "$t1" ] || [ "$t1" -le "$t0" ]; then
		bad "no deferred_init_memmap() and files_maxfiles_init() entries in order in the trace ('${t0:-none}', '${t1:-none}'): boot with this scenario's append: line"
	else
		span deferred_init $((t1 - t0))
		per_page deferred_per_page $((t1 - t0)) $((topmanaged - first))
	fi
else
	metric deferred_init_ms "$d" ms
fi
if [ "$icount" = 1 ]; then
	e0=$(printk_ns 'pages in unavailable ranges')
	e1=$(dmesg | sed -n 's/^\[ *\([0-9]*\)\.\([0-9]*\)\] .*pages in unavailable ranges.*/\1 \2/p' |
		tail -1 | sec_us_ns)
	if [ -z "$e0" ] || [ -z "$e1" ] || [ "$e1" -le "$e0" ]; then
		bad "fewer than two 'pages in unavailable ranges' lines: cannot bracket memmap_init()"
	elif [ "$e0" = 0 ]; then
		bad "the boot log has no clock at memmap_init() (tsc_early_khz= missing?)"
	else
		[ -z "$d" ] && early=$((below + toppages)) || early=$((below + first))
		span early_memmap $((e1 - e0))
		per_page early_per_page $((e1 - e0)) "$early"
	fi
	t=$(traced kernel_execve)
	[ -n "$t" ] || { bad "no kernel_execve() entry in the trace"; exit 1; }
	span boot_init "$t"
else
	t=$(printk_ns 'Run /init as init process')
	[ -n "$t" ] || { bad "no 'Run /init as init process' line in the kernel log"; exit 1; }
	span boot_init "$t"
fi
[ "$fails" = 0 ]
