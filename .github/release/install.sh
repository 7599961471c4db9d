#!/bin/sh
# Installs acp and acp-registry from a release of acp-registry-go:
#
#   curl -fsSL https://github.com/agentclientprotocol/acp-registry-go/releases/download/v1.0.0/install.sh | sh
#
# The copy of this script in a release installs that release (build.sh
# writes its tag below): this repository's "latest" release is the
# registry's, not the tool's, so .../releases/latest/download/ cannot name
# the tool's newest archive.
# It downloads the archive for this machine (acp-OS-ARCH.tar.gz) and the
# release's SHA256SUMS, refuses an archive whose SHA-256 is not the one
# listed, and puts both programs in ACP_INSTALL_DIR (default ~/.local/bin).
# Linux and macOS, amd64 and arm64; on Windows, download the .zip.
#
#   ACP_VERSION       the release to install, vX.Y.Z (default: the release
#                     this script came with)
#   ACP_INSTALL_DIR   where the programs go (default: $HOME/.local/bin)
#   ACP_RELEASES_URL  where releases are (default: the repository's
#                     https://github.com/.../releases; a mirror, or a test)
set -eu

die() {
	echo "acp install: $*" >&2
	exit 1
}

releases=${ACP_RELEASES_URL:-https://github.com/agentclientprotocol/acp-registry-go/releases}
version=${ACP_VERSION:-@RELEASE_VERSION@}
dir=${ACP_INSTALL_DIR:-${HOME:?HOME is not set: set ACP_INSTALL_DIR}/.local/bin}

case $(uname -s) in
Linux) os=linux ;;
Darwin) os=darwin ;;
*) die "no archive for $(uname -s) here: on Windows, download acp-windows-amd64.zip from $releases" ;;
esac
case $(uname -m) in
x86_64 | amd64) arch=amd64 ;;
aarch64 | arm64) arch=arm64 ;;
*) die "no archive for the architecture $(uname -m)" ;;
esac
case $version in
v[0-9]*) base=$releases/download/$version ;;
@RELEASE_VERSION@) die "this copy of install.sh names no release: set ACP_VERSION=vX.Y.Z" ;;
*) die "ACP_VERSION=$version: want a release tag such as v1.0.0" ;;
esac
archive=acp-$os-$arch.tar.gz

if command -v sha256sum >/dev/null 2>&1; then
	sha256() { sha256sum "$1" | cut -d' ' -f1; }
elif command -v shasum >/dev/null 2>&1; then
	sha256() { shasum -a 256 "$1" | cut -d' ' -f1; }
else
	die "neither sha256sum nor shasum is installed: the download cannot be checked"
fi
# https only; plain http for a loopback mirror (and the tests). The host
# is what curl connects to: after the scheme, up to the first / ? or #,
# after the last @ (in http://localhost:80@otherhost/ the part before @ is
# a user name and password), without the port.
proto='=https'
case $base in
http://*)
	host=${base#http://}
	host=${host%%[/?#]*}
	host=${host##*@}
	case $host in
	\[*\]*) host=${host%%]*}] ;;
	*) host=${host%%:*} ;;
	esac
	case $host in
	127.0.0.1 | localhost | '[::1]') proto='=http' ;;
	*) die "ACP_RELEASES_URL=$releases: plain http only for a loopback mirror (127.0.0.1, localhost, [::1]), not for $host: use https" ;;
	esac
	;;
esac
fetch() { # url file
	curl -fsSL --proto "$proto" --proto-redir "$proto" --retry 3 --connect-timeout 10 -o "$2" "$1" ||
		die "download $1 failed"
}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/acp-install.XXXXXX")
new=
trap 'rm -rf "$tmp"; [ -z "$new" ] || rm -f "$new"' EXIT
fetch "$base/SHA256SUMS" "$tmp/SHA256SUMS"
fetch "$base/$archive" "$tmp/$archive"
# Digests in either case: sha256sum writes lower case, other tools upper.
want=$(awk -v f="$archive" '$2 == f || $2 == "*" f {print tolower($1)}' "$tmp/SHA256SUMS")
[ -n "$want" ] || die "SHA256SUMS of $version lists no $archive: refusing to install what cannot be checked"
got=$(sha256 "$tmp/$archive")
[ "$got" = "$want" ] || die "$archive has SHA-256 $got, but SHA256SUMS says $want: refusing to install it"

mkdir -p "$tmp/x" "$dir"
tar -xzf "$tmp/$archive" -C "$tmp/x" acp acp-registry
for prog in acp acp-registry; do
	# A rename in the same folder: a running acp keeps its old file. The
	# new file is one mktemp creates (it refuses a name that exists), never
	# a fixed name: in a shared folder another user could have planted
	# that name as a link to a file of ours, which cp would overwrite.
	new=$(mktemp "$dir/.$prog.XXXXXX") || die "cannot create a file in $dir"
	cat "$tmp/x/$prog" >"$new"
	chmod 755 "$new"
	mv -f "$new" "$dir/$prog"
	new=
done
echo "installed acp and acp-registry ($version, $archive, sha256 $got) in $dir"
case :$PATH: in
*:"$dir":*) ;;
*) echo "note: $dir is not on PATH: add it, e.g. export PATH=\"$dir:\$PATH\"" ;;
esac
