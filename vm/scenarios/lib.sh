# SPDX-License-Identifier: GPL-2.0
# Helpers for guest scenarios (sourced).
fails=0
say() { echo "MMFAST: $*"; }
ok() { echo "MMFAST: ok   - $*"; }
bad() { echo "MMFAST: FAIL - $*"; fails=$((fails + 1)); }
check() {
	local what=$1
	shift
	if "$@"; then ok "$what"; else bad "$what"; fi
}
# Print the driver-bound virtio devices' sysfs dirs for driver $1.
virtio_devs() {
	local d
	for d in /sys/bus/virtio/drivers/$1/virtio*; do
		[ -e "$d" ] && echo "$d"
	done
}
# param NAME DEFAULT: value of NAME=... on the kernel command line.
param() {
	local w
	for w in $(cat /proc/cmdline); do
		case "$w" in "$1="*) echo "${w#*=}"; return ;; esac
	done
	echo "$2"
}
# metric NAME VALUE UNIT: a measurement tools/bench collects.
metric() { echo "MMFAST-METRIC $1 $2 $3"; }
# Time since boot in milliseconds (10 ms resolution).
now_ms() { awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime; }
memtotal_kb() { awk '/^MemTotal:/ { print $2 }' /proc/meminfo; }
# qmp_request_size MIB: ask the host to set virtio-mem's requested-size.
qmp_request_size() { echo "MMFAST-QMP requested-size $1"; }
# wait_memtotal KB SEC [MIB]: wait until MemTotal is within 4 MiB of KB;
# with MIB, repeat the request for that size every 2 s (kernel messages on
# the serial console can garble the request line).
wait_memtotal() {
	local deadline=$(( $(now_ms) + $2 * 1000 )) again=$(( $(now_ms) + 2000 )) t
	while :; do
		t=$(memtotal_kb)
		[ $(( t > $1 ? t - $1 : $1 - t )) -le 4096 ] && return 0
		[ "$(now_ms)" -lt "$deadline" ] || return 1
		if [ -n "$3" ] && [ "$(now_ms)" -ge "$again" ]; then
			qmp_request_size "$3"
			again=$(( $(now_ms) + 2000 ))
		fi
		usleep 20000
	done
}
# selftest NAME: run /selftests/NAME if the initramfs has it; 4 is a skip.
selftest() {
	local rc
	[ -x "/selftests/$1" ] || { say "selftest $1 not in the initramfs"; return 0; }
	"/selftests/$1" > "/tmp/$1.tap" 2>&1
	rc=$?
	grep -E '^(not ok|ok|# (SKIP|FAIL)|# Totals)' "/tmp/$1.tap" | sed 's/^/MMFAST:   /'
	[ $rc = 0 ] || [ $rc = 4 ]
}
