# SPDX-License-Identifier: GPL-2.0
# Common helpers for the series tooling.  Sourced, not executed.

set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
WORK=${MMFAST_WORK:-$REPO/work}
CACHE=${MMFAST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mm-fastinit}
KTREE=$WORK/linux
BUILD=$WORK/build

# The pinned base: Debian's linux-source-7.3 from trixie-backports.
BASE_PKG=linux-source-7.3
BASE_SUITE=trixie-backports
BASE_VERSION=7.3.4-1~bpo13+1
BASE_SHA256=703e369ddd4cce971452f5a593ee55df3a5c10c83caf0fa0df039633ed181ee3
BASE_TAG=base
BASE_GIT=$CACHE/base.git
# Directories of patches/ that are postings but not kernel series (they
# apply to another source tree; tools/check-spec checks them).
OTHER_POSTINGS="virtio-spec"

# Fixed committer identity: with 'git am --committer-date-is-author-date'
# the series commits get the same ids on every machine, so an export of an
# unchanged tree reproduces patches/ byte for byte.
export GIT_COMMITTER_NAME="mm-fastinit" GIT_COMMITTER_EMAIL="mm-fastinit@localhost"

PROG=$(basename "$0")

die() {
	echo "$PROG: error: $*" >&2
	exit 1
}

warn() {
	echo "$PROG: warning: $*" >&2
}

info() {
	echo "$PROG: $*" >&2
}

need() {
	local t
	for t in "$@"; do
		command -v "$t" >/dev/null 2>&1 ||
			die "'$t' not found; run tools/install-deps first"
	done
}

# Option values: "x=$(val "$@")" with "$1" the option: its value, or a
# one-line error; arg allows an empty value (--append '').
val() {
	[ $# -ge 2 ] && [ -n "$2" ] || die "$1 needs a value"
	printf '%s' "$2"
}
arg() {
	[ $# -ge 2 ] || die "$1 needs a value"
	printf '%s' "$2"
}

# Print usage from the script's leading comment block (lines starting '##').
usage() {
	sed -n 's/^## \{0,1\}//p' "$0"
}

# ccache set-up shared by all builds: paths below $WORK are rewritten to
# relative ones so a fresh clone elsewhere still hits the cache.
ccache_env() {
	need ccache
	export CCACHE_DIR=${CCACHE_DIR:-$CACHE/ccache}
	export CCACHE_BASEDIR=$WORK
	export CCACHE_NOHASHDIR=true
	export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
	export KBUILD_BUILD_TIMESTAMP="2026-01-01"
	export KBUILD_BUILD_USER=mm-fastinit KBUILD_BUILD_HOST=localhost
	mkdir -p "$CCACHE_DIR"
}

require_tree() {
	[ -e "$KTREE/.git" ] || die "no kernel tree at $KTREE; run tools/apply-series first"
}

# Elapsed-time helper: "t0=$(now)"; "elapsed $t0" prints seconds.
now() { date +%s; }
elapsed() { echo $(( $(date +%s) - $1 )); }

# The series of configs/series, in stacking order.  series_names prints the
# names; series_field NAME on|prefix|kunit prints one field (the subject
# prefix with '_' as a space, KUnit symbols comma-separated).
series_names() {
	grep -v '^[[:space:]]*\(#\|$\)' "$REPO/configs/series" | awk '{ print $1 }'
}
series_field() {
	local col
	case "$2" in on) col=2 ;; prefix) col=3 ;; kunit) col=4 ;; *) die "series_field: bad field '$2'" ;; esac
	local v
	v=$(grep -v '^[[:space:]]*\(#\|$\)' "$REPO/configs/series" |
		awk -v n="$1" -v c="$col" '$1 == n { print $c }')
	[ -n "$v" ] || die "unknown series '$1' (configs/series has: $(series_names | tr '\n' ' '))"
	[ "$2" = prefix ] && v=${v//_/ }
	echo "$v"
}
# The commit a series' branch starts from: the base tag or its series' branch.
series_start() {
	local on
	on=$(series_field "$1" on)
	[ "$on" = base ] && echo "$BASE_TAG" || echo "$on"
}

