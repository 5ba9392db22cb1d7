#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Plug and unplug virtio-mem memory in steps, asking the host for each new
# requested-size (QMP, see tools/run-vm), first onlined as movable memory,
# then as kernel memory; compact after every plug.  After every step:
# - the upstream compaction_test kselftest compacts memory hard enough to
#   hand most of it out as huge pages; hotplugged zones are contiguous, so
#   its scanners take pageblock_pfn_to_page()'s unchecked path there.  In
#   the movable round, with memory plugged, it must pass; in the kernel
#   round, where the plugged memory may hold unmovable pages, its verdict
#   is reported only.  Either way it must not crash (run-vm fails the run
#   on any kernel WARNING or BUG, among them the DEBUG_VM cross-check of
#   every "contiguous" verdict);
# - the zone_contiguous kselftest (run_vmtests.sh -t zone_contiguous)
#   compares the kernel's contiguity count and verdict with a full scan;
# - after an unplug to 0 in the movable round, ZONE_MOVABLE (nothing but
#   virtio-mem blocks) must be empty: every block of it went offline, and
#   the next plug starts the zone from empty; after a plug from 0, the
#   zone has no hole and must be contiguous.
# The comparison needs /sys/kernel/debug/zone_contiguous, which only
# CONFIG_DEBUG_VM kernels have (read from /proc/config.gz): without it, or
# on the base kernel (mmfast.kernel=base, set by tools/bench), the check is
# not run and the console says why.  The only skip the check accepts is the
# offline/online case when no memory block is online in ZONE_MOVABLE: after
# unplugging everything, and in the round onlined as kernel memory.
# (virtio-mem in 7.3.4 adds memory without MHP_MEMMAP_ON_MEMORY, so
# memory_hotplug.memmap_on_memory=1 changes nothing here: the
# mhp_{init,deinit}_memmap_on_memory() paths need dax/kmem or ACPI hotplug.)
#   mmfast.hp_steps=MiB,...   requested sizes in order (default 1024,0)
#   mmfast.hp_kernel=0          skip the round onlined as kernel memory
#   mmfast.hp_memtest_timeout=S seconds before a mem-on-off-test run stuck in
#                               an offline is killed and run again (240)
#   mmfast.hp_compaction_test=0 skip the upstream kselftests (benchmark
#                               runs): compaction_test after every step,
#                               and memory-hotplug's mem-on-off-test.sh
#                               (offline and online again 10% of the
#                               memory blocks) after every movable plug
#   mmfast.hp_warmup=MiB        before the measured steps, plug MiB and
#                               unplug it again, unmeasured, so that the
#                               host already backs the guest pages the
#                               memory map of plugged memory is allocated
#                               from (QEMU backs guest RAM on first touch,
#                               which dominates a first plug under TCG)
#   mmfast.hp_profile=FUNC,...  profile these functions too (their
#                               metrics: plug_FUNC, unplug_FUNC)
#   mmfast.hp_busy=MiB          memory in use across an unplug: after each
#                               plug from 0 in the movable round, a tmpfs
#                               file of MiB (a pattern) is written, which
#                               lands in ZONE_MOVABLE, that is in plugged
#                               blocks; the unplug back to 0 must migrate
#                               it and leave it intact (its checksum), and
#                               where the kernel can offline free blocks
#                               without allocating them
#                               (offline_and_remove_free_memory()),
#                               virtio-mem must have tried that and
#                               migrated the file's blocks the usual way.
#                               The file is deleted after that unplug
# Metrics per step, from the ftrace function profiler
# (CONFIG_FUNCTION_PROFILER; times callees included, time scheduled out
# left out; guest instructions under tools/run-vm --icount, microseconds
# otherwise):
#   plug, unplug      the kernel's work for the step: add_memory_driver_managed()
#                     (adds and, auto-onlined, onlines each block), and
#                     offline_and_remove_memory() plus alloc_contig_range()
#                     (virtio-mem's unplug of whole blocks and of parts),
#                     plus offline_and_remove_free_memory() where the
#                     kernel has it (free blocks);
#   plug_per_page, unplug_per_page  that per struct page plugged or
#                     unplugged (a 4 KiB page each);
#   plug_FUNC, unplug_FUNC  each of online_pages(), offline_pages() and the
#                     functions above alone, and per struct page
#                     (plug_FUNC_per_page: online_pages() per page is
#                     what writing and freeing the memory map costs);
#   plug_memmap, plug_memmap_per_page  online_pages() less the
#                     contiguity decisions it makes: the memory map
#                     written and freed to the buddy allocator;
#   plug_contig, unplug_contig, and _per_block  deciding zone
#                     contiguity over the step (the base's
#                     set_zone_contiguous(); the series' recounts and
#                     updates), and that per memory block;
#   contig_first_movable, contig_first_kernel (and _per_block)  the same,
#                     for the first plug of each round only: the first
#                     operations on ZONE_MOVABLE, then on the zone kernel
#                     memory is onlined to (a boot zone: boot it with a
#                     hole, memmap=, or above a movablecore= region);
#   plug_ms, unplug_ms  without --icount only: the time until MemTotal
#                     followed the request, by the guest's clock
#                     (includes the host's part: QMP, backing the pages).
. /scenarios/lib.sh

