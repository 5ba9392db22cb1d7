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