# accel_decide KERNEL: set ACCEL (kvm or tcg) for an x86_64 guest and
# ACCEL_WHY (the reason, in words).  MMFAST_ACCEL=kvm|tcg (the --accel
# option of the tools) decides without a probe.  Otherwise KVM is used
# when /dev/kvm can be opened and a probe boot of KERNEL under KVM prints
# the kernel's banner within MMFAST_ACCEL_PROBE seconds (default 15):
# nested KVM on some hosts opens /dev/kvm but hangs the guest in the
# kernel decompressor.  The probe's verdict is kept in $CACHE/accel for
# this host kernel and QEMU, so it runs once per machine.
accel_decide() {
	local kernel=$1 want=${MMFAST_ACCEL:-auto} key cached real
	real=${MMFAST_QEMU_REAL:-/usr/bin/qemu-system-x86_64}
	case "$want" in
	kvm|tcg) ACCEL=$want ACCEL_WHY="asked for (--accel or MMFAST_ACCEL=$want)"; return 0 ;;
	auto) ;;
	*) die "--accel takes kvm or tcg, not '$want'" ;;
	esac
	if [ ! -e /dev/kvm ]; then
		ACCEL=tcg ACCEL_WHY="no /dev/kvm"; return 0
	fi
	if [ ! -r /dev/kvm ] || [ ! -w /dev/kvm ]; then
		ACCEL=tcg ACCEL_WHY="/dev/kvm is not readable and writable"; return 0
	fi
	if [ ! -x "$real" ]; then
		ACCEL=tcg ACCEL_WHY="no $real to probe KVM with"; return 0
	fi
	key="$(uname -r) $("$real" --version 2>/dev/null | head -n 1 || true)"
	if [ -f "$CACHE/accel" ] && [ "$(sed -n 1p "$CACHE/accel")" = "$key" ]; then
		ACCEL=$(sed -n 2p "$CACHE/accel") ACCEL_WHY="$(sed -n 3p "$CACHE/accel") (cached probe)"
		case "$ACCEL" in kvm|tcg) return 0 ;; esac
	fi
	[ -f "$kernel" ] || { ACCEL=tcg ACCEL_WHY="no kernel to probe KVM with"; return 0; }
	local secs=${MMFAST_ACCEL_PROBE:-15}
	# grep stops at the banner, so the pipeline's status is grep's; the
	# guest then panics (no root file system) and QEMU exits (-no-reboot),
	# or the timeout ends it.
	if (set +o pipefail
		timeout --kill-after=5 "$secs" "$real" -accel kvm -m 256 -nodefaults \
			-nographic -no-reboot -serial stdio -kernel "$kernel" \
			-append "console=ttyS0 panic=-1" < /dev/null 2>/dev/null |
			grep -aq -m1 'Linux version'); then
		ACCEL=kvm ACCEL_WHY="a probe boot under KVM printed the kernel banner"
	else
		ACCEL=tcg ACCEL_WHY="a probe boot under KVM printed nothing in ${secs} s (nested KVM hangs in the decompressor on some hosts)"
	fi
	mkdir -p "$CACHE"
	printf '%s\n%s\n%s\n' "$key" "$ACCEL" "$ACCEL_WHY" > "$CACHE/accel.tmp.$$" &&
		mv "$CACHE/accel.tmp.$$" "$CACHE/accel"
}
# set_accel VALUE: the --accel option of the tools (kvm or tcg).
set_accel() {
	case "$1" in
	kvm|tcg) export MMFAST_ACCEL=$1 ;;
	*) die "--accel takes kvm or tcg, not '$1'" ;;
	esac
}
# The accelerator as figures name it.
accel_label() { [ "$1" = kvm ] && echo KVM || echo TCG; }

