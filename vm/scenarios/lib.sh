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
# selftest NAME [CASE=WHY]...: run the mm kselftest category NAME the
# kselftest way: /selftests/mm/ksft_NAME.sh, which runs
# 'run_vmtests.sh -t NAME' (bash) from /selftests/mm.  The TAP of
# run_vmtests.sh and of the program's harness is kept in /tmp/NAME.tap and
# its results are printed.  Passes only if run_vmtests.sh reported the
# category and did not fail it, the harness ran to its totals with at least
# one case, no case failed, and every case ran: a case may skip only where
# the scenario names it as CASE=WHY, WHY saying in words why that skip is
# expected.  A kselftest missing from the initramfs is a failure.
selftest() {
	local name=$1 dir=/selftests/mm tap rc allowed= a out
	shift
	tap=/tmp/$name.tap
	for a in "$dir/ksft_$name.sh" "$dir/run_vmtests.sh" "$dir/$name" /bin/bash; do
		[ -x "$a" ] || { say "selftest $name: $a not in the initramfs"; return 1; }
	done
	for a in "$@"; do
		allowed="$allowed ${a%%=*}"
		say "  $name: ${a%%=*} may skip: ${a#*=}"
	done
	(cd "$dir" && "./ksft_$name.sh") > "$tap" 2>&1
	rc=$?
	grep -E '^(# )?(not ok|ok) [0-9]|^# # Totals' "$tap" | sed 's/^/MMFAST:   /'
	out=$(awk -v allowed="$allowed " -v rc="$rc" '
		/^(not )?ok [0-9]+ / { outer++; if ($1 == "not") { print "run_vmtests.sh failed it: " $0; bad++ }; next }
		/^# (not )?ok [0-9]+ / {
			l = substr($0, 3); no = l ~ /^not /
			sub(/^(not )?ok [0-9]+ /, "", l)
			c = l; sub(/ .*/, "", c); short = c; sub(/^[^.]*\./, "", short)
			cases++
			if (no) { print "case " c " failed"; bad++ }
			else if (l ~ / # SKIP/) {
				why = l; sub(/.* # SKIP */, "", why)
				if (index(" " allowed, " " short " ") || index(" " allowed, " " c " "))
					print "case " c " skipped as expected (" why ")"
				else { print "case " c " skipped unexpectedly: " why; bad++ }
			}
			next
		}
		/^# # Totals: / { totals = 1 }
		END {
			if (rc != 0 && rc != 4) { print "exit status " rc; bad++ }
			if (!outer) { print "run_vmtests.sh reported no result for the category"; bad++ }
			if (!totals) { print "the harness did not reach its totals"; bad++ }
			if (!cases) { print "no test case ran"; bad++ }
			printf "RESULT %d\n", bad
		}' "$tap")
	echo "$out" | grep -v '^RESULT ' | sed "s/^/MMFAST:   $name: /"
	[ "$(echo "$out" | sed -n 's/^RESULT //p')" = 0 ]
}
# memmap_debug_on: print memmap_init_zone_device()'s timing (its pr_debug,
# matched by the format the base and the series share).
memmap_debug_on() {
	echo 'format "initialised %lu pages in" +p' > /sys/kernel/debug/dynamic_debug/control ||
		{ bad "cannot enable the memmap_init_zone_device pr_debug"; return 1; }
}
# memmap_rebind MODE DRIVER N: unbind and bind the device bound to the nd
# driver DRIVER N times and leave the memory map timings of those binds,
# "PAGES MS" a line, in /tmp/MODE.times (after memmap_debug_on).
memmap_rebind() {
	local mode=$1 drv=/sys/bus/nd/drivers/$2 n=$3 dev i=0
	dev=$(cd "$drv" && ls -d pfn* dax* namespace* 2>/dev/null | head -1)
	[ -n "$dev" ] || { bad "$mode: nothing bound to $2"; return 1; }
	dmesg -c > /dev/null
	while [ $i -lt "$n" ]; do
		echo "$dev" > "$drv/unbind" && echo "$dev" > "$drv/bind" ||
			{ bad "$mode: rebind $i of $dev failed"; return 1; }
		i=$((i + 1))
	done
	dmesg | sed -n 's/.*memmap_init_zone_device initialised \([0-9]*\) pages in \([0-9]*\)ms.*/\1 \2/p' > "/tmp/$mode.times"
	check "$mode: $n rebinds of $dev, $(wc -l < "/tmp/$mode.times") memmap init timings" \
		test "$(wc -l < "/tmp/$mode.times")" = "$n"
}