steps=$(param mmfast.hp_steps 1024,0 | tr , " ")
busy=$(param mmfast.hp_busy 0)
kround=$(param mmfast.hp_kernel 1)
ctest=$(param mmfast.hp_compaction_test 1)
mtimeout=$(param mmfast.hp_memtest_timeout 240)
pwant=$(param mmfast.hp_profile "" | tr , " ")
warmup=$(param mmfast.hp_warmup 0)
case "$warmup" in ''|*[!0-9]*) bad "mmfast.hp_warmup must be a size in MiB, not '$warmup'"; exit 1 ;; esac
[ -n "$steps" ] || { bad "mmfast.hp_steps is empty: no step to run"; exit 1; }
case "$kround" in 0|1) ;; *) bad "mmfast.hp_kernel must be 0 or 1, not '$kround'"; exit 1 ;; esac
case "$ctest" in 0|1) ;; *) bad "mmfast.hp_compaction_test must be 0 or 1, not '$ctest'"; exit 1 ;; esac
case "$mtimeout" in ''|*[!0-9]*|0) bad "mmfast.hp_memtest_timeout must be a number of seconds, not '$mtimeout'"; exit 1 ;; esac
[ -r /proc/config.gz ] || { bad "no /proc/config.gz: cannot tell whether this kernel has CONFIG_DEBUG_VM"; exit 1; }
debug_vm=$(zcat /proc/config.gz | grep -c '^CONFIG_DEBUG_VM=y')
say "DEBUG_VM: $debug_vm"

plugged=$(param mmfast.plug 0)
kernel=$(param mmfast.kernel patched)
vmem_mib=$(( $(param mmfast.vmem 0) * 1024 ))
block_kb=$(( 0x$(cat /sys/devices/system/memory/block_size_bytes) / 1024 ))
[ -n "$(virtio_devs virtio_mem)" ] || { say "no virtio-mem device"; exit 4; }
for s in $steps; do
	case "$s" in ''|*[!0-9]*|0?*) bad "mmfast.hp_steps: '$s' is not a size in MiB (digits, no leading zero)"; exit 1 ;; esac
	[ "$s" -le "$vmem_mib" ] || { bad "step $s MiB exceeds the device ($vmem_mib MiB)"; exit 1; }
done

# The kselftest's offline/online case takes a block of ZONE_MOVABLE offline
# (a middle one, leaving a hole) only when asked to.
export ZONE_CONTIGUOUS_OFFLINE=1

# The function profiler times the step's work and the contiguity
# decisions.
prof_init || { bad "no function profiler (CONFIG_FUNCTION_PROFILER)"; exit 1; }
# The base decides with set_zone_contiguous(); the series with
# zone_contiguous_begin() and zone_contiguous_end() (not inlined), around
# every change, neither of which calls the other.  A kernel without the
# record (the base, or another series alone) decides with
# set_zone_contiguous() alone.
if [ "$kernel" = base ] || ! prof_traceable zone_contiguous_end; then
	cfuncs=set_zone_contiguous
else
	cfuncs="zone_contiguous_begin zone_contiguous_end"
fi
# The step's work: top-level calls (none calls another), then parts.
# virtio-mem tries offline_and_remove_free_memory() first where the kernel
# has it (page-isolation), and the other two for a block it refuses.
plugf=add_memory_driver_managed
unplugf="offline_and_remove_memory alloc_contig_range_noprof"
freepath=0
if prof_traceable offline_and_remove_free_memory; then
	freepath=1
	unplugf="offline_and_remove_free_memory $unplugf"