# progress LABEL OUT WATCH COMMAND...: run COMMAND with its stdout in OUT
# (stderr too, unless OUT is -, which keeps stdout for the caller) and
# show that it is alive: on a terminal one status line, rewritten in place
# every second, with the elapsed time and the last build stage found in
# the file WATCH ("CC mm/page_alloc.o"; WATCH may be OUT); otherwise (CI)
# a plain line every minute.  Returns COMMAND's exit status.
progress() {
	local label=$1 out=$2 log=$3 t0 pid rc rcf tty= last=0 stage line cols=80
	shift 3
	t0=$(now)
	# Two lanes of tools/test share the terminal: plain lines then.
	if [ -t 2 ] && [ -z "${MMFAST_NO_STATUS:-}" ]; then
		tty=1
		cols=$(tput cols 2>/dev/null || echo 80)
	fi
	# The command's status goes through a file: 'wait PID' alone has
	# failed with "pid N is not a child of this shell" under load in a
	# CI run (another wait in the same shell reaped it first).
	rcf=$(mktemp "${TMPDIR:-/tmp}/mmfast-rc.XXXXXX")
	if [ "$out" = - ]; then
		{ "$@" && echo 0 > "$rcf" || echo $? > "$rcf"; } &
	else
		{ "$@" > "$out" 2>&1 && echo 0 > "$rcf" || echo $? > "$rcf"; } &
	fi
	pid=$!
	# A background command of a script ignores SIGINT: take the whole
	# process group down on Ctrl-C, so no build or guest outlives us.
	trap 'trap - INT TERM; kill 0' INT TERM
	while kill -0 "$pid" 2>/dev/null; do
		sleep 1
		stage=$(tail -n 20 "$log" 2>/dev/null | grep -aE '^  [A-Z0-9_]+ +[^ ]' | tail -n 1 |
			awk '{ print $1, $2 }' | cut -c1-50 || true)
		if [ -n "$tty" ]; then
			line="$PROG: $label: $(elapsed "$t0") s${stage:+, $stage}"
			printf '\r\033[K%s' "${line:0:$((cols - 1))}" >&2
		elif [ $(( $(now) - last )) -ge 60 ]; then
			last=$(now)
			[ "$(elapsed "$t0")" -lt 5 ] || info "$label: $(elapsed "$t0") s${stage:+, $stage}"
		fi
	done
	wait "$pid" 2>/dev/null || true
	rc=$(cat "$rcf" 2>/dev/null || true)
	rm -f "$rcf"
	rc=${rc:-1}
	trap - INT TERM
	[ -z "$tty" ] || printf '\r\033[K' >&2
	return $rc
}

# require_scenario NAME: die unless vm/scenarios/NAME.sh is a scenario.
require_scenario() {
	[ -f "$REPO/vm/scenarios/$1.sh" ] && [ "$1" != lib ] ||
		die "no scenario '$1' in vm/scenarios/ (known: $(cd "$REPO/vm/scenarios" && ls *.sh | sed 's/\.sh$//' | grep -vx lib | tr '\n' ' '))"
}

# The identity every commit and patch of the project carries: a placeholder,
# not a person.  tools/export-series --from replaces it in what it exports;
# tools/check-series --send refuses to let it (or any example.org,
# example.com, *.example, *.invalid, *.test or localhost address) be sent.
PLACEHOLDER_IDENT="mm-fastinit developers <mm-fastinit@example.org>"

# b4_setup: set B4 to the b4 to run: MMFAST_B4, else b4 $B4_VERSION from
# PyPI in a virtualenv of its own ($CACHE/b4-venv), made on first use.
B4_VERSION=0.16.0
b4_setup() {
	B4=${MMFAST_B4:-$CACHE/b4-venv/bin/b4}
	if [ ! -x "$B4" ] && [ -z "${MMFAST_B4:-}" ]; then
		local py=python3 venv=$CACHE/b4-venv
		[ -x /usr/bin/python3 ] && py=/usr/bin/python3
		info "installing b4 $B4_VERSION from PyPI into $venv"
		rm -rf "$venv"
		mkdir -p "$CACHE"
		"$py" -m venv "$venv" > "$CACHE/b4-venv.log" 2>&1 ||
			{ rm -rf "$venv"; die "python3 -m venv failed (Debian: apt-get install python3-venv; log $CACHE/b4-venv.log)"; }
		"$venv/bin/pip" install -q "b4==$B4_VERSION" >> "$CACHE/b4-venv.log" 2>&1 ||
			{ rm -rf "$venv"; die "pip install b4==$B4_VERSION into $venv failed (log $CACHE/b4-venv.log)"; }
	fi
	"$B4" --version >/dev/null 2>&1 || die "$B4 does not run"
}

# b4_thread MBOX NAME PATCH...: write to MBOX the thread git send-email
# would send of the PATCH files (the cover letter first): a Message-ID on
# every mail, every patch in reply to the first.
b4_thread() {
	python3 - "$@" <<'PY'
import sys
out, name, files = sys.argv[1], sys.argv[2], sys.argv[3:]
root = '<mmfast-%s-0000@localhost>' % name
with open(out, 'w') as f:
    for n, path in enumerate(files):
        text = open(path).read()
        head, sep, body = text.partition('\n\n')
        lines = head.split('\n')
        ids = ['Message-ID: <mmfast-%s-%04d@localhost>' % (name, n)]
        if n:
            ids += ['In-Reply-To: ' + root, 'References: ' + root]
        f.write('\n'.join(lines[:1] + ids + lines[1:]) + sep + body)
        if not body.endswith('\n'):
            f.write('\n')
        f.write('\n')
PY
}
