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
