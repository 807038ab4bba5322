#!/usr/bin/env bash
# Rendering throughput: `notes render --commonmark` against the `cmark` CLI on the same 20 MB of
# Markdown (10,000 notes of ~2 KB concatenated), both one process reading a file and rendering
# CommonMark. Target (docs/architecture.md, Performance targets): ≥ 0.9 × libcmark. `notes render` without the flag also resolves
# [[wiki links]] (the corpus, the CommonMark spec's text, has about a thousand): measured too,
# for information.
source "$(dirname "$0")/common.sh"
need_packages cmark hyperfine
build_release
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
make_corpus "$work/notes" 10000
# In a folder of its own: wiki links resolve against the file's folder, listed once.
mkdir "$work/page"
find "$work/notes" -name '*.md' | sort | xargs cat > "$work/page/all.md"
size=$(stat -c %s "$work/page/all.md")
hyperfine --warmup 2 --runs 10 --export-json "$work/r.json" \
    "cmark '$work/page/all.md' > /dev/null" \
    "'$BIN/notes' render --commonmark '$work/page/all.md' > /dev/null" \
    "'$BIN/notes' render '$work/page/all.md' > /dev/null" >&2
read -r peer ours wiki < <(python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['results']; print(r[0]['mean'], r[1]['mean'], r[2]['mean'])" "$work/r.json")
echo "render: $size bytes; cmark ${peer}s, notes --commonmark ${ours}s, notes with wiki links ${wiki}s; notes/cmark throughput ratio $(ratio "$peer" "$ours") (target ≥ 0.9), with wiki links $(ratio "$peer" "$wiki")"
table_row "render 20 MB" "cmark CLI" "$(printf '%.3f s' "$peer")" "$(printf '%.3f s' "$ours")" "$(ratio "$peer" "$ours") (throughput)" "≥ 0.9"
table_row "render 20 MB, wiki links (info)" "cmark CLI" "$(printf '%.3f s' "$peer")" "$(printf '%.3f s' "$wiki")" "$(ratio "$peer" "$wiki") (throughput)" "-"
