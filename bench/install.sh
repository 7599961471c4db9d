#!/bin/sh
# Compares acp's binary install with the shell baseline named in the issue
# (curl + sha256sum + tar xz of the same 200 MB archive from loopback) and
# prints the ratio. Target: ratio <= 1.3.
#
#   bench/install.sh [COUNT]     (COUNT runs of each, default 3)
set -eu
cd "$(dirname "$0")/.."
count="${1:-3}"
out="$(mktemp)"
trap 'rm -f "$out"' EXIT
go test -run '^$' -bench 'BenchmarkInstall200MB' -benchtime "${count}x" -count 1 ./installer | tee "$out"
awk '
  /BenchmarkInstall200MB\/installer/          { for (i = 1; i <= NF; i++) if ($(i+1) == "ns/op") ins = $i }
  /BenchmarkInstall200MB\/curl-sha256sum-tar/ { for (i = 1; i <= NF; i++) if ($(i+1) == "ns/op") base = $i }
  END {
    if (ins == "" || base == "") { print "could not read both results"; exit 1 }
    ratio = ins / base
    printf "installer %.2fs  baseline %.2fs  ratio %.2fx (target <= 1.30x)\n", ins / 1e9, base / 1e9, ratio
    exit (ratio <= 1.3 ? 0 : 1)
  }' "$out"
