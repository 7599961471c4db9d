#!/usr/bin/env bash
# Benchmark `acp-registry validate --skip-urls` over registry trees built from
# ../shared/corpus (corpus agents copied under new ids), against the baseline
# of the registry's Python build: 7.3 s for 5,005 agents on this machine.
# Target (issue 2): at least 20x faster (under 0.37 s for 5,000 agents),
# under 100 MB of memory, cost linear in agents.
#
# Usage: bench/validate.sh [RUNS]   (best of RUNS, default 5)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
baseline=7.3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

go build -o "$tmp/acp-registry" ./cmd/acp-registry
for n in 1000 5000; do
	ACP_BENCH_TREE="$tmp/tree-$n" ACP_BENCH_N=$n go test ./validate -run '^TestWriteBenchTree$' -count=1 >/dev/null
done

measure() { # tree -> "wall rss_kb cpu" of the fastest of $runs runs
	local best="" line
	"$tmp/acp-registry" validate "$1" --skip-urls >/dev/null || true # warm the page cache
	for _ in $(seq "$runs"); do
		/usr/bin/time -f "%e %M %U %S" -o "$tmp/time" "$tmp/acp-registry" validate "$1" --skip-urls >/dev/null || true
		line=$(tail -n 1 "$tmp/time" | awk '{printf "%s %s %.2f\n", $1, $2, $3 + $4}')
		if [ -z "$best" ] || awk -v a="$line" -v b="$best" 'BEGIN{split(a,x," ");split(b,y," ");exit !(x[1]<y[1])}'; then
			best=$line
		fi
	done
	echo "$best"
}

read -r w1 m1 c1 <<<"$(measure "$tmp/tree-1000")"
read -r w5 m5 c5 <<<"$(measure "$tmp/tree-5000")"
echo "validate --skip-urls, best of $runs on $(nproc) cores (load average $(cut -d' ' -f1 /proc/loadavg)):"
printf '  1,000 agents: %5.2f s wall, %5.2f s CPU, %4d MB max RSS\n' "$w1" "$c1" $((m1 / 1024))
printf '  5,000 agents: %5.2f s wall, %5.2f s CPU, %4d MB max RSS\n' "$w5" "$c5" $((m5 / 1024))
awk -v w1="$w1" -v w5="$w5" -v b="$baseline" 'BEGIN{
	printf "  per agent: %.0f µs (1,000) vs %.0f µs (5,000): linear if close\n", w1/1000*1e6, w5/5000*1e6
	printf "  vs the Python build (%.1f s): %.1fx faster (target 20x, under 0.37 s)\n", b, b/w5
}'
