#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Re-use after free page reporting: the page_zeroed kselftest dirties
# memory, frees it, flushes reporting to virtio-balloon (which discards the
# pages on the host), gets memory back as anonymous 4 KiB pages, THP,
# hugetlb surplus pages (mmap reservation), hugetlb pool pages (nr_hugepages)
# and hugetlbfs pages (fallocate), and reads every byte (it must be zero).
# It runs the kselftest way (run_vmtests.sh -t page_zeroed), and every case
# of it must run: no skip is expected here, but for the hibernation case
# without mmfast.pz_hibernate=1.  Every case also fails on a kernel warning
# or bad page and on pgzero_verify_failed (DEBUG_VM found a known-zero page
# that was not zero, and cleared it).
#   debugfs=off            the kernel has no flush knob: with nothing that
#                          confirms zeroing (no host_zeroes_reported=1) the
#                          whole kselftest must skip, with the reason, and
#                          nothing else is checked; with host_zeroes_reported=1
#                          it waits for reporting instead and every case
#                          must pass
#   mmfast.pz_hibernate=1  also hibernate and resume in memory
#                          (PAGE_ZEROED_HIBERNATE=1, hibernation.round_trip):
#                          no free page may be known zero right after the
#                          restore; boot with --plug 0: virtio-mem refuses
#                          hibernation while bound, and the scenario unbinds
#                          it, which needs nothing plugged
#   mmfast.pz_mb=N         size of each test (default 256)
#   mmfast.pz_expect=skip  the kernel must skip clearing reported pages
#                          (pgzero_skipped moves for THP and for each of the
#                          three hugetlb paths); boot with
#                          virtio_balloon.host_zeroes_reported=1 on QEMU
#                          without VIRTIO_BALLOON_F_REPORTED_ZEROED (the
#                          test bed's hook, testbed/)
#   mmfast.pz_expect=none  it must never skip (the negative case); every
#                          case must have reported its skip count (0)
#   mmfast.pz_expect=any   no expectation (A/B runs on both kernels)
#   mmfast.pz_wait=1       wait 5 s for reporting instead of flushing, as on
#                          kernels without the flush knob
#   mmfast.pz_pool_mb=N    afterwards, time growing an empty hugetlb pool
#                          by N MiB, 10 times (pool_grow: the total time
#                          in hugetlb_sysctl_handler(), function profiler),
#                          for benchmarks
#   mmfast.pz_cases=A,B    run only these kselftest cases (e.g. anon_thp,
#                          hugetlb_pool), with the test binary directly, for
#                          benchmarks at sizes where running every case
#                          would take too long; each must pass
# Metrics: anon_4k_ms, thp_ms (populate time), hugetlb_ms (mmap + populate),
# hugetlb_pool_ms (pool growth + populate), hugetlb_falloc_ms (fallocate)
# and the matching *_skipped page counts; under tools/run-vm --icount the
# times are guest instructions instead, without _ms (anon_4k, thp, ...),
# from the kselftest's CLOCK_MONOTONIC (a tenth of a millisecond: 100000
# instructions).
. /scenarios/lib.sh

mb=$(param mmfast.pz_mb 256)
expect=$(param mmfast.pz_expect any)
wait=$(param mmfast.pz_wait 0)
cases=$(param mmfast.pz_cases '')
pool=$(param mmfast.pz_pool_mb 0)
hibernate=$(param mmfast.pz_hibernate 0)
debugfs=$(param debugfs on)
trusted=$(param virtio_balloon.host_zeroes_reported 0)
case "$mb" in ''|0|*[!0-9]*) bad "mmfast.pz_mb must be a size in MiB, not '$mb'"; exit 1 ;; esac
case "$expect" in skip|none|any) ;; *) bad "mmfast.pz_expect must be skip, none or any, not '$expect'"; exit 1 ;; esac
case "$wait" in 0|1) ;; *) bad "mmfast.pz_wait must be 0 or 1, not '$wait'"; exit 1 ;; esac
case "$hibernate" in 0|1) ;; *) bad "mmfast.pz_hibernate must be 0 or 1, not '$hibernate'"; exit 1 ;; esac
case "$pool" in ''|*[!0-9]*) bad "mmfast.pz_pool_mb must be a size in MiB, not '$pool'"; exit 1 ;; esac
case "$cases" in *[!a-z0-9_,]*) bad "mmfast.pz_cases must be case names separated by commas, not '$cases'"; exit 1 ;; esac
# At least half of a case's 4 KiB pages must have skipped their clear for
# "skip": page tables allocated along the way count too, but only a few.
need=$(( mb * 256 / 2 ))
vb=$(virtio_devs virtio_balloon | head -1)
[ -n "$vb" ] || { bad "no virtio-balloon device"; exit 1; }
[ "$(cut -c6 "$vb/features")" = 1 ] || { bad "free page reporting not negotiated"; exit 1; }
say "host_zeroes_reported=$(cat /sys/module/virtio_balloon/parameters/host_zeroes_reported 2>/dev/null || echo n/a)," \
	"pgzero_skipped=$(awk '$1 == "pgzero_skipped" { print $2 }' /proc/vmstat)"

