#!/bin/sh
# bench/build.sh: `acp-registry build --skip-urls` against `acp-registry
# validate --skip-urls` on the same generated 5,000-agent tree (whole
# processes). Target: build within 1.5x of validate; exits 1 when over.
# The Go benchmark of the same comparison: go test ./build -bench Build5000.
# Environment: AGENTS (default 5000), RUNS (default 5), MAX_RATIO (1.5).
set -eu
cd "$(dirname "$0")/.."
AGENTS=${AGENTS:-5000}
RUNS=${RUNS:-5}
MAX_RATIO=${MAX_RATIO:-1.5}

work=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
go build -o "$work/acp-registry" ./cmd/acp-registry

# A third each of binary, npx and uvx agents, like the real registry.
icon='<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 16 16"><path d="M2 2h12v12H2z" fill="currentColor"/></svg>'
awk -v n="$AGENTS" -v root="$work/agents" -v icon="$icon" 'BEGIN {
	for (i = 0; i < n; i++) {
		id = sprintf("agent-%05d", i)
		dir = root "/" id
		system("mkdir -p " dir)
		if (i % 3 == 0) {
			u = "https://github.com/example/" id "/releases/download/v1.2.3/" id
			dist = "\"binary\": {\"darwin-aarch64\": {\"archive\": \"" u "-darwin.tar.gz\", \"cmd\": \"./" id "\"}, " \
			       "\"linux-x86_64\": {\"archive\": \"" u "-linux.tar.gz\", \"cmd\": \"./" id "\"}, " \
			       "\"windows-x86_64\": {\"archive\": \"" u "-windows.zip\", \"cmd\": \"" id ".exe\"}}"
		} else if (i % 3 == 1) {
			dist = "\"npx\": {\"package\": \"@example/" id "@1.2.3\", \"args\": [\"--acp\"]}"
		} else {
			dist = "\"uvx\": {\"package\": \"" id "==1.2.3\"}"
		}
		f = dir "/agent.json"
		printf "{\n  \"id\": \"%s\",\n  \"name\": \"Agent %d\",\n  \"version\": \"1.2.3\",\n  \"description\": \"generated\",\n  \"license\": \"MIT\",\n  \"license_url\": \"https://example.com/license\",\n  \"distribution\": {%s}\n}\n", id, i, dist > f
		close(f)
		print icon > (dir "/icon.svg")
		close(dir "/icon.svg")
	}
}'

# Median wall time in milliseconds of RUNS runs; $PRE runs untimed before
# each one.
PRE=true
median() {
	i=0
	while [ "$i" -lt "$RUNS" ]; do
		$PRE
		s=$(date +%s%N)
		"$@" >/dev/null 2>&1 </dev/null
		e=$(date +%s%N)
		echo $(((e - s) / 1000000))
		i=$((i + 1))
	done | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
}
v=$(median "$work/acp-registry" validate --skip-urls "$work/agents")
# Rebuild: dist/ exists from the previous run, as on a maintainer's machine
# (unchanged files are hard-linked from it, which on ext4 also avoids the
# occasional second or more of kernel time that creating 5,000 files takes
# there right after as many were deleted).
b=$(median "$work/acp-registry" build --skip-urls "$work/agents" --out "$work/dist")
# Cold: no previous output, as in CI; every file is created.
clean() { rm -rf "$work/dist"; }
PRE=clean
c=$(median "$work/acp-registry" build --skip-urls "$work/agents" --out "$work/dist")
ratio=$(awk -v b="$b" -v v="$v" 'BEGIN {printf "%.2f", b / v}')
cold=$(awk -v c="$c" -v v="$v" 'BEGIN {printf "%.2f", c / v}')
echo "agents:        $AGENTS ($(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg))"
echo "validate:      $v ms (median of $RUNS)"
echo "build:         $b ms (median of $RUNS, ratio $ratio, target <= $MAX_RATIO)"
echo "build (cold):  $c ms (median of $RUNS, ratio $cold; creating $AGENTS files is the difference)"
awk -v r="$ratio" -v m="$MAX_RATIO" 'BEGIN {exit !(r <= m)}'
