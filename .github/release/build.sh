#!/usr/bin/env bash
# Cross-compiles acp and acp-registry for linux, darwin and windows on amd64
# and arm64 into OUT (12 files named PROGRAM-OS-ARCH[.exe]) and writes
# OUT/SHA256SUMS, the file the GitHub Action checks its download against.
# The release workflow runs it on a version tag; .ci/run runs it into a
# temporary folder so a broken release is found before a tag is pushed.
#
#   .github/release/build.sh OUT [VERSION]
#
# VERSION defaults to `git describe`. It reaches the programs twice:
# `go build` stamps the module version and commit into the build info from
# git (debug.ReadBuildInfo: Main.Version, vcs.revision), and -X sets
# internal/cli.Version and internal/cli.Commit for builds outside a git
# checkout (the linker ignores -X for a variable that does not exist).
set -euo pipefail

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
	echo "usage: $0 OUT [VERSION]" >&2
	exit 2
fi
out=$1
cd "$(dirname "$0")/../.."
root=$PWD
case $out in /*) ;; *) out=$OLDPWD/$out ;; esac
version=${2:-$(git describe --tags --always --dirty 2>/dev/null || echo devel)}
commit=$(git rev-parse HEAD 2>/dev/null || echo unknown)
module=$(go list -m)

mkdir -p "$out"
files=()
ldflags="-s -w -X $module/internal/cli.Version=$version -X $module/internal/cli.Commit=$commit"
for goos in linux darwin windows; do
	for goarch in amd64 arm64; do
		ext=
		[ "$goos" = windows ] && ext=.exe
		tmp=$(mktemp -d "$out/.build-XXXXXX")
		# One go build per platform for both programs: they share most
		# packages, so compiling them together halves the work.
		# -buildvcs=auto overrides a GOFLAGS=-buildvcs=false set on the machine.
		CGO_ENABLED=0 GOOS=$goos GOARCH=$goarch go build -trimpath -buildvcs=auto -ldflags "$ldflags" -o "$tmp/" ./cmd/acp ./cmd/acp-registry
		for prog in acp acp-registry; do
			mv "$tmp/$prog$ext" "$out/$prog-$goos-$goarch$ext"
			files+=("$prog-$goos-$goarch$ext")
		done
		rmdir "$tmp"
		echo "built $goos/$goarch" >&2
	done
done

cd "$out"
# sha256sum's format ("<hex>  <name>"), which `sha256sum -c` and
# `shasum -a 256 -c` both read.
if command -v sha256sum >/dev/null 2>&1; then
	sha256sum "${files[@]}" >SHA256SUMS.tmp
else
	shasum -a 256 "${files[@]}" >SHA256SUMS.tmp
fi
mv SHA256SUMS.tmp SHA256SUMS
echo "wrote ${#files[@]} binaries and SHA256SUMS to $out (version $version, commit $commit, from $root)" >&2
