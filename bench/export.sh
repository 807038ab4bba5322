#!/usr/bin/env bash
# Export: `notes export --html` of a folder of notes against the render-and-write floor, a small C
# program (bench/floor/export_floor.c) that renders each note with libcmark in-process and writes
# one HTML file per note, with no template, index or link rewriting. Both start from an empty
# output folder each run. Target (docs/architecture.md, Performance targets): ≤ 2 × the floor.
#   NOTES=2000 bench/export.sh   a quick run on fewer notes (default 10,000)
source "$(dirname "$0")/common.sh"
need_packages hyperfine libcmark-dev
build_release
notes=${NOTES:-10000}
runs=${RUNS:-5}
work=$(bench_workdir)
trap 'rm -rf "$work"' EXIT
cc -O2 "$ROOT/bench/floor/export_floor.c" -lcmark -o "$work/export_floor"
make_corpus "$work/notes" "$notes"
hyperfine --style basic --runs "$runs" --warmup 1 --export-json "$work/export.json" \
    --prepare "rm -rf '$work/floor-out'" -n floor "'$work/export_floor' '$work/notes' '$work/floor-out'" \
    --prepare "rm -rf '$work/site'" -n notes "'$BIN/notes' export --html '$work/site' '$work/notes' 2>/dev/null" >&2
echo "export: $notes notes of ~2 KB in 50 folders; hyperfine medians of $runs runs"
report export "C render+write floor" "$(median_seconds "$work/export.json" 0)" "$(median_seconds "$work/export.json" 1)" "≤ 2.0"
