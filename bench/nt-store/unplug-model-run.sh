#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Build and run bench/nt-store/unplug-model.c (the memory-map work of a
# virtio-mem unplug of free ZONE_MOVABLE blocks, base against the series)
# with what a result file needs around it: the exact commands, the date,
# the CPU and its caches, whether this is a VM, the load and what else ran,
# before and after.
#
# usage: bench/nt-store/unplug-model-run.sh [--cpu N] [unplug-model options]
#   e.g. bench/nt-store/unplug-model-run.sh --cpu 1 --runs 9 --blocks 1,8,64
#        > docs/results/native/unplug-model.txt
# Run from the top of the repository.  --cpu N pins the model to CPU N
# (taskset); other options go to unplug-model (--runs N, --blocks N,N,...;
# see its --help).  Exits non-zero if the build fails or the model does
# (its end-state checks stop it with exit status 1).
set -eu

cpu=
if [ "${1-}" = "--cpu" ]; then
	[ $# -ge 2 ] || { echo "unplug-model-run: --cpu wants a CPU number" >&2; exit 2; }
	case $2 in
	''|*[!0-9]*) echo "unplug-model-run: --cpu wants a CPU number, not '$2'" >&2; exit 2 ;;
	esac
	cpu=$2
	shift 2
fi
if [ "${1-}" = "--help" ] || [ "${1-}" = "-h" ]; then
	sed -n '2,/^set -eu/p' "$0" | sed '$d'
	exit 0
fi
src=bench/nt-store/unplug-model.c
[ -f "$src" ] || { echo "unplug-model-run: run from the top of the repository ($src not found)" >&2; exit 2; }
for tool in gcc lscpu uptime top; do
	command -v $tool >/dev/null || { echo "unplug-model-run: $tool not found" >&2; exit 1; }
done
[ -z "$cpu" ] || command -v taskset >/dev/null || { echo "unplug-model-run: taskset not found" >&2; exit 1; }
if [ -n "$cpu" ] && ! taskset -c "$cpu" true 2>/dev/null; then
	echo "unplug-model-run: cannot run on CPU $cpu (online: $(cat /sys/devices/system/cpu/online 2>/dev/null || echo unknown))" >&2
	exit 2
fi

bin=${TMPDIR:-/tmp}/unplug-model.$$
trap 'rm -f "$bin"' EXIT
trap 'exit 1' HUP INT TERM
build="gcc -O2 -Wall -Wextra -o unplug-model $src"
gcc -O2 -Wall -Wextra -o "$bin" "$src" || { echo "unplug-model-run: build failed: $build" >&2; exit 1; }
run="./unplug-model $*"
[ -z "$cpu" ] || run="taskset -c $cpu $run"

hv=no
grep -qw hypervisor /proc/cpuinfo && hv="yes: a VM"
if [ "$hv" = no ]; then
	echo "# $src: native (not TCG), on $(nproc) CPUs, no hypervisor flag"
else
	echo "# $src: native (not TCG), in a $(nproc)-vCPU VM"
fi
echo "# date: $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "# build: $build   ($(gcc --version | head -1))"
echo "# run:   $run"
lscpu | grep -E '^(Model name|CPU family|Model|CPU\(s\)|Hypervisor vendor|Virtualization type|L1d cache|L2 cache|L3 cache):' |
	sed 's/^/# lscpu: /; s/  */ /g'
echo "# cpu flag hypervisor: $hv"
echo "# host kernel: $(uname -r); transparent hugepages: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null || echo unknown)"
echo "# uptime before: $(uptime)"
snapshot() {
	# what runs now: top's second sample (over 1 s), CPU summary and
	# the busiest processes
	top -b -n 2 -d 1 -o %CPU -w 120 | awk '/^top -/ { n++ } n == 2' |
		sed -n '3p;7,12p' | sed 's/ *$//; s/^/#   /'
}
echo "# top before:"
snapshot
rc=0
if [ -n "$cpu" ]; then
	taskset -c "$cpu" "$bin" "$@" || rc=$?
else
	"$bin" "$@" || rc=$?
fi
if [ "$rc" -ne 0 ]; then
	echo "unplug-model-run: unplug-model failed (exit status $rc): the results above are not valid" >&2
	exit "$rc"
fi
echo "# uptime after: $(uptime)"
echo "# top after:"
snapshot
