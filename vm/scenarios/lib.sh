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
# Under tools/run-vm --icount (QEMU TCG -icount shift=0) the guest's TSC,
# and so sched_clock() and the raw trace clock, advance one nanosecond per
# instruction the guest's vCPUs execute (all of them: tools/bench gives the
# guest one), whatever the host's load.  A span measured on it holds the
# instructions executed meanwhile, interrupts included; where every vCPU
# idles, QEMU jumps the clock to the next timer (sleep=off), so a span
# that idles is not an instruction count.  printk's local_clock() adds a
# per-boot offset once sched_clock is stable: boot figures use the raw
# clock.
icount=$(param mmfast.icount 0)
# span NAME NS: a duration read in nanoseconds, as a metric: guest
# instructions ('insn') under icount, microseconds otherwise.
span() {
	if [ "$icount" = 1 ]; then
		metric "$1" "$2" insn
	else
		metric "$1" "$(awk -v n="$2" 'BEGIN { printf "%.1f", n / 1000 }')" us
	fi
}
# per_page NAME NS PAGES: a duration per struct page (instructions per
# struct page under icount, nanoseconds otherwise), two decimals.
per_page() {
	[ "${3:-0}" -gt 0 ] || return 0
	metric "$1" "$(awk -v n="$2" -v p="$3" 'BEGIN { printf "%.2f", n / p }')" \
		"$([ "$icount" = 1 ] && echo insn/page || echo ns/page)"
}
# printk_ns PATTERN: the timestamp of the first kernel log line matching
# PATTERN (sed regex, no '|'), in nanoseconds (the log has microseconds).
printk_ns() {
	dmesg | sed -n "s|^\[ *\([0-9]*\)\.\([0-9]*\)\] .*$1.*|\1 \2|p" | head -1 | sec_us_ns
}
# sec_us_ns: "SECONDS MICROSECONDS" lines (a log timestamp's two halves)
# as nanoseconds (busybox awk reads 0123 as octal: zeros stripped first).
sec_us_ns() {
	awk '{ sub(/^0+/, "", $1); sub(/^0+/, "", $2); printf "%.0f\n", $1 * 1000000000 + $2 * 1000 }'
}

# traced FUNC [AFTER]: the raw-clock timestamp (ns) of FUNC's first entry
# in the trace of the function tracer started at boot (ftrace=function
# ftrace_filter=... trace_clock=local; after AFTER ns, if given).
traced() {
	local tr=/sys/kernel/tracing
	[ -r $tr/trace ] || mount -t tracefs tracefs $tr 2>/dev/null
	sed -n "s/.* \([0-9]*\)\.\([0-9]*\): $1 .*/\1 \2/p" $tr/trace 2>/dev/null | sec_us_ns |
		awk -v a="${2:-0}" '$1 > a { print; exit }'
}

# The ftrace function profiler (CONFIG_FUNCTION_PROFILER): the time spent
# in each profiled function, callees included, time scheduled out left
# out (sleep-time off: the CPU time of the function, not how busy the
# guest was meanwhile).
TR=/sys/kernel/tracing
# prof_init: mount tracefs, turn sleep-time off; fails without a profiler.
prof_init() {
	[ -d $TR/trace_stat ] || mount -t tracefs tracefs $TR 2>/dev/null
	[ -w $TR/function_profile_enabled ] || return 1
	echo 0 > $TR/options/sleep-time 2>/dev/null || {
		say "cannot turn the profiler's sleep-time off: times would include time scheduled out"
		return 1
	}
	return 0
}
# prof_on FUNCTION-GLOB...: profile those functions from fresh counts
# (fails if one cannot be traced: not a function here, or inlined).
prof_on() {
	echo 0 > $TR/function_profile_enabled
	echo "$1" > $TR/set_ftrace_filter 2>/dev/null || return 1
	shift
	for f in "$@"; do
		echo "$f" >> $TR/set_ftrace_filter 2>/dev/null || return 1
	done
	echo 1 > $TR/function_profile_enabled
}
prof_off() { echo 0 > $TR/function_profile_enabled; }
# prof_ns NAME, prof_hits NAME: nanoseconds and calls of the profiled
# function NAME (NAME*: of every function whose name starts with NAME),
# summed over the CPUs (the profiler prints microseconds, with fewer
# decimals the larger the time: three below 10 ms, none from 1 s up; and
# names cut at 30 characters, so prof_traceable refuses longer ones).
prof_ns() {
	cat $TR/trace_stat/function* | awk -v f="$1" '$4 == "us" && (f ~ /[*]$/ ?
		index($1, substr(f, 1, length(f) - 1)) == 1 : $1 == f) {
		t += $3 * 1000 } END { printf "%.0f\n", t }'
}
prof_hits() {
	cat $TR/trace_stat/function* | awk -v f="$1" '(f ~ /[*]$/ ?
		index($1, substr(f, 1, length(f) - 1)) == 1 : $1 == f) { n += $2 } END { print n + 0 }'
}
# prof_traceable FUNC: whether FUNC can be profiled in this kernel.
prof_traceable() { [ "${#1}" -le 30 ] && grep -qx "$1" $TR/available_filter_functions; }

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
# driver DRIVER N times, each bind's memmap_init_zone_device() timed alone
# by the function profiler, and leave "PAGES NS" a line, one per bind, in
# /tmp/MODE.times (after memmap_debug_on, whose pr_debug gives the pages;
# its own time has a resolution of a jiffy).
memmap_rebind() {
	local mode=$1 drv=/sys/bus/nd/drivers/$2 n=$3 dev i=0
	dev=$(cd "$drv" && ls -d pfn* dax* namespace* 2>/dev/null | head -1)
	[ -n "$dev" ] || { bad "$mode: nothing bound to $2"; return 1; }
	prof_init || { bad "$mode: no function profiler (CONFIG_FUNCTION_PROFILER)"; return 1; }
	dmesg -c > /dev/null
	: > "/tmp/$mode.ns"
	while [ $i -lt "$n" ]; do
		echo "$dev" > "$drv/unbind" ||
			{ bad "$mode: unbind $i of $dev failed"; return 1; }
		prof_on memmap_init_zone_device ||
			{ bad "$mode: cannot profile memmap_init_zone_device"; return 1; }
		echo "$dev" > "$drv/bind" ||
			{ prof_off; bad "$mode: bind $i of $dev failed"; return 1; }
		prof_off
		[ "$(prof_hits memmap_init_zone_device)" = 1 ] &&
			prof_ns memmap_init_zone_device >> "/tmp/$mode.ns"
		i=$((i + 1))
	done
	dmesg | sed -n 's/.*memmap_init_zone_device initialised \([0-9]*\) pages in .*/\1/p' > "/tmp/$mode.pages"
	check "$mode: $n rebinds of $dev, $(wc -l < "/tmp/$mode.ns") memmap inits timed" \
		test "$(wc -l < "/tmp/$mode.ns")" = "$n" -a "$(wc -l < "/tmp/$mode.pages")" = "$n"
	paste -d' ' "/tmp/$mode.pages" "/tmp/$mode.ns" > "/tmp/$mode.times"
}
