#!/usr/bin/env bash
# Cross-compiles acp and acp-registry for linux, darwin and windows on amd64
# and arm64 and writes into OUT what a release carries:
#   acp-OS-ARCH.tar.gz (linux, darwin) and acp-windows-ARCH.zip, each
#     holding both programs (acp, acp-registry; .exe on Windows) at its root;
#   install.sh, the curl | sh installer (it checks the archive's sum);
#   SHA256SUMS of all of them, which install.sh and the GitHub Action check
#     their downloads against.
# Names carry no version: a script or a link changes only the tag.
# The release workflow runs it on a version tag; .ci/run runs it into a
# temporary folder so a broken release is found before a tag is pushed.
#
#   .github/release/build.sh OUT [VERSION]
#
# ACP_RELEASE_PLATFORMS (default "linux/amd64 linux/arm64 darwin/amd64
# darwin/arm64 windows/amd64 windows/arm64") builds fewer, for tests.
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
platforms=${ACP_RELEASE_PLATFORMS:-linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64}
for platform in $platforms; do
	goos=${platform%/*} goarch=${platform#*/}
	ext=
	[ "$goos" = windows ] && ext=.exe
	tmp=$(mktemp -d "$out/.build-XXXXXX")
	# One go build per platform for both programs: they share most
	# packages, so compiling them together halves the work.
	# -buildvcs=auto overrides a GOFLAGS=-buildvcs=false set on the machine.
	CGO_ENABLED=0 GOOS=$goos GOARCH=$goarch go build -trimpath -buildvcs=auto -ldflags "$ldflags" -o "$tmp/" ./cmd/acp ./cmd/acp-registry
	# Archives as people expect them: .zip on Windows, where tar.gz is
	# foreign, .tar.gz elsewhere, which keeps the executable bit. Owner,
	# times and order fixed, so the same commit gives the same bytes.
	touch -t 200001010000 "$tmp/acp$ext" "$tmp/acp-registry$ext"
	if [ "$goos" = windows ]; then
		archive=acp-$goos-$goarch.zip
		(cd "$tmp" && zip -q -X -D "$out/$archive.tmp" "acp$ext" "acp-registry$ext")
	else
		archive=acp-$goos-$goarch.tar.gz
		tar -C "$tmp" --owner=0 --group=0 --numeric-owner -cf - "acp$ext" "acp-registry$ext" | gzip -n -9 >"$out/$archive.tmp"
	fi
	mv "$out/$archive.tmp" "$out/$archive"
	files+=("$archive")
	rm -rf "$tmp"
	echo "built $goos/$goarch: $archive" >&2
done
# The release's install.sh installs that release.
sed "s/@RELEASE_VERSION@/$version/" "$root/.github/release/install.sh" >"$out/install.sh"
chmod 755 "$out/install.sh"
files+=(install.sh)

cd "$out"
# sha256sum's format ("<hex>  <name>"), which `sha256sum -c` and
# `shasum -a 256 -c` both read.
if command -v sha256sum >/dev/null 2>&1; then
	sha256sum "${files[@]}" >SHA256SUMS.tmp
else
	shasum -a 256 "${files[@]}" >SHA256SUMS.tmp
fi
mv SHA256SUMS.tmp SHA256SUMS
echo "wrote ${#files[@]} files and SHA256SUMS to $out (version $version, commit $commit, from $root)" >&2
