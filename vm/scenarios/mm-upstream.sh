#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Upstream mm kselftests after free page reporting churn, for an A/B
# comparison of the base and the patched kernel (PG_zeroed: pages the host
# zeroed after reporting must never leak old contents, nor upset the
# allocator).  Needs an initramfs built with
#   tools/make-initramfs --selftests configs/selftests-upstream
# and is meant for a 3 GiB guest with the host trusted on the patched
# kernel:
#   tools/run-vm --mem 3072 --initrd IMAGE --timeout 3600 --append \
#     "virtio_balloon.host_zeroes_reported=1 page_reporting.page_reporting_delay_ms=100" \
#     mm-upstream
# (the base kernel ignores the parameters it does not know).
#
# 1. Churn: /selftests/mm/page_zeroed (PAGE_ZEROED_MB=mmfast.up_churn_mb)
#    dirties, frees, reports and re-uses anon, THP and hugetlb memory, then
#    a tmpfs file of non-zero bytes of the same size is written and deleted,
#    and reporting is flushed (/sys/kernel/debug/page_reporting_flush if
#    present, else a 5 s wait).  Reporting is flushed again before each test
#    so that the tests run on memory that went through reporting.
# 2. Each upstream test runs directly from /selftests/mm (not through
#    run_vmtests.sh, whose categories hold many other tests), with every
#    hugetlb pool emptied and memory compacted first (the tests size their
#    own pools), under a cap of mmfast.up_timeout seconds, and prints
#      MMFAST: upstream NAME pass=P fail=F skip=S xfail=X error=E rc=RC secs=T
#    (the harness's '# Totals:' line, or the ok/not ok lines counted when a
#    test bailed out before its totals; rc=timeout when the cap killed it),
#    the same as MMFAST-METRIC upstream_NAME_{pass,fail,skip} lines, and
#    every result line as 'MMFAST:   NAME| ok ...' for a per-case diff.
#    The page_zeroed churn run is reported the same way.
# 3. dmesg must not hold "Bad page state", "WARNING:" or "BUG:".
# The verdict is step 3 alone (and that every listed test was in the
# initramfs): test results are for comparing the kernels, not judged here.
#
# Parameters:
#   mmfast.up_tests=a,b,...  tests to run (default: all six, in the order
#                            hmm-tests,cow,compaction_test,hugetlb-madvise,
#                            split_huge_page_test,khugepaged)
#   mmfast.up_timeout=SEC    cap per test (default 900)
#   mmfast.up_churn_mb=N     churn size in MiB (default 128)
# Caps: hmm-tests runs without benchmark_thp_migration (-T), a timing
# benchmark with a 120 s harness limit that TCG can exceed; khugepaged runs
# its default set (no arguments: khugepaged and MADV_COLLAPSE contexts,
# anonymous memory), as run_vmtests.sh's first khugepaged line does;
# split_huge_page_test runs without an XFS path (tmpfs only).
. /scenarios/lib.sh

dir=/selftests/mm
tests=$(param mmfast.up_tests hmm-tests,cow,compaction_test,hugetlb-madvise,split_huge_page_test,khugepaged | tr , ' ')
to=$(param mmfast.up_timeout 900)
churn_mb=$(param mmfast.up_churn_mb 128)
flush=/sys/kernel/debug/page_reporting_flush

