#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Build and run bench/nt-store/memmap-model.c with what a result file needs
# around it: the exact commands, the date, the CPU and its caches, whether
# this is a VM, the load and what else ran, before and after.
#
# usage: bench/nt-store/memmap-model-run.sh [--cpu N] [memmap-model options]
#   e.g. bench/nt-store/memmap-model-run.sh --cpu 1 --runs 9
#        > docs/results/native/memmap-model.txt
# Run from the top of the repository.  --cpu N pins the model to CPU N
# (taskset); other options go to memmap-model (see its --help).
set -eu

cpu=
if [ "${1-}" = "--cpu" ]; then
	[ $# -ge 2 ] || { echo "memmap-model-run: --cpu wants a CPU number" >&2; exit 2; }
	cpu=$2
	shift 2
fi
if [ "${1-}" = "--help" ] || [ "${1-}" = "-h" ]; then
	sed -n '2,/^set -eu/p' "$0" | sed '$d'
	exit 0
fi
src=bench/nt-store/memmap-model.c
[ -f "$src" ] || { echo "memmap-model-run: run from the top of the repository ($src not found)" >&2; exit 2; }
for tool in gcc lscpu uptime top; do
	command -v $tool >/dev/null || { echo "memmap-model-run: $tool not found" >&2; exit 1; }
done
[ -z "$cpu" ] || command -v taskset >/dev/null || { echo "memmap-model-run: taskset not found" >&2; exit 1; }

bin=${TMPDIR:-/tmp}/memmap-model.$$
trap 'rm -f "$bin"' EXIT
build="gcc -O2 -Wall -Wextra -o memmap-model $src"
gcc -O2 -Wall -Wextra -o "$bin" "$src"
run="./memmap-model $*"
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
if [ -n "$cpu" ]; then
	taskset -c "$cpu" "$bin" "$@"
else
	"$bin" "$@"
fi
echo "# uptime after: $(uptime)"
echo "# top after:"
snapshot