fi
wfuncs="$plugf $unplugf online_pages offline_pages"
pfuncs=
for f in $cfuncs $wfuncs $pwant; do
	case " $pfuncs " in *" $f "*) continue ;; esac
	if prof_traceable "$f"; then
		pfuncs="$pfuncs $f"
	else
		# Asked-for functions may be inlined in one kernel and not
		# in the other: say so and go on.
		case " $cfuncs $plugf $unplugf " in
		*" $f "*) bad "cannot profile $f"; exit 1 ;;
		esac
		say "profile: $f is not traceable in this kernel"
	fi
done
say "profiling:$pfuncs"
# shellcheck disable=SC2086
prof_start() { prof_on $pfuncs || { bad "cannot profile$pfuncs"; exit 1; }; }
# prof_settle BLOCKS WHAT: MemTotal follows a step before its last call
# has returned (onlining frees block by block inside online_pages();
# virtio-mem's unplug adjusts the managed pages after alloc_contig_range()
# and only then offlines and removes the block): wait until the step's
# last function has been called once per block and the profiled time has
# stopped moving, for at most 200 polls of 20 ms.
prof_settle() {
	local last n=0 prev=-1 now still=0 hits
	last=add_memory_driver_managed
	# Removal: either way of offlining and removing a block (a block
	# the free way refuses is counted twice: still must settle too).
	[ "$2" = plug ] || last="offline_and_remove_memory offline_and_remove_free_memory"
	while [ $n -lt 200 ]; do
		now=$(cat $TR/trace_stat/function* | awk '$4 == "us" { t += $3 } END { printf "%.3f", t }')
		if [ "$now" = "$prev" ]; then still=$((still + 1)); else still=0; fi
		hits=0
		for f in $last; do
			case " $pfuncs " in *" $f "*) hits=$((hits + $(prof_hits $f))) ;; esac
		done
		if [ "$hits" -ge "$1" ] && [ $still -ge 1 ]; then
			return 0
		fi
		# Kernel memory: virtio-mem may take part of the request back
		# without removing a whole block (fewer calls than blocks); a
		# second of no profiled work at all means the step is over.
		if [ "$hits" -gt 0 ] && [ $still -ge 50 ]; then
			say "profile $2: $last called $hits times for $1 blocks, then nothing for a second"
			return 0
		fi
		prev=$now
		usleep 20000
		n=$((n + 1))
	done
	say "profile $2: $last called $hits times for $1 blocks after 200 polls"
	return 1
}
# prof_stop BLOCKS WHAT [partial]: report the step's profiled work (a
# step of NB memory blocks that did not complete only with "partial").
prof_stop() {
	local nb=$1 f ns h c=0 w=0 wh=0 pages
	prof_off
	pages=$(( nb * block_kb / 4 ))
	for f in $pfuncs; do
		ns=$(prof_ns "$f")
		h=$(prof_hits "$f")
		say "profile $2: $f $h calls $ns ns ($nb blocks)"
		case " $cfuncs " in *" $f "*) c=$((c + ns)); continue ;; esac
		if [ "$h" != 0 ]; then
			span "${2}_$f" "$ns"
			per_page "${2}_${f}_per_page" "$ns" "$pages"
		fi
		case " $([ "$2" = plug ] && echo $plugf || echo $unplugf) " in
		*" $f "*) w=$((w + ns)) wh=$((wh + h)) ;;
		esac
	done
	# A step whose work was not seen measured nothing: fail, not 0.
	if [ "$nb" -gt 0 ] && [ "$wh" = 0 ]; then
		[ "${3:-}" = partial ] && return 0
		bad "$2: none of$([ "$2" = plug ] && echo " $plugf" || echo " $unplugf") ran for $nb blocks (a step inside plugged blocks?)"
		return 0
	fi
	span "$2" "$w"
	per_page "${2}_per_page" "$w" "$pages"
	# What onlining spends on the memory map: online_pages() without the
	# contiguity decisions, all of which a plug makes inside it (the
	# base's in move_pfn_range_to_zone(), the series' there and around
	# online_pages_range()).
	if [ "$2" = plug ] && [ "$(prof_hits online_pages)" -gt 0 ]; then
		ns=$(( $(prof_ns online_pages) - c ))
		span plug_memmap "$ns"
		per_page plug_memmap_per_page "$ns" "$pages"
	fi
	span "${2}_contig" "$c"
	say "contiguity decisions: $c ns for $nb memory blocks"
	# The first plug of a round is the first operation on the zone it
	# onlines to (ZONE_MOVABLE, then the Normal zone): what a zone's first
	# decision costs, apart.
	if [ "$2" = plug ] && [ "$first" = 1 ]; then
		local z=kernel
		[ "$mode" = online_movable ] && z=movable
		span "contig_first_$z" "$c"
		[ "$nb" -gt 0 ] && span "contig_first_${z}_per_block" $(( c / nb ))
	fi
	[ "$nb" -gt 0 ] || return 0
	span "${2}_contig_per_block" $(( c / nb ))
}

