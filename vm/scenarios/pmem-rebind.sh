#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Rebind the pmem drivers over the emulated NVDIMM and time the memory map
# initialisation of each bind (memmap_init_zone_device(), function
# profiler; guest instructions under tools/run-vm --icount):
#   fsdax, map=dev (nd_pmem, order-0 pages, memmap on the device)
#   devdax, align=2M (dax_pmem, 2 MiB compound pages, memmap on the device)
# mmfast.rebinds=N rebinds per mode (default 10).  Fails if a bind fails,
# a timing is missing or the kernel warns (tools/run-vm checks the latter).
. /scenarios/lib.sh

n=$(param mmfast.rebinds 10)
case "$n" in ''|0|*[!0-9]*) bad "mmfast.rebinds must be at least 1, not '$n'"; exit 1 ;; esac
memmap_debug_on || exit 1

ns=$(ndctl list -N 2>/dev/null | sed -n 's/.*"dev":"\(namespace[0-9.]*\)".*/\1/p' | head -1)
[ -n "$ns" ] || { bad "no nvdimm namespace"; exit 1; }

# rebind MODE DRIVER: n rebinds, each bind's memory map time a metric
# (MODE_memmap_init), and per struct page (MODE_per_page).
rebind() {
	memmap_rebind "$1" "$2" "$n" || return 0
	while read -r pages t; do
		span "${1}_memmap_init" "$t"
		per_page "${1}_per_page" "$t" "$pages"
	done < "/tmp/$1.times"
	say "$1: $(head -1 "/tmp/$1.times" | cut -d' ' -f1) pages per bind, ns: $(cut -d' ' -f2 "/tmp/$1.times" | tr '\n' ' ')"
}

check "fsdax map=dev namespace on $ns" \
	sh -c "ndctl create-namespace -f -e $ns -m fsdax -M dev > /dev/null"
rebind fsdax nd_pmem
check "devdax align=2M namespace on $ns" \
	sh -c "ndctl create-namespace -f -e $ns -m devdax -a 2M > /dev/null"
rebind devdax dax_pmem
[ "$fails" = 0 ]
