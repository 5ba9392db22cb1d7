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