# compaction WHAT MODE MIB: run the upstream compaction_test.
compaction() {
	local ct=/selftests/mm/compaction_test out rc
	[ -x $ct ] || { bad "$1: $ct is not in the initramfs"; return; }
	out=$(cd /selftests/mm && ./compaction_test 2>&1)
	rc=$?
	echo "$out" | grep -E '^(not ok|ok) |^# (Number|ERROR)' | sed "s/^/MMFAST:   compaction_test: /"
	if [ "$rc" -ge 128 ]; then
		bad "$1: compaction_test killed by signal $((rc - 128))"
	elif [ "$rc" = 0 ]; then
		ok "$1: compaction_test passed"
	elif [ "$2" = online_movable ] && [ "$3" -gt 0 ]; then
		bad "$1: compaction_test exit status $rc"
	else
		say "$1: compaction_test exit status $rc (reported only: $([ "$3" = 0 ] && echo 'no memory plugged' || echo 'kernel memory'))"
	fi
}
# memtest WHAT: the upstream memory hotplug kselftest: it onlines every
# offline block, offlines 10% of the online ones (trying them in order
# until enough went offline) and onlines them again.  Its memory notifier
# error injection part needs a module this kernel does not have and is
# skipped (it exits with the result of the rest).
# offline_pages() retries for as long as a page of the block can neither
# be migrated nor freed, until a fatal signal (upstream behaviour): a run
# that has not finished after mmfast.hp_memtest_timeout seconds (default
# 240) has its offlining task's stack and every CPU's backtrace printed,
# is killed (SIGKILL ends the retries) and runs once more from the start
# (it onlines what it left offline first).  Two such runs in a row fail.
# stuck_page: the page an offline that keeps retrying stops at, from the
# test_pages_isolated trace event, with its /proc/kpageflags bits (see
# Documentation/admin-guide/mm/pagemap.rst) and reference count.
stuck_page() {
	local ev=$TR/events/page_isolation/test_pages_isolated fin fl cnt
	[ -w $ev/enable ] || return 0
	echo > $TR/trace
	echo 1 > $ev/enable
	sleep 1
	echo 0 > $ev/enable
	fin=$(grep -o 'fin_pfn=0x[0-9a-f]*' $TR/trace | tail -n 1 | cut -d= -f2)
	[ -n "$fin" ] || { say "stuck offline: no test_pages_isolated event in 1 s"; return 0; }
	fl=$(dd if=/proc/kpageflags bs=8 skip=$((fin)) count=1 2>/dev/null | od -An -tx8 | tr -d ' ')
	cnt=$(dd if=/proc/kpagecount bs=8 skip=$((fin)) count=1 2>/dev/null | od -An -tu8 | tr -d ' ')
	say "stuck offline: test_pages_isolated() stops at pfn $fin: kpageflags 0x$fl, count $cnt"
}
memtest_once() {
	local t=$1 f=/tmp/memtest.out pid n=0
	bash $t -r 10 > $f 2>&1 &
	pid=$!
	while kill -0 $pid 2>/dev/null && [ $n -lt "$mtimeout" ]; do
		sleep 1
		n=$((n + 1))
	done
	if kill -0 $pid 2>/dev/null; then
		say "mem-on-off-test: still running after $n s, at: $(grep -o 'online->offline memory[0-9]*' $f | tail -n 1)"
		for k in /proc/[0-9]*/stack; do
			grep -q -e offline_pages -e memory_subsys_offline -e migrate_pages $k 2>/dev/null || continue
			sed "s|^|MMFAST:   stack of ${k%/stack}: |" $k
		done
		[ ! -w /proc/sysrq-trigger ] || echo l > /proc/sysrq-trigger
		stuck_page
		# The test and its subshells (the one writing "offline" too).
		for k in /proc/[0-9]*; do
			grep -q mem-on-off-test $k/cmdline 2>/dev/null && kill -9 ${k#/proc/} 2>/dev/null
		done
		wait $pid 2>/dev/null
		memtest_out=$(cat $f)
		return 124
	fi
	wait $pid
	memtest_rc=$?
	memtest_out=$(cat $f)
	return 0
}
memtest() {
	local t=/selftests/memory-hotplug/mem-on-off-test.sh out rc
	[ -f $t ] || { bad "$1: $t is not in the initramfs"; return; }
	if ! memtest_once $t; then
		say "$1: mem-on-off-test killed after ${mtimeout} s in an offline; running it again"
		if ! memtest_once $t; then
			bad "$1: mem-on-off-test killed after ${mtimeout} s in an offline, twice in a row"
			return
		fi
	fi
	out=$memtest_out
	rc=$memtest_rc
	echo "$out" | grep -E 'Test scope|trying to offline|FAILED|SKIPPED|skip' |
		sed "s/^[[:space:]]*/MMFAST:   mem-on-off-test: /"
	say "$1: mem-on-off-test offlined $(echo "$out" | grep -c -- '-> Success') block(s), $(echo "$out" | grep -c -- '-> Failure') refused"
	case $rc in
	0) ok "$1: mem-on-off-test passed" ;;
	4) bad "$1: mem-on-off-test skipped: $(echo "$out" | grep -m1 skip)" ;;
	*) bad "$1: mem-on-off-test exit status $rc" ;;
	esac
}
# busy_write: fill a tmpfs file with mmfast.hp_busy MiB of a pattern and
# note its checksum; busy_check WHAT: the file must still hold it.
busy_write() {
	mkdir -p /busy
	grep -q " /busy " /proc/mounts || mount -t tmpfs -o size=$((busy + 16))m none /busy ||
		{ bad "busy: cannot mount a tmpfs"; return 1; }
	yes mmfast-busy-memory-pattern | head -c $((busy * 1024 * 1024)) > /busy/data ||
		{ bad "busy: cannot write $busy MiB"; return 1; }
	busy_sum=$(md5sum < /busy/data)
	say "busy: $busy MiB written to tmpfs after the plug"
}
busy_check() {
	if [ "$(md5sum < /busy/data)" = "$busy_sum" ]; then
		ok "$1: the $busy MiB in use kept their contents"
	else
		bad "$1: the $busy MiB in use changed"
	fi
}
movable_empty() {
	! grep -q ' zone Movable ' /sys/kernel/debug/zone_contiguous
}
# Plugged from nothing, virtio-mem fills ZONE_MOVABLE without holes: the
# zone must say so (the base never did: it decided before onlining).
movable_contiguous() {
	grep ' zone Movable ' /sys/kernel/debug/zone_contiguous | grep -q ' contiguous 1 '
}

