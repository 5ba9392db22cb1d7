#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Smoke check of the emulated devices: what the guest sees of the nvdimm
# (fsdax and devdax namespaces), virtio-mem, virtio-balloon free page
# reporting and test_hmm.  Exit 0 when every device works.
. /scenarios/lib.sh

say "kernel: $(uname -r)"

# nvdimm: reconfigure the label-less namespace as fsdax (map=dev), then devdax.
ns=$(ndctl list -N 2>/dev/null | sed -n 's/.*"dev":"\(namespace[0-9.]*\)".*/\1/p' | head -1)
if [ -z "$ns" ]; then
	bad "no nvdimm namespace found (ndctl list -N)"
else
	say "nvdimm: $ns, regions: $(ls /sys/bus/nd/devices | grep -c region) region(s)"
	check "fsdax map=dev namespace" \
		sh -c "ndctl create-namespace -f -e $ns -m fsdax -M dev >/tmp/ns.json && test -b /dev/pmem0"
	say "pmem: $(ls /dev/pmem* 2>/dev/null | tr '\n' ' ')size $(cat /sys/block/pmem0/size 2>/dev/null) sectors"
	check "devdax align=2M namespace" \
		sh -c "ndctl create-namespace -f -e $ns -m devdax -a 2M >/tmp/ns.json && test -c /dev/dax0.0"
	say "dax: $(ls /dev/dax* 2>/dev/null | tr '\n' ' ')"
fi

# virtio-mem: the device plugs requested-size at probe; blocks are onlined
# as movable (memhp_default_state on the command line).
vm=$(virtio_devs virtio_mem | head -1)
check "virtio-mem device bound" test -n "$vm"
online=$(cat /sys/devices/system/memory/memory*/state 2>/dev/null | grep -c online)
say "memory: $(grep MemTotal /proc/meminfo | tr -s ' '), $online memory blocks online, block size $(( 0x$(cat /sys/devices/system/memory/block_size_bytes) >> 20 )) MiB"
movable=$(awk '/^Node/ { z = $4 } z == "Movable" && $1 == "present" { print $2; exit }' /proc/zoneinfo)
check "hotplugged memory online in ZONE_MOVABLE (${movable:-0} pages)" test "${movable:-0}" -gt 0

# virtio-balloon: free page reporting is feature bit 5 (VIRTIO_BALLOON_F_REPORTING).
vb=$(virtio_devs virtio_balloon | head -1)
if [ -z "$vb" ]; then
	bad "virtio-balloon device bound"
else
	f=$(cat "$vb/features")
	say "balloon: $vb features $f"
	check "balloon free page reporting negotiated" test "$(echo "$f" | cut -c6)" = 1
	say "page_reporting_order: $(cat /sys/module/page_reporting/parameters/page_reporting_order 2>/dev/null)"
fi

check "test_hmm device present" test -c /dev/hmm_dmirror0

say "dmesg warnings: $(dmesg | grep -cE 'WARNING:|BUG:|Oops')"
[ "$fails" = 0 ]
