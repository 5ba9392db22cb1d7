#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# append: ftrace=function ftrace_filter=kernel_execve trace_clock=local
# What deciding zone contiguity costs at boot.  page_alloc_init_late()
# calls set_zone_contiguous() once per populated zone, in the base and in
# the series alike (the series counts a zone only when memory hotplug
# first changes it; without CONFIG_MEMORY_HOTPLUG both compile to the same
# instructions).  Metric: boot_init, the time the kernel took to start
# /init (its first kernel_execve(), raw clock): guest instructions under
# tools/run-vm --icount.
# Boot with the function graph tracer limited to that function to see
# each call too:
#   ftrace=function_graph ftrace_graph_filter=set_zone_contiguous
#   ftrace_graph_max_depth=1
# Where the compiler inlined it into page_alloc_init_late() (it may in one
# kernel and not in the other) the trace has no such call, and only the
# metric is reported.  The layout of the zones comes from the command line
# (-m, memmap= for a hole).
. /scenarios/lib.sh

tr=/sys/kernel/tracing
[ -r $tr/trace ] || mount -t tracefs tracefs $tr 2>/dev/null
# The first kernel_execve() (the start of /init) on the raw clock (the
# function tracer started at boot by the append: line above; printk's
# clock carries a per-boot offset), else the log's line.
t=$(sed -n 's/.* \([0-9]*\)\.\([0-9]*\): kernel_execve .*/\1 \2/p' $tr/trace 2>/dev/null | head -1 | sec_us_ns)
[ -n "$t" ] || t=$(printk_ns 'Run /init as init process')
[ -n "$t" ] || { bad "no kernel_execve() entry in the trace and no 'Run /init as init process' line"; exit 1; }
span boot_init "$t"

tr=/sys/kernel/tracing
[ -d $tr/trace_stat ] || mount -t tracefs tracefs $tr 2>/dev/null
if grep -q 'ftrace_graph_filter=set_zone_contiguous' /proc/cmdline && [ -r $tr/trace ]; then
	# "CPU)  DURATION us |  set_zone_contiguous();", one line per call
	grep 'set_zone_contiguous' $tr/trace | tr -d '!#*@+$&' |
		sed -n 's/^.*[^0-9.]\([0-9][0-9.]*\) us *|.*set_zone_contiguous.*/\1/p' > /tmp/durations
	n=$(wc -l < /tmp/durations)
	if [ "$n" -gt 0 ]; then
		us=$(awk '{ s += $1 } END { printf "%.1f", s }' /tmp/durations)
		say "set_zone_contiguous(): $n calls, $us us in all ($(tr '\n' ' ' < /tmp/durations)us)"
	else
		say "set_zone_contiguous(): no call in the trace (inlined into page_alloc_init_late())"
	fi
fi
[ "$fails" = 0 ]