# Without the flush knob and without a confirming device, the kselftest
# has nothing to test: the whole program skips with its reason (exit 4,
# "1..0 # SKIP"), and run_vmtests.sh reports the category skipped.  That is
# the one skip expected here, and only in this mode.
if [ "$debugfs" = off ] && [ "$trusted" != 1 ]; then
	[ ! -e /sys/kernel/debug/page_reporting_flush ] ||
		{ bad "debugfs=off, but /sys/kernel/debug/page_reporting_flush exists"; exit 1; }
	(cd /selftests/mm && ./ksft_page_zeroed.sh) > /tmp/page_zeroed.tap 2>&1
	rc=$?
	sed 's/^/MMFAST:   /' /tmp/page_zeroed.tap
	check "page_zeroed kselftest without debugfs: run_vmtests.sh exit status 4 (skip), got $rc" \
		test "$rc" = 4
	check "page_zeroed kselftest without debugfs: the category skipped" \
		grep -qE '^ok [0-9]+ page_zeroed # SKIP' /tmp/page_zeroed.tap
	check "page_zeroed kselftest without debugfs: skipped with the reason" \
		grep -qE '# 1\.\.0 # SKIP no /sys/kernel/debug/page_reporting_flush .*no device confirms zeroing' /tmp/page_zeroed.tap
	check "page_zeroed kselftest without debugfs: no case ran" \
		sh -c '! grep -qE "^# (not )?ok [0-9]+ " /tmp/page_zeroed.tap'
	[ "$fails" = 0 ]
	exit
fi

# Every case must run, whatever mmfast.pz_expect says: a case that skipped
# proves nothing, in particular not that no clear was skipped.
if [ "$wait" = 1 ]; then export PAGE_ZEROED_WAIT=1; fi
if [ "$hibernate" = 1 ]; then
	# virtio-mem refuses hibernation (its PM notifier) while it is bound;
	# with nothing plugged (--plug 0) it can go.
	for d in /sys/bus/virtio/drivers/virtio_mem/virtio*; do
		[ -e "$d" ] || continue
		echo "${d##*/}" > /sys/bus/virtio/drivers/virtio_mem/unbind ||
			{ bad "cannot unbind ${d##*/} from virtio_mem (boot with --plug 0)"; exit 1; }
	done
	export PAGE_ZEROED_HIBERNATE=1
fi
export PAGE_ZEROED_MB=$mb
# The kselftest checks the skip counts itself too (kernels with the series)
export PAGE_ZEROED_EXPECT=$expect
if [ -z "$cases" ] && [ "$hibernate" = 1 ]; then
	check "page_zeroed kselftest: every case ran, every byte zero, hibernation included" \
		selftest page_zeroed
elif [ -z "$cases" ]; then
	check "page_zeroed kselftest: every case ran, every byte zero" \
		selftest page_zeroed "round_trip=hibernation runs with mmfast.pz_hibernate=1 only"
else
	set --
	for c in $(echo "$cases" | tr , ' '); do set -- "$@" -t "$c"; done
	check "page_zeroed kselftest cases $cases: passed, every byte zero" \
		sh -c 'cd /selftests/mm && ./page_zeroed "$@" > /tmp/page_zeroed.tap 2>&1 &&
			! grep -q "# SKIP" /tmp/page_zeroed.tap' page_zeroed "$@"
fi
sed 's/^/MMFAST:   /' /tmp/page_zeroed.tap
# "# metric NAME VALUE UNIT", behind run_vmtests.sh's "# " prefix.
sed -n 's/^\(# \)*metric //p' /tmp/page_zeroed.tap |
	awk '$2 ~ /^[0-9]+([.][0-9]+)?$/ { print $1, $2, $3 }' > /tmp/pz.metrics
while read -r name value unit; do
	if [ "$icount" = 1 ] && [ "$unit" = ms ]; then
		metric "${name%_ms}" "$(awk -v v="$value" 'BEGIN { printf "%.0f", v * 1000000 }')" insn
	else
		metric "$name" "$value" "$unit"
	fi
done < /tmp/pz.metrics
if [ "$pool" != 0 ]; then
	hp_kb=$(awk '$1 == "Hugepagesize:" { print $2 }' /proc/meminfo)
	n=$(( pool * 1024 / hp_kb ))
	total=0 short=0
	prof_init || { bad "no function profiler (CONFIG_FUNCTION_PROFILER)"; exit 1; }
	for i in 1 2 3 4 5 6 7 8 9 10; do
		echo 0 > /proc/sys/vm/nr_hugepages
		prof_on hugetlb_sysctl_handler || { bad "cannot profile hugetlb_sysctl_handler"; exit 1; }
		echo "$n" > /proc/sys/vm/nr_hugepages
		prof_off
		got=$(cat /proc/sys/vm/nr_hugepages)
		[ "$got" = "$n" ] || short=$((short + 1))
		total=$((total + $(prof_ns hugetlb_sysctl_handler)))
	done
	echo 0 > /proc/sys/vm/nr_hugepages
	check "hugetlb pool grown by $pool MiB 10 times ($short short)" test "$short" = 0
	span pool_grow "$total"
fi
case "$expect" in
skip)
	for t in thp hugetlb hugetlb_pool hugetlb_falloc; do
		n=$(awk -v m="${t}_skipped" '$1 == m { print $2 }' /tmp/pz.metrics)
		check "clears skipped for $t (${n:-no} of $((mb * 256)) pages, need $need)" \
			test "${n:-0}" -ge "$need"
	done ;;
none)
	if [ "$(param mmfast.kernel patched)" = base ]; then
		say "the base kernel cannot skip clears and has no pgzero_skipped (mmfast.kernel=base)"
	else
		for t in anon_4k thp hugetlb hugetlb_pool hugetlb_falloc; do
			n=$(awk -v m="${t}_skipped" '$1 == m { print $2 }' /tmp/pz.metrics)
			check "$t ran and skipped no clear (${n:-no} pages)" test "${n:--1}" = 0
		done
	fi ;;
esac
[ "$fails" = 0 ]
