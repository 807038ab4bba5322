#!/usr/bin/env bash
# Every bench, round after round, then one table of what each measured: workload, peer, the
# median ratio over the rounds (notes / peer for times), its spread, the ratio of each round and
# the target (docs/architecture.md, Performance targets).
# Within a round each bench runs notes and its peer once each (RUNS=1), one right after the
# other, and the rounds repeat that: peer, notes, peer, notes (ABAB), never every peer run and
# then every notes run, so a slow half hour of the machine falls on both sides alike. Before
# each round the machine's own pace is recorded as `perf bench sched pipe` (µs per round trip
# of two processes over a pipe; lower is faster), printed beside that round's ratios, so a slow
# round shows as such. Each bench's own output (hyperfine, wrk) goes to stderr as it runs.
#   bench/all.sh                            render, serve, sync, export, hostile, render-abuse, growth; 3 rounds
#   ROUNDS=5 bench/all.sh                   more rounds
#   BENCHES="sync growth" bench/all.sh      a subset
#   NOTES=2000 ROUNDS=1 bench/all.sh        a quick run (smaller corpus for sync and export)
#   GROWTH="1000 10000 100000" bench/all.sh the 100,000-note growth row too
#   BENCH_BACKEND=postgres BENCHES="sync serve" bench/all.sh   the server on PostgreSQL (a throwaway
#                                           cluster on the same filesystem, fsync on)
source "$(dirname "$0")/common.sh"
benches=${BENCHES:-render serve sync export hostile render-abuse growth}
rounds=${ROUNDS:-3}
export RUNS=${RUNS:-1}
need_packages linux-perf 2>/dev/null || true
tables=$(mktemp -d)
trap 'rm -rf "$tables"' EXIT
build_release
export BENCH_BIN=$BIN
failed=()
for round in $(seq "$rounds"); do
    sched_pipe > "$tables/pipe.$round"
    echo "== round $round of $rounds: sched pipe $(cat "$tables/pipe.$round") µs/op" >&2
    for bench in $benches; do
        echo "== bench/$bench.sh (round $round)" >&2
        BENCH_TABLE="$tables/round.$round" "$ROOT/bench/$bench.sh" >&2 || failed+=("$bench (round $round)")
    done
done

echo
echo "Notes benches, $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "$rounds rounds of $RUNS run(s) per side, peer and notes in turn; sched pipe per round (µs/op): $(cat "$tables"/pipe.* | paste -sd ' ')"
echo
python3 - "$tables" "$rounds" <<'PY'
import os, re, statistics, sys
tables, rounds = sys.argv[1], int(sys.argv[2])
rows, order = {}, []
for round_number in range(1, rounds + 1):
    path = os.path.join(tables, f"round.{round_number}")
    if not os.path.exists(path):
        continue
    for line in open(path, encoding="utf-8"):
        workload, peer, peer_figure, notes_figure, ratio, target = line.rstrip("\n").split("\t")
        key = (workload, peer)
        if key not in rows:
            rows[key] = {"target": target, "ratios": {}, "figures": {}}
            order.append(key)
        rows[key]["figures"][round_number] = (peer_figure, notes_figure)
        leading = re.match(r"\s*([0-9]+(?:\.[0-9]+)?)", ratio)  # "0.95 (throughput)" counts as 0.95
        if leading:
            rows[key]["ratios"][round_number] = float(leading.group(1))
print("| workload | peer | median ratio | spread | each round | last round's figures (peer, notes) | target |")
print("|---|---|---|---|---|---|---|")
for key in order:
    row = rows[key]
    ratios = [row["ratios"][r] for r in sorted(row["ratios"])]
    median = f"{statistics.median(ratios):.2f}" if ratios else "n/a"
    spread = f"{min(ratios):.2f}–{max(ratios):.2f}" if ratios else "n/a"
    each = " ".join(f"{r:.2f}" for r in ratios) or "n/a"
    last = row["figures"][max(row["figures"])]
    print(f"| {key[0]} | {key[1]} | {median} | {spread} | {each} | {last[0]}, {last[1]} | {row['target']} |")
PY
if [ ${#failed[@]} -gt 0 ]; then
    echo
    echo "failed: ${failed[*]}"
    exit 1
fi