vmstat() { awk -v k="$1" '$1 == k { print $2 }' /proc/vmstat; }
reporting_flush() {
	if [ -w "$flush" ]; then
		echo 1 > "$flush" || say "writing $flush failed"
	else
		sleep 5
	fi
}
hugetlb_empty() {
	local d
	for d in /sys/kernel/mm/hugepages/hugepages-*; do
		echo 0 > "$d/nr_hugepages" 2>/dev/null
	done
}
hugetlb_state() {
	local d s=
	for d in /sys/kernel/mm/hugepages/hugepages-*; do
		s="$s ${d##*hugepages-}:$(cat "$d/nr_hugepages")"
	done
	echo "${s# }"
}
# report NAME RC SECS: counts of /tmp/up-NAME.tap.
report() {
	local name=$1 rc=$2 secs=$3 counts m
	counts=$(awk '
		/^# Totals: / {
			for (i = 3; i <= NF; i++) { split($i, kv, ":"); t[kv[1]] = kv[2] }
			totals = 1
		}
		/^ok [0-9]+/ { if ($0 ~ /# SKIP/) s++; else if ($0 ~ /# XFAIL/) x++; else p++ }
		/^not ok [0-9]+/ { f++ }
		END {
			if (totals)
				printf "pass=%d fail=%d skip=%d xfail=%d error=%d", t["pass"], t["fail"], t["skip"], t["xfail"] + t["xpass"], t["error"]
			else
				printf "pass=%d fail=%d skip=%d xfail=%d error=%d totals=none", p, f, s, x, 0
		}' "/tmp/up-$name.tap")
	say "upstream $name $counts rc=$rc secs=$secs"
	for m in pass fail skip; do
		metric "upstream_${name}_$m" "$(echo "$counts" | tr ' ' '\n' | sed -n "s/^$m=//p")" cases
	done
	grep -E '^(not )?ok [0-9]+' "/tmp/up-$name.tap" | sed "s/^/MMFAST:   $name| /"
	grep -E '^Bail out!|^# Planned tests' "/tmp/up-$name.tap" | sed "s/^/MMFAST:   $name| /"
	# Context for a failure, a bail-out or a kill: the end of the output.
	case "$counts" in
	*" fail=0 "*" error=0") ;;
	*) tail -n 30 "/tmp/up-$name.tap" | tr -d '\033' | sed "s/^/MMFAST:   $name tail| /" ;;
	esac
}
# run_up NAME ARGS...: run /selftests/mm/NAME ARGS under the cap.
run_up() {
	local name=$1 t0 rc secs
	shift
	[ -x "$dir/$name" ] || {
		bad "$dir/$name is not in the initramfs (tools/make-initramfs --selftests configs/selftests-upstream)"
		return
	}
	hugetlb_empty
	echo 3 > /proc/sys/vm/drop_caches
	echo 1 > /proc/sys/vm/compact_memory
	reporting_flush
	say "running $name $* (cap ${to}s; hugetlb pools: $(hugetlb_state); MemFree $(awk '/^MemFree:/ { print $2 }' /proc/meminfo) kB)"
	t0=$(now_ms)
	(cd "$dir" && timeout "$to" "./$name" "$@") > "/tmp/up-$name.tap" 2>&1 < /dev/null
	rc=$?
	secs=$(( ($(now_ms) - t0) / 1000 ))
	if [ "$secs" -ge "$to" ] && ! grep -q '^# Totals: ' "/tmp/up-$name.tap"; then
		say "$name: killed at the ${to}s cap"
		rc=timeout
	fi
	report "$name" "$rc" "$secs"
	hugetlb_empty
}

say "host_zeroes_reported=$(cat /sys/module/virtio_balloon/parameters/host_zeroes_reported 2>/dev/null || echo n/a)," \
	"page_reporting_flush $([ -w "$flush" ] && echo present || echo absent)," \
	"pgzero_skipped=$(vmstat pgzero_skipped)"
vb=$(virtio_devs virtio_balloon | head -1)
if [ -n "$vb" ] && [ "$(cut -c6 "$vb/features")" = 1 ]; then
	say "free page reporting negotiated"
else
	say "free page reporting NOT negotiated: no churn through the host"
fi

# 1. Churn.
if [ -x "$dir/page_zeroed" ]; then
	say "churn: page_zeroed with PAGE_ZEROED_MB=$churn_mb"
	t0=$(now_ms)
	[ -w "$flush" ] || export PAGE_ZEROED_WAIT=1
	(cd "$dir" && PAGE_ZEROED_MB=$churn_mb timeout "$to" ./page_zeroed) > /tmp/up-page_zeroed.tap 2>&1 < /dev/null
	rc=$?
	unset PAGE_ZEROED_WAIT
	report page_zeroed "$rc" $(( ($(now_ms) - t0) / 1000 ))
else
	bad "$dir/page_zeroed is not in the initramfs"
fi
say "churn: ${churn_mb} MiB of non-zero bytes through tmpfs"
yes mmfast-churn | head -c $((churn_mb * 1048576)) > /tmp/churn.hog
rm -f /tmp/churn.hog
reporting_flush
say "after churn: pgzero_skipped=$(vmstat pgzero_skipped), MemFree $(awk '/^MemFree:/ { print $2 }' /proc/meminfo) kB"

# 2. The upstream tests.
for t in $tests; do
	case "$t" in
	hmm-tests) run_up hmm-tests -T benchmark_thp_migration ;;
	*) run_up "$t" ;;
	esac
done
say "after the tests: pgzero_skipped=$(vmstat pgzero_skipped)"

# 3. dmesg.
dmesg > /tmp/dmesg.txt
n=$(grep -c -E 'Bad page state|WARNING:|BUG:' /tmp/dmesg.txt)
grep -E -A3 'Bad page state|WARNING:|BUG:' /tmp/dmesg.txt | head -40 | sed 's/^/MMFAST:   dmesg| /'
check "dmesg has no 'Bad page state', 'WARNING:' or 'BUG:' ($n lines)" test "$n" = 0
[ "$fails" = 0 ]
