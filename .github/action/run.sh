#!/usr/bin/env bash
# The GitHub Action's one step (action.yml): install the acp-registry that
# matches the action's ref, then run one command with --format github.
#
# Everything comes in through the environment, never through text pasted
# into this script, so no input can become shell code:
#   ACP_COMMAND     validate | build | verify | matrix | site
#   ACP_PATH        registry folder (default: the command's own default)
#   ACP_OUT         --out, one argument (build, matrix, site)
#   ACP_MATRIX      --matrix, one argument (site: the snapshot to show)
#   ACP_SKIP_URLS   true | false
#   ACP_STRICT      true | false
#   ACP_ARGS        more arguments, split at whitespace (no quotes, globs or
#                   variables are interpreted)
#   ACP_VERSION     release to use (default: the action's ref)
#   ACP_ACTION_REF, ACP_ACTION_REPOSITORY, ACP_ACTION_PATH
#                   github.action_ref / action_repository / action_path;
#                   composite actions do not always get the first two, so
#                   they are also read from the action's path
#                   (.../_actions/OWNER/REPO/REF).
#   ACP_RELEASES_URL  where releases are downloaded from (default
#                   $GITHUB_SERVER_URL/OWNER/REPO/releases/download)
#   ACP_GIT_URL     the repository, to find which release tag a moving ref
#                   such as v1 points at (default $GITHUB_SERVER_URL/OWNER/REPO)
#
# Install: the release archive acp-OS-ARCH.tar.gz (.zip on Windows) of the
# tag, checked against the release's SHA256SUMS, and its acp-registry; a
# mismatch or an archive missing from SHA256SUMS stops here. Only when the ref has no release at all (a branch,
# a commit) is acp-registry built from the action's own source, which is
# the module at exactly that ref.
#
# Exit status: the command's own (0 ok, 3 problems found, 2 bad usage, such
# as a path that holds no agent, which fails rather than passing every pull
# request); 1 when the install failed; 2 for a bad input.
set -euo pipefail
set -f # no input is ever a glob

die() { # code message
	local code=$1
	shift
	echo "::error title=acp-registry action::$*"
	exit "$code"
}
note() { echo "acp-registry action: $*" >&2; }

command=${ACP_COMMAND:-validate}
case $command in
validate | build | verify | matrix | site) ;;
*) die 2 "input command must be validate, build, verify, matrix or site, not \"$command\"" ;;
esac
if [ -n "${ACP_MATRIX:-}" ] && [ "$command" != site ]; then
	die 2 "input matrix is the snapshot that command: site shows; drop it for command: $command"
fi
bool() { # name value: sets $flag to true or false
	case $2 in
	true | True | TRUE | yes | 1) flag=true ;;
	false | False | FALSE | no | 0 | "") flag=false ;;
	*) die 2 "input $1 must be true or false, not \"$2\"" ;;
	esac
}
bool skip-urls "${ACP_SKIP_URLS:-false}"
skip_urls=$flag
bool strict "${ACP_STRICT:-false}"
strict=$flag
extra=()
if [ -n "${ACP_ARGS:-}" ]; then
	read -r -d '' -a extra <<<"$ACP_ARGS" || true
fi

