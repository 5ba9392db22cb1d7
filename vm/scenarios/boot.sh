#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# What initialising the memory map costs at boot.  Metrics:
#   deferred_init_ms  the longest "node N deferred pages initialised in
#                     X ms" of the kernel log (deferred struct page init,
#                     CONFIG_DEFERRED_STRUCT_PAGE_INIT: page_alloc_init_late()
#                     waits for every node's); the scenario fails without
#                     such a line, as it would measure nothing;
#   boot_init_ms      the time the kernel took to start /init (the "Run
#                     /init as init process" line).
# The memory size comes from the command line (tools/run-vm --mem).
. /scenarios/lib.sh

t=$(dmesg | sed -n 's/^\[ *\([0-9.]*\)\] Run \/init as init process.*/\1/p' | head -1)
[ -n "$t" ] || { bad "no 'Run /init as init process' line in the kernel log"; exit 1; }

d=$(dmesg | sed -n 's/.*node [0-9]* deferred pages initialised in \([0-9]*\)ms.*/\1/p' |
	sort -n | tail -1)
if [ -z "$d" ]; then
	bad "no 'deferred pages initialised' line in the kernel log (CONFIG_DEFERRED_STRUCT_PAGE_INIT?)"
else
	say "memory: $(grep MemTotal /proc/meminfo | tr -s ' ')"
	metric deferred_init_ms "$d" ms
fi
metric boot_init_ms "$(echo "$t" | awk '{ printf "%.1f", $1 * 1000 }')" ms
[ "$fails" = 0 ]
