#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Unplug virtio-mem memory while pages in it are in use and while some of
# them are pinned, in the device's mode (SBM, or BBM with
# virtio_mem.force_bbm=1 on the command line):
# 1. plug mmfast.up_mib MiB (onlined movable: the only ZONE_MOVABLE
#    memory), write mmfast.up_data MiB of a pattern to a tmpfs file (it
#    lands in the plugged memory) and pin its first 64 KiB: busybox cat
#    sendfile()s the file into a pipe nobody reads yet, and the pipe holds
#    a reference to each page cache page it took (shmem's splice_read),
#    which no migration can move;
# 2. ask for 0 MiB: the unplug must stop short of it (MemTotal stays above
#    the boot memory: the memory holding a pinned page stays, however
#    virtio-mem retries), the pinned pages must read back from the pipe as
#    written, and the file must keep its contents;
# 3. release the pin (the pipe read and closed), plug mmfast.up_mib MiB
#    back and ask for 0 MiB again (new requests, so that virtio-mem runs
#    at once rather than at its next retry): now every block must go, the
#    file migrated to boot memory with its contents.
# Where the kernel has offline_and_remove_free_memory(), virtio-mem must
# have tried it during the unplugs (function profiler hits), in either
# mode.  The same checks hold on the base kernel (mmfast.kernel=base), but
# for that last one.
#   mmfast.up_mib=MiB     plugged before the unplugs (default 512)
#   mmfast.up_data=MiB    the tmpfs file (default 32)
#   mmfast.up_settle=S    seconds MemTotal must stay unchanged before the
#                         pinned unplug counts as done (default 10; it
#                         gives up after 20 times that)
. /scenarios/lib.sh

mib=$(param mmfast.up_mib 512)
data=$(param mmfast.up_data 32)
settle=$(param mmfast.up_settle 10)
for v in "mmfast.up_mib=$mib" "mmfast.up_data=$data" "mmfast.up_settle=$settle"; do
	case "${v#*=}" in ''|*[!0-9]*|0|0?*) bad "${v%%=*} must be a positive number, not '${v#*=}'"; exit 1 ;; esac
done
vmem_mib=$(( $(param mmfast.vmem 0) * 1024 ))
[ -n "$(virtio_devs virtio_mem)" ] || { say "no virtio-mem device"; exit 4; }
[ "$(param mmfast.plug 0)" = 0 ] || { bad "start with nothing plugged (tools/run-vm --plug 0)"; exit 1; }
[ "$mib" -le "$vmem_mib" ] || { bad "mmfast.up_mib=$mib exceeds the device ($vmem_mib MiB)"; exit 1; }
block_mib=$(( 0x$(cat /sys/devices/system/memory/block_size_bytes) >> 20 ))
[ "$data" -lt "$mib" ] || { bad "mmfast.up_data=$data must be less than mmfast.up_mib=$mib"; exit 1; }
# virtio-mem prints its big block size in BBM only; the unit it removes.
bb_hex=$(dmesg | sed -n 's/.*virtio_mem.*big block size: 0x\([0-9a-f]*\).*/\1/p' | head -1)
if [ -n "$bb_hex" ]; then
	mode=BBM unit=$(( 0x$bb_hex >> 20 ))
else
	mode=SBM unit=$block_mib
fi
say "virtio-mem in $mode: memory blocks of $block_mib MiB, unplugged whole in units of $unit MiB"

# Where the kernel has it, count virtio-mem's calls of the free path.
freepath=0
if prof_init && prof_traceable offline_and_remove_free_memory; then
	freepath=1
	prof_on offline_and_remove_free_memory alloc_contig_range_noprof offline_and_remove_memory ||
		{ bad "cannot profile the unplug functions"; exit 1; }
fi
hits() {
	[ "$freepath" = 1 ] || return 0
	say "$1: $(prof_hits offline_and_remove_free_memory) free-only offlines tried, $(prof_hits alloc_contig_range_noprof) alloc_contig_range(), $(prof_hits offline_and_remove_memory) offline_and_remove_memory() calls so far"
}

