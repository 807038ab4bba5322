#!/usr/bin/env bash
# Rendering throughput: `notes render` against the `cmark` CLI on the same 20 MB of Markdown
# (10,000 notes of ~2 KB concatenated), both one process reading a file. Target (DESIGN 6):
# ≥ 0.9 × libcmark.
source "$(dirname "$0")/common.sh"
need_packages cmark hyperfine
build_release
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
make_corpus "$work/notes" 10000
find "$work/notes" -name '*.md' | sort | xargs cat > "$work/all.md"
size=$(stat -c %s "$work/all.md")
hyperfine --warmup 2 --runs 10 --export-json "$work/r.json" \
    "cmark '$work/all.md' > /dev/null" \
    "'$BIN/notes' render '$work/all.md' > /dev/null" >&2
read -r peer ours < <(python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['results']; print(r[0]['mean'], r[1]['mean'])" "$work/r.json")
echo "render: $size bytes; cmark ${peer}s, notes ${ours}s; notes/cmark throughput ratio $(ratio "$peer" "$ours") (target ≥ 0.9)"
table_row "render 20 MB" "cmark CLI" "$(printf '%.3f s' "$peer")" "$(printf '%.3f s' "$ours")" "$(ratio "$peer" "$ours") (throughput)" "≥ 0.9"