total=$(memtotal_kb)
round() {
	mode=$1
	echo "$mode" > /sys/devices/system/memory/auto_online_blocks
	first=1
	for s in $steps; do
		want=$(( total + (s - plugged) * 1024 ))
		blocks=$(( (s > plugged ? s - plugged : plugged - s) * 1024 / block_kb ))
		what=$([ "$s" -ge "$plugged" ] && echo plug || echo unplug)
		prof_start
		t0=$(now_ms)
		qmp_request_size "$s"
		# Kernel memory may hold unmovable pages: its unplug is best effort,
		# so do not wait long for it.
		tmo=300
		[ "$mode" = online ] && [ "$what" = unplug ] && tmo=20
		if wait_memtotal "$want" "$tmo" "$s"; then
			t1=$(now_ms)
			ok "$mode: requested $s MiB, MemTotal $(memtotal_kb) kB after $((t1 - t0)) ms"
			[ "$icount" = 1 ] || metric "${what}_ms" $((t1 - t0)) ms
			prof_settle "$blocks" "$what" ||
				bad "$mode: the $what step's calls did not all return"
			acr_hits=$(prof_hits alloc_contig_range_noprof)
			free_hits=$(prof_hits offline_and_remove_free_memory)
			prof_stop "$blocks" "$what"
		elif [ "$mode" = online ] && [ "$what" = unplug ]; then
			say "$mode: unplug to $s MiB incomplete, MemTotal $(memtotal_kb) kB (kernel memory)"
			prof_stop "$blocks" "$what" partial
		else
			bad "$mode: requested $s MiB, MemTotal $(memtotal_kb) kB, want $want kB"
			prof_stop "$blocks" "$what" partial
			return
		fi
		first=0
		total=$(memtotal_kb)
		from=$plugged
		plugged=$s
		if [ "$what" = plug ]; then
			echo 1 > /proc/sys/vm/compact_memory
		fi
		[ "$ctest" = 0 ] || compaction "$mode, $s MiB" "$mode" "$s"
		if [ "$ctest" = 1 ] && [ "$mode" = online_movable ] && [ "$what" = plug ]; then
			memtest "$mode, $s MiB"
		fi
		# After the kselftests, so that they run as without it.
		if [ "$busy" -gt 0 ] && [ "$mode" = online_movable ]; then
			if [ "$what" = plug ] && [ "$from" = 0 ]; then
				busy_write
			elif [ "$what" = unplug ] && [ -f /busy/data ]; then
				busy_check "$mode, $s MiB"
				if [ "$freepath" = 1 ]; then
					# Whether a block is still free depends on
					# where the data and the kselftests' pages
					# went: the counts are reported, and only the
					# attempt and the migration are required (a
					# block every page of which is free is
					# offlined without allocating it: KUnit's
					# offline_free, and the benchmarks' logs).
					say "$mode, $s MiB: $free_hits free-only offlines tried, $acr_hits alloc_contig_range() calls, $blocks blocks"
					check "$mode, $s MiB: virtio-mem tried offlining blocks free" \
						test "$free_hits" -gt 0
					check "$mode, $s MiB: the blocks in use migrated" \
						test "$acr_hits" -gt 0
				fi
				[ "$s" != 0 ] || rm -f /busy/data
			fi
		fi
		if [ "$kernel" = base ]; then
			say "$mode, $s MiB: zone contiguity not checked: the base kernel has no count (mmfast.kernel=base)"
			continue
		fi
		if [ "$debug_vm" = 0 ]; then
			say "$mode, $s MiB: zone contiguity not checked: no /sys/kernel/debug/zone_contiguous without CONFIG_DEBUG_VM"
			continue
		fi
		check "$mode, $s MiB: /sys/kernel/debug/zone_contiguous present" \
			test -r /sys/kernel/debug/zone_contiguous
		if [ "$mode" = online_movable ] && [ "$s" = 0 ]; then
			check "$mode, 0 MiB: ZONE_MOVABLE is empty (every block offline)" \
				movable_empty
		fi
		if [ "$mode" = online_movable ] && [ "$from" = 0 ] && [ "$s" -gt 0 ]; then
			check "$mode, $s MiB: ZONE_MOVABLE grown from empty is contiguous" \
				movable_contiguous
		fi
		if [ "$mode" = online_movable ] && [ "$s" -gt 0 ]; then
			check "$mode, $s MiB: zone contiguity agrees with a full scan" \
				selftest zone_contiguous
		else
			check "$mode, $s MiB: zone contiguity agrees with a full scan" \
				selftest zone_contiguous "offline_online_movable_block=no memory block is online in ZONE_MOVABLE ($([ "$s" = 0 ] && echo 'all unplugged' || echo 'onlined as kernel memory'))"
		fi
	done
}

if [ "$warmup" -gt 0 ]; then
	[ "$warmup" -gt "$plugged" ] ||
		{ bad "mmfast.hp_warmup ($warmup MiB) must exceed what is plugged at boot ($plugged MiB)"; exit 1; }
	echo online_movable > /sys/devices/system/memory/auto_online_blocks
	qmp_request_size "$warmup"
	wait_memtotal $(( total + (warmup - plugged) * 1024 )) 300 "$warmup" ||
		{ bad "warm-up: plug to $warmup MiB did not complete"; exit 1; }
	qmp_request_size "$plugged"
	wait_memtotal "$total" 300 "$plugged" ||
		{ bad "warm-up: unplug to $plugged MiB did not complete"; exit 1; }
	say "warm-up: plugged to $warmup MiB and back to $plugged MiB (not measured)"
fi
round online_movable
[ "$kround" = 0 ] || round online
[ -r /sys/kernel/debug/zone_contiguous ] && sed 's/^/MMFAST: /' /sys/kernel/debug/zone_contiguous
[ "$fails" = 0 ]
