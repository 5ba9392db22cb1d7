#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Rebind the pmem drivers over the emulated NVDIMM and time the memory map
# initialisation of each bind (pr_debug of memmap_init_zone_device()):
#   fsdax, map=dev (nd_pmem, order-0 pages, memmap on the device)
#   devdax, align=2M (dax_pmem, 2 MiB compound pages, memmap on the device)
# mmfast.rebinds=N rebinds per mode (default 10).  Fails if a bind fails,
# a timing is missing or the kernel warns (tools/run-vm checks the latter).
. /scenarios/lib.sh

n=$(param mmfast.rebinds 10)
case "$n" in ''|0|*[!0-9]*) bad "mmfast.rebinds must be at least 1, not '$n'"; exit 1 ;; esac
ctl=/sys/kernel/debug/dynamic_debug/control
# Matched by its format, which the base and the series share (the series
# moves the message into __memmap_init_zone_device()).
echo 'format "initialised %lu pages in" +p' > "$ctl" ||
	{ bad "cannot enable the memmap_init_zone_device pr_debug"; exit 1; }

ns=$(ndctl list -N 2>/dev/null | sed -n 's/.*"dev":"\(namespace[0-9.]*\)".*/\1/p' | head -1)
[ -n "$ns" ] || { bad "no nvdimm namespace"; exit 1; }

# rebind MODE DRIVER: unbind and bind every device of DRIVER n times.
rebind() {
	mode=$1 drv=/sys/bus/nd/drivers/$2
	dev=$(cd "$drv" && ls -d pfn* dax* namespace* 2>/dev/null | head -1)
	[ -n "$dev" ] || { bad "$mode: nothing bound to $2"; return; }
	dmesg -c > /dev/null
	i=0
	while [ $i -lt "$n" ]; do
		echo "$dev" > "$drv/unbind" && echo "$dev" > "$drv/bind" ||
			{ bad "$mode: rebind $i of $dev failed"; return; }
		i=$((i + 1))
	done
	dmesg | sed -n 's/.*memmap_init_zone_device initialised \([0-9]*\) pages in \([0-9]*\)ms.*/\1 \2/p' > /tmp/times
	got=$(wc -l < /tmp/times)
	check "$mode: $n rebinds of $dev, $got memmap init timings" test "$got" = "$n"
	while read -r pages ms; do
		metric "${mode}_memmap_init" "$ms" ms
	done < /tmp/times
	say "$mode: $(head -1 /tmp/times | cut -d' ' -f1) pages per bind, ms: $(cut -d' ' -f2 /tmp/times | tr '\n' ' ')"
}

check "fsdax map=dev namespace on $ns" \
	sh -c "ndctl create-namespace -f -e $ns -m fsdax -M dev > /dev/null"
rebind fsdax nd_pmem
check "devdax align=2M namespace on $ns" \
	sh -c "ndctl create-namespace -f -e $ns -m devdax -a 2M > /dev/null"
rebind devdax dax_pmem
[ "$fails" = 0 ]
