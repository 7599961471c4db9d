#!/bin/sh
# bench/resolve.sh: how long an editor waits for `acp resolve` of an
# installed agent (whole process), compared with `npx -y <pkg> --version`
# warm, and the launch overhead of the resolved command vs npx.
#
# Needs Go, node/npm and the npm registry. Uses hyperfine when installed
# (apt-get install -y hyperfine), else a simple loop (median of RUNS).
# Environment: PKG (npm spec of the agent), RUNS (default 30).
set -eu
cd "$(dirname "$0")/.."
PKG=${PKG:-@agentclientprotocol/claude-agent-acp@0.101.0}
RUNS=${RUNS:-30}
ID=bench-agent

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/acp" ./cmd/acp

# A one-agent registry folder, so the bench does not depend on the CDN.
mkdir -p "$work/registry/$ID"
version=${PKG##*@}
cat >"$work/registry/$ID/agent.json" <<JSON
{"id": "$ID", "name": "Bench Agent", "version": "$version", "description": "bench",
 "distribution": {"npx": {"package": "$PKG"}}}
JSON
export ACP_HOME="$work/home" ACP_REGISTRY="$work/registry"
"$work/acp" install "$ID" >&2
resolved=$("$work/acp" resolve "$ID")
echo "resolved: $resolved" >&2
npx -y "$PKG" --version >/dev/null 2>&1 </dev/null || true # warm npx's cache

if command -v hyperfine >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1; then
	hf() { # name runs commands...: hyperfine, then "median ms" per command
		name=$1 runs=$2
		shift 2
		hyperfine -N -i --warmup 2 --runs "$runs" --export-json "$work/$name.json" "$@" >&2
		python3 -c 'import json,sys
for r in json.load(open(sys.argv[1]))["results"]:
    print("%10.2f ms median  %s" % (r["median"]*1000, r["command"]))' "$work/$name.json"
	}
	hf resolve "$RUNS" "$work/acp resolve $ID --json"
	hf npx "$((RUNS / 3 + 1))" "npx -y $PKG --version"
	hf launch "$((RUNS / 3 + 1))" "$resolved --version" "$work/acp run $ID -- --version"
	exit 0
fi

# Fallback: median wall time in milliseconds of RUNS runs.
median() {
	i=0
	while [ "$i" -lt "$RUNS" ]; do
		s=$(date +%s%N)
		"$@" >/dev/null 2>&1 </dev/null || true
		e=$(date +%s%N)
		echo $(((e - s) / 1000))
		i=$((i + 1))
	done | sort -n | awk '{a[NR]=$1} END {printf "%.2f ms\n", a[int((NR+1)/2)]/1000}'
}
a=$(median "$work/acp" resolve "$ID" --json)
b=$(median npx -y "$PKG" --version)
c=$(median $resolved --version)
d=$(median "$work/acp" run "$ID" -- --version)
echo "acp resolve (installed):   $a"
echo "npx -y $PKG --version: $b"
echo "resolved command --version: $c"
echo "acp run -- --version:      $d"
