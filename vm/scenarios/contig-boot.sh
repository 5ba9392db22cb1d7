#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# What deciding zone contiguity costs at boot: page_alloc_init_late()
# calls set_zone_contiguous() once per populated zone, in the base and in
# the series alike (the series counts a zone only when memory hotplug
# first changes it).  Boot with the function graph tracer limited to that
# function:
#   ftrace=function_graph ftrace_graph_filter=set_zone_contiguous
#   ftrace_graph_max_depth=1
# and this reads its durations from the trace buffer.  The layout of the
# zones comes from the command line (-m, memmap= for a hole).
# Metric: boot_contig_us, all zones together (and a line per call).
. /scenarios/lib.sh

tr=/sys/kernel/tracing
[ -d $tr/trace_stat ] || mount -t tracefs tracefs $tr 2>/dev/null
[ -r $tr/trace ] || { bad "no $tr/trace (a kernel without CONFIG_FUNCTION_GRAPH_TRACER?)"; exit 1; }
grep -q 'ftrace_graph_filter=set_zone_contiguous' /proc/cmdline ||
	{ bad "boot with ftrace=function_graph ftrace_graph_filter=set_zone_contiguous ftrace_graph_max_depth=1"; exit 1; }
# "CPU)  DURATION us |  set_zone_contiguous();", one line per call
grep 'set_zone_contiguous' $tr/trace | tr -d '!#*@+$&' |
	sed -n 's/^.*[^0-9.]\([0-9][0-9.]*\) us *|.*set_zone_contiguous.*/\1/p' > /tmp/durations
n=$(wc -l < /tmp/durations)
[ "$n" -gt 0 ] || { bad "no set_zone_contiguous() call with a duration in the trace"; grep -m5 set_zone $tr/trace; exit 1; }
sed 's/^/MMFAST: set_zone_contiguous() us: /' /tmp/durations
us=$(awk '{ s += $1 } END { printf "%.1f", s }' /tmp/durations)
say "set_zone_contiguous(): $n calls, $us us in all"
metric boot_contig_us "$us" us
[ "$fails" = 0 ]
