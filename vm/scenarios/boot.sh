#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# What initialising the memory map costs at boot.  Metrics:
#   deferred_init_ms  the longest "node N deferred pages initialised in
#                     X ms" of the kernel log (deferred struct page init,
#                     CONFIG_DEFERRED_STRUCT_PAGE_INIT: page_alloc_init_late()
#                     waits for every node's); the scenario fails without
#                     such a line, as it would measure nothing, unless
#                     mmfast.boot_deferred=0 says the kernel has no
#                     deferred init (configs/bench-boot-early.config);
#   boot_init_ms      the time the kernel took to start /init (the "Run
#                     /init as init process" line).
# With earlyprintk= on the command line, the host adds early_memmap_ms,
# the boot memory map init of x86 by the host's clock (tools/vm-console.py);
# the scenario fails without it, as it asked for it.
# The memory size comes from the command line (tools/run-vm --mem).
. /scenarios/lib.sh

t=$(dmesg | sed -n 's/^\[ *\([0-9.]*\)\] Run \/init as init process.*/\1/p' | head -1)
[ -n "$t" ] || { bad "no 'Run /init as init process' line in the kernel log"; exit 1; }

d=$(dmesg | sed -n 's/.*node [0-9]* deferred pages initialised in \([0-9]*\)ms.*/\1/p' |
	sort -n | tail -1)
say "memory: $(grep MemTotal /proc/meminfo | tr -s ' ')"
if [ -n "$d" ]; then
	metric deferred_init_ms "$d" ms
elif [ "$(param mmfast.boot_deferred 1)" = 1 ]; then
	bad "no 'deferred pages initialised' line in the kernel log (CONFIG_DEFERRED_STRUCT_PAGE_INIT?)"
fi
if grep -q 'earlyprintk=' /proc/cmdline &&
	! dmesg | grep -q 'Initmem setup node'; then
	bad "earlyprintk= given, but no 'Initmem setup node' line for the host to time"
fi
metric boot_init_ms "$(echo "$t" | awk '{ printf "%.1f", $1 * 1000 }')" ms
[ "$fails" = 0 ]
