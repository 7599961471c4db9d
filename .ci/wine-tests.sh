#!/usr/bin/env bash
# Runs every package's tests as Windows programs under Wine (Debian's
# wine64, Wine 8): no Windows machine is reachable from CI, and without
# this the Windows code would first run in the GitHub Windows job.
#
#   .ci/wine-tests.sh [packages...]     (default ./...)
#
# Each package's test binary is built with GOOS=windows go test -c and run
# under wine with the package folder as its working directory, as go test
# does. Tests that Wine cannot run skip themselves (testkit.UnderWine says
# why); any failure fails this script. Needs wine64, wine,
# gcc-mingw-w64-x86-64 and jq (.ci/run installs them).
#
# Two gaps of Wine 8 are bridged here, for the test binaries only (the
# programs we ship are built without either):
#  - Go's runtime needs ProcessPrng from bcryptprimitives.dll, which Wine 8
#    lacks: a small DLL built with mingw-w64 gives it, forwarding to
#    advapi32's SystemFunction036 (RtlGenRandom), and is put in the
#    prefix's system32 with a native-first override.
#  - os.RemoveAll deletes with FileDispositionInformationEx, which Wine 8
#    answers with STATUS_NOT_IMPLEMENTED; Go falls back to the older call
#    only for STATUS_INVALID_INFO_CLASS and kin, so every t.TempDir cleanup
#    failed with "Invalid function". A build overlay (go build -overlay)
#    adds STATUS_NOT_IMPLEMENTED to that fallback list in the test
#    binaries' copy of internal/syscall/windows.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)

export WINEPREFIX=${WINEPREFIX:-${XDG_CACHE_HOME:-$HOME/.cache}/acp-wine/prefix}
export WINEDEBUG=-all
export WINEDLLOVERRIDES="bcryptprimitives=n;mscoree,mshtml="
# No window, no display: Wine's console programs need neither.
unset DISPLAY
wine=$(command -v wine64 || command -v wine || true)
[ -x /usr/lib/wine/wine64 ] && wine=/usr/lib/wine/wine64
[ -n "$wine" ] || { echo "wine-tests: wine64 is not installed (apt-get install wine64)" >&2; exit 1; }

work=$(mktemp -d)
cleanup() {
  wineserver -k >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

# --- the prefix and the ProcessPrng DLL ----------------------------------
sys32=$WINEPREFIX/drive_c/windows/system32
if [ ! -f "$WINEPREFIX/system.reg" ]; then
  echo "wine-tests: creating the prefix $WINEPREFIX" >&2
  mkdir -p "$WINEPREFIX"
  "$wine" wineboot -i >/dev/null 2>&1
  wineserver -w
fi
cat > "$work/prng.c" <<'EOF'
/* ProcessPrng for Wine 8, which lacks it: Go's runtime takes its random
   bytes from bcryptprimitives.dll!ProcessPrng. RtlGenRandom (advapi32's
   SystemFunction036) gives the same. */
#include <windows.h>
BOOLEAN WINAPI SystemFunction036(PVOID buf, ULONG len);
BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
  while (len > 0) {
    ULONG n = len > 0x7fffffff ? 0x7fffffff : (ULONG)len;
    if (!SystemFunction036(data, n)) return FALSE;
    data += n;
    len -= n;
  }
  return TRUE;
}
EOF
printf 'LIBRARY bcryptprimitives.dll\nEXPORTS\n  ProcessPrng\n' > "$work/prng.def"
x86_64-w64-mingw32-gcc -O2 -shared -o "$work/bcryptprimitives.dll" "$work/prng.c" "$work/prng.def" -ladvapi32
cp "$work/bcryptprimitives.dll" "$sys32/bcryptprimitives.dll"

# --- the RemoveAll overlay ------------------------------------------------
at=$(go env GOROOT)/src/internal/syscall/windows/at_windows.go
sed 's/^\tcase STATUS_INVALID_INFO_CLASS, \/\/ the operating system/\tcase NTStatus(0xC0000002), \/\/ STATUS_NOT_IMPLEMENTED: Wine 8 (added by .ci\/wine-tests.sh)\n\t\tSTATUS_INVALID_INFO_CLASS, \/\/ the operating system/' "$at" > "$work/at_windows.go"
if ! grep -q 'Wine 8 (added by' "$work/at_windows.go"; then
  echo "wine-tests: $at no longer has the fallback list this script extends: update the sed" >&2
  exit 1
