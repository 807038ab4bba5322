#!/usr/bin/env bash
# Every bench, one after the other, then one table of what each measured: workload, peer, the
# peer's figure, notes' figure, the ratio (notes / peer for times) and the target (docs/architecture.md, Performance targets).
# Each bench's own output (hyperfine, wrk) goes to stderr as it runs.
#   bench/all.sh                            render, serve, sync, export, hostile, render-abuse, growth
#   BENCHES="sync growth" bench/all.sh      a subset
#   NOTES=2000 RUNS=3 bench/all.sh          a quick run (smaller corpus for sync and export)
#   GROWTH="1000 10000 100000" bench/all.sh the 100,000-note growth row too
#   BENCH_BACKEND=postgres BENCHES="sync serve" bench/all.sh   the server on PostgreSQL (a throwaway
#                                           cluster on the same filesystem, fsync on)
source "$(dirname "$0")/common.sh"
benches=${BENCHES:-render serve sync export hostile render-abuse growth}
BENCH_TABLE=$(mktemp)
export BENCH_TABLE
trap 'rm -f "$BENCH_TABLE"' EXIT
build_release
failed=()
for bench in $benches; do
    echo "== bench/$bench.sh" >&2
    "$ROOT/bench/$bench.sh" >&2 || failed+=("$bench")
done

echo
echo "Notes benches, $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| workload | peer | peer | notes | ratio | target |"
echo "|---|---|---|---|---|---|"
awk -F'\t' '{ printf "| %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6 }' "$BENCH_TABLE"
if [ ${#failed[@]} -gt 0 ]; then
    echo
    echo "failed: ${failed[*]}"
    exit 1
fi