boot_kb=$(memtotal_kb)
echo online_movable > /sys/devices/system/memory/auto_online_blocks
qmp_request_size "$mib"
wait_memtotal $(( boot_kb + mib * 1024 )) 300 "$mib" ||
	{ bad "plug of $mib MiB did not complete (MemTotal $(memtotal_kb) kB)"; exit 1; }
ok "plugged $mib MiB"

mkdir -p /pin
mount -t tmpfs -o size=$((data + 16))m none /pin || { bad "cannot mount a tmpfs"; exit 1; }
yes mmfast-pinned-memory-pattern | head -c $((data * 1024 * 1024)) > /pin/data ||
	{ bad "cannot write $data MiB"; exit 1; }
sum=$(md5sum < /pin/data)
head -c 65536 /pin/data > /tmp/pin-expect
mkfifo /pin/go
# The reader waits for /pin/go before it reads 64 KiB; meanwhile cat has
# filled the pipe (64 KiB, its default size) and waits in sendfile().
( cat /pin/data | { read -r _ < /pin/go; head -c 65536 > /tmp/pin-out; } ) &
pinner=$!
sleep 2
check "the pin holds (cat waits on the pipe)" kill -0 "$pinner"

# Unplug everything: whatever holds a pinned page must stay.
qmp_request_size 0
last=$(memtotal_kb) since=$(now_ms) deadline=$(( $(now_ms) + settle * 20000 ))
while [ $(( $(now_ms) - since )) -lt $(( settle * 1000 )) ] && [ "$(now_ms)" -lt "$deadline" ]; do
	sleep 1
	t=$(memtotal_kb)
	if [ "$t" != "$last" ]; then
		last=$t since=$(now_ms)
	fi
done
left=$(( (last - boot_kb) / 1024 ))
say "unplug to 0 MiB with 64 KiB pinned: $left MiB left plugged (MemTotal $last kB, boot $boot_kb kB)"
hits "pinned unplug"
check "the unplug to 0 stops short while pages are pinned" test "$left" -gt 0
check "the unplug went on where nothing was pinned ($left MiB of $mib left)" test "$left" -lt "$mib"
check "the pin still holds" kill -0 "$pinner"
check "the file kept its contents across the pinned unplug" test "$(md5sum < /pin/data)" = "$sum"

echo go > /pin/go
wait "$pinner" 2>/dev/null
check "the pinned pages read back from the pipe as written" cmp -s /tmp/pin-out /tmp/pin-expect

# A new request makes virtio-mem run now (plugging back what went: a
# smaller one would not change a big block); then unplug everything again.
qmp_request_size "$mib"
wait_memtotal $(( boot_kb + mib * 1024 )) 300 "$mib" ||
	bad "plug back to $mib MiB after the pin: MemTotal $(memtotal_kb) kB"
oarm0=$(prof_hits offline_and_remove_memory 2>/dev/null)
qmp_request_size 0
if wait_memtotal "$boot_kb" 300 0; then
	ok "released: the unplug to 0 MiB completes (MemTotal $(memtotal_kb) kB)"
else
	bad "released: the unplug to 0 MiB did not complete (MemTotal $(memtotal_kb) kB, boot $boot_kb kB)"
fi
hits "after the release"
if [ "$freepath" = 1 ]; then
	# Memory leaves virtio-mem's Linux side only through these two: the
	# units offline_and_remove_memory() did not remove went the free way
	# (reported: which blocks are still free when asked depends on where
	# other allocations went; KUnit's offline_free checks the free path).
	say "last unplug: $(( mib / unit - ($(prof_hits offline_and_remove_memory) - oarm0) )) of $(( mib / unit )) ${unit} MiB units offlined and removed free"
fi
check "the file kept its contents, migrated out of the unplugged memory" test "$(md5sum < /pin/data)" = "$sum"
if [ "$freepath" = 1 ]; then
	check "virtio-mem tried offlining free memory ($mode)" \
		test "$(prof_hits offline_and_remove_free_memory)" -gt 0
	prof_off
elif [ "$(param mmfast.kernel patched)" = base ]; then
	say "no offline_and_remove_free_memory() in the base kernel (mmfast.kernel=base)"
else
	say "offline_and_remove_free_memory() is not traceable in this kernel"
fi
rm -f /pin/data
umount /pin
[ "$fails" = 0 ]