fi
jq -n --arg from "$at" --arg to "$work/at_windows.go" '{Replace: {($from): $to}}' > "$work/overlay.json"

# --- build and run -------------------------------------------------------
if [ $# -eq 0 ]; then set -- ./...; fi
mapfile -t pkgs < <(GOOS=windows GOARCH=amd64 go list -f '{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}} {{.Dir}}{{end}}' "$@")
echo "wine-tests: $("$wine" --version), ${#pkgs[@]} packages with tests" >&2
mkdir -p "$work/bin" "$work/events"
# The prefix has no browser and reaches no npm registry: the Linux runs
# cover those (ACP_REQUIRE_CORPUS stays: the corpus is read through Z:).
unset ACP_REQUIRE_BROWSER ACP_E2E
# The test binaries' own temporary folders: in the prefix's C:, where Wine
# maps them, not /tmp's Z:.
export TMP='C:\windows\temp' TEMP='C:\windows\temp'
# One go command builds them all, in parallel (each named after the last
# element of its import path, which no two packages share).
t0=$(date +%s)
GOOS=windows GOARCH=amd64 CGO_ENABLED=0 go test -c -overlay "$work/overlay.json" -o "$work/bin/" "${pkgs[@]%% *}"
echo "wine-tests: built ${#pkgs[@]} test binaries ($(($(date +%s) - t0)) s)" >&2
failed=0
for line in "${pkgs[@]}"; do
  pkg=${line%% *}
  dir=${line#* }
  exe=$work/bin/${pkg##*/}.test.exe
  [ -f "$exe" ] || { echo "wine-tests: $pkg: no test binary at $exe" >&2; exit 1; }
  events=$work/events/$(basename "$exe").json
  t0=$(date +%s)
  set +e
  (cd "$dir" && "$wine" "$exe" -test.v=test2json -test.count=1 -test.timeout=10m 2>&1) |
    go tool test2json -p "$pkg" -t > "$events"
  rc=${PIPESTATUS[0]}
  set -e
  summary=$(jq -rs '[.[] | select(.Test != null and (.Action == "pass" or .Action == "fail" or .Action == "skip"))] |
    "\(map(select(.Action=="pass"))|length) pass, \(map(select(.Action=="skip"))|length) skip, \(map(select(.Action=="fail"))|length) fail"' "$events")
  echo "wine-tests: $pkg: $summary ($(($(date +%s) - t0)) s)" >&2
  if [ "$rc" -ne 0 ]; then
    failed=$((failed + 1))
    echo "wine-tests: $pkg FAILED (exit $rc); its failing tests' output:" >&2
    jq -rs '. as $all | [.[] | select(.Action == "fail") | .Test] as $f |
      $all[] | select(.Action == "output" and ((.Test == null) or (.Test as $t | $f | index($t)))) | .Output' "$events" | tail -n 200 >&2
  fi
done

# Every test, every package: the counts, and each skip with its reason.
cat "$work"/events/*.json | jq -rs '
  [.[] | select(.Test != null and (.Action == "pass" or .Action == "fail" or .Action == "skip"))] as $r |
  "wine-tests: all packages: \($r|map(select(.Action=="pass"))|length) pass, \($r|map(select(.Action=="skip"))|length) skip, \($r|map(select(.Action=="fail"))|length) fail"' >&2
if [ -n "${WINE_TESTS_SKIPS:-}" ]; then
  cat "$work"/events/*.json | jq -rs '
    (reduce (.[] | select(.Action == "output" and .Test != null and (.Output | test("^\\s+\\S+\\.go:\\d+: ")))) as $e
      ({}; .[$e.Package + " " + $e.Test] = ($e.Output | sub("^\\s+"; "") | rtrimstr("\n")))) as $why |
    .[] | select(.Action == "skip" and .Test != null) | "skip \(.Package) \(.Test): \($why[.Package + " " + .Test] // "")"' > "$WINE_TESTS_SKIPS"
fi
echo "wine-tests: $((${#pkgs[@]} - failed)) of ${#pkgs[@]} packages pass under Wine ($(($(date +%s) - start)) s)" >&2
[ "$failed" -eq 0 ]