# --- which release --------------------------------------------------------
# Git Bash on Windows runners is given D:\a\... paths.
unixpath() {
	if [ -n "$1" ] && command -v cygpath >/dev/null 2>&1; then cygpath -u "$1"; else printf '%s\n' "$1"; fi
}
action_path=$(unixpath "${ACP_ACTION_PATH:-}")
ref=${ACP_ACTION_REF:-}
repo=${ACP_ACTION_REPOSITORY:-}
if [ -n "$action_path" ] && { [ -z "$ref" ] || [ -z "$repo" ]; }; then
	# .../_actions/OWNER/REPO/REF
	p=${action_path%/}
	[ -n "$ref" ] || ref=${p##*/}
	p=${p%/*}
	r=${p##*/}
	p=${p%/*}
	[ -n "$repo" ] || repo=${p##*/}/$r
fi
version=${ACP_VERSION:-$ref}
# uses: ./ — the action is the repository being tested: its own source,
# never a release.
workspace=$(unixpath "${GITHUB_WORKSPACE:-}")
if [ -z "${ACP_VERSION:-}" ] && [ -n "$workspace" ] && [ -n "$action_path" ]; then
	case ${action_path%/}/ in "${workspace%/}"/*) version= ;; esac
fi
server=${GITHUB_SERVER_URL:-https://github.com}
releases=${ACP_RELEASES_URL:-$server/$repo/releases/download}
git_url=${ACP_GIT_URL:-$server/$repo}

case ${RUNNER_OS:-$(uname -s)} in
Linux | linux) os=linux ;;
macOS | Darwin) os=darwin ;;
Windows | MINGW* | MSYS* | CYGWIN*) os=windows ;;
*) die 1 "no release binary for the OS ${RUNNER_OS:-$(uname -s)}" ;;
esac
case ${RUNNER_ARCH:-$(uname -m)} in
X64 | x86_64 | amd64) arch=amd64 ;;
ARM64 | arm64 | aarch64) arch=arm64 ;;
*) die 1 "no release binary for the architecture ${RUNNER_ARCH:-$(uname -m)}" ;;
esac
ext=
asset=acp-$os-$arch.tar.gz
if [ "$os" = windows ]; then ext=.exe asset=acp-$os-$arch.zip; fi

semver='^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?$'
# Release tags that name the same commit as version, newest first: an exact
# vX.Y.Z is itself; a moving tag (v1), a branch or a commit is looked up.
candidates() {
	if [[ $version =~ $semver ]]; then
		echo "$version"
		return
	fi
	[ -n "$version" ] || return 0
	local refs commit
	refs=$(GIT_TERMINAL_PROMPT=0 git ls-remote --tags --heads "$git_url" 2>/dev/null) || {
		note "could not list the tags of $git_url"
		return 0
	}
	if [[ $version =~ ^[0-9a-f]{40}$ ]]; then
		commit=$version
	else
		# An annotated tag's commit is on its ^{} line, listed after it.
		commit=$(awk -v a="refs/tags/$version" -v b="refs/heads/$version" \
			'$2 == a || $2 == a "^{}" || $2 == b {c = $1} END {print c}' <<<"$refs")
	fi
	[ -n "$commit" ] || return 0
	awk -v c="$commit" '$1 == c {sub("^refs/tags/", "", $2); sub("\\^\\{\\}$", "", $2); print $2}' <<<"$refs" |
		grep -E "$semver" | sort -u -V -r || true
}

fetch() { # url file -> 0 ok, 4 not found; dies on any other failure
	# https only; plain http for a loopback server (mirrors, the tests). The
	# host is what curl connects to: up to the first / ? or #, after the
	# last @ (http://localhost:80@otherhost/ is otherhost), without the port.
	local proto='=https' code host
	case $1 in
	http://*)
		host=${1#http://}
		host=${host%%[/?#]*}
		host=${host##*@}
		case $host in
		\[*\]*) host=${host%%]*}] ;;
		*) host=${host%%:*} ;;
		esac
		case $host in 127.0.0.1 | localhost | '[::1]') proto='=http' ;; esac
		;;
	esac
	code=$(curl -sS -L --proto "$proto" --proto-redir =https --retry 3 --connect-timeout 10 --max-time 300 \
		-o "$2" -w '%{http_code}' "$1") || die 1 "download $1 failed (HTTP ${code:-no answer})"
	case $code in
	200) return 0 ;;
	404) return 4 ;;
	*) die 1 "download $1: HTTP $code" ;;
	esac
}

sha256() {
	if command -v sha256sum >/dev/null 2>&1; then
		sha256sum "$1" | cut -d' ' -f1
	else
		shasum -a 256 "$1" | cut -d' ' -f1
	fi
}

tmp=$(unixpath "${RUNNER_TEMP:-${TMPDIR:-/tmp}}")
dir=$(mktemp -d "$tmp/acp-registry-action.XXXXXX")
trap 'rm -rf "$dir"' EXIT
bin=
for tag in $(candidates); do
	status=0
	fetch "$releases/$tag/SHA256SUMS" "$dir/SHA256SUMS" || status=$?
	if [ "$status" -eq 4 ]; then
		note "no release binaries at $tag"
		continue
	fi
	# Digests in either case: sha256sum writes lower case, other tools upper.
	want=$(awk -v f="$asset" '$2 == f || $2 == "*" f {print tolower($1)}' "$dir/SHA256SUMS")
	[ -n "$want" ] || die 1 "release $tag: SHA256SUMS lists no $asset, so it cannot be checked; refusing to run it"
	status=0
	fetch "$releases/$tag/$asset" "$dir/$asset" || status=$?
	[ "$status" -eq 0 ] || die 1 "release $tag lists $asset in SHA256SUMS but has no such file"
	got=$(sha256 "$dir/$asset")
	if [ "$got" != "$want" ]; then
		die 1 "release $tag: $asset has sha256 $got but SHA256SUMS says $want; refusing to run it"
	fi
	mkdir "$dir/x"
	case $asset in
	*.zip) unzip -q "$dir/$asset" "acp-registry$ext" -d "$dir/x" ;;
	*) tar -xzf "$dir/$asset" -C "$dir/x" "acp-registry$ext" ;;
	esac || die 1 "release $tag: $asset holds no acp-registry$ext"
	chmod +x "$dir/x/acp-registry$ext"
	bin=$dir/x/acp-registry$ext
	note "using acp-registry$ext of $asset, release $tag (sha256 $got checked)"
	break
done

if [ -z "$bin" ]; then
	command -v go >/dev/null 2>&1 ||
		die 1 "no release binaries for \"$version\" and no Go to build them: use a released tag (vX.Y.Z) or add actions/setup-go before this action"
	bin=$dir/acp-registry$ext
	if [ -n "$action_path" ] && [ -f "$action_path/go.mod" ]; then
		note "no release binaries for \"$version\": building acp-registry from the action's source"
		(cd "$action_path" && go build -trimpath -o "$bin" ./cmd/acp-registry) || die 1 "building acp-registry from $action_path failed"
	else
		[ -n "$version" ] || die 1 "no version to install: set the action's version input"
		note "no release binaries for \"$version\": go install of the module at $version"
		GOBIN=$dir go install "github.com/agentclientprotocol/acp-registry-go/cmd/acp-registry@$version" || die 1 "go install at $version failed"
	fi
fi

# --- run ------------------------------------------------------------------
# Flags only where this version of the command has them, so one action
# serves older and newer releases; asking for one that does not exist
# is an error, not a silent no-op.
help=$("$bin" "$command" --help 2>&1) || die 1 "$bin $command --help failed: $help"
has() { grep -Eq -- "^ *(-[A-Za-z], )?$1( |\$)" <<<"$help"; }
args=("$command")
has --format && args+=(--format github)
if [ "$skip_urls" = true ]; then
	has --skip-urls || die 2 "acp-registry $command has no --skip-urls: drop skip-urls"
	args+=(--skip-urls)
fi
if [ "$strict" = true ]; then
	has --strict || die 2 "acp-registry $command has no --strict: drop strict"
	args+=(--strict)
fi
if [ -n "${ACP_OUT:-}" ]; then
	has --out || die 2 "acp-registry $command has no --out: drop out"
	args+=(--out "$ACP_OUT")
fi
if [ -n "${ACP_MATRIX:-}" ]; then
	has --matrix || die 2 "acp-registry $command has no --matrix: use a newer version"
	args+=(--matrix "$ACP_MATRIX")
fi
args+=("${extra[@]}")
[ -n "${ACP_PATH:-}" ] && args+=(-- "$ACP_PATH")

status=0
"$bin" "${args[@]}" || status=$?
if [ -n "${GITHUB_OUTPUT:-}" ]; then
	echo "exit-code=$status" >>"$GITHUB_OUTPUT"
fi
exit "$status"
