#!/usr/bin/env bash
# Rendering throughput on the same 20 MB of Markdown (10,000 notes of ~2 KB concatenated), each
# command one process reading the file and writing HTML to /dev/null. Targets (docs/architecture.md,
# Performance targets):
#   - CommonMark: `notes render --commonmark` ≥ 0.9 × the `cmark` CLI (libcmark 0.30), and ≥ 0.95 × the
#     render floor: libcmark called in-process on the whole file (bench/floor/render_floor.c);
#   - the default flavour: `notes render -` (front matter, GFM, every Obsidian pass, safe mode;
#     stdin, so no wiki link is resolved, as the peer resolves none) ≥ 0.8 × the `cmark-gfm` CLI
#     with the same GFM extensions (table, strikethrough, autolink, tagfilter, tasklist, footnotes).
# `notes render FILE` also resolves [[wiki links]] against the file's folder (the corpus, the
# CommonMark spec's text, has about a thousand): measured too, for information.
source "$(dirname "$0")/common.sh"
need_packages cmark cmark-gfm hyperfine libcmark-dev
build_release
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cc -O2 "$ROOT/bench/floor/render_floor.c" -lcmark -o "$work/render_floor"
make_corpus "$work/notes" 10000
# In a folder of its own: wiki links resolve against the file's folder, listed once.
mkdir "$work/page"
find "$work/notes" -name '*.md' | sort | xargs cat > "$work/page/all.md"
size=$(stat -c %s "$work/page/all.md")
file="$work/page/all.md"
gfm="cmark-gfm -e footnotes -e table -e strikethrough -e autolink -e tagfilter -e tasklist"
hyperfine --warmup 2 --runs "${RUNS:-10}" --export-json "$work/r.json" \
    "cmark '$file' > /dev/null" \
    "'$BIN/notes' render --commonmark '$file' > /dev/null" \
    "$gfm '$file' > /dev/null" \
    "'$BIN/notes' render - < '$file' > /dev/null" \
    "'$BIN/notes' render '$file' > /dev/null" \
    "'$work/render_floor' '$file' > /dev/null" >&2
read -r cmark ours gfmpeer flavour wiki floor < <(python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['results']; print(*(x['mean'] for x in r))" "$work/r.json")
# CPU time (user + system) too: on a machine shared with other work, wall time mostly measures the others.
read -r cmark_cpu ours_cpu gfm_cpu flavour_cpu wiki_cpu floor_cpu < <(python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['results']; print(*(x['user'] + x['system'] for x in r))" "$work/r.json")
echo "render: $size bytes; wall (CPU) seconds: cmark ${cmark} (${cmark_cpu}), notes --commonmark ${ours} (${ours_cpu}):" \
    "$(ratio "$cmark" "$ours") ($(ratio "$cmark_cpu" "$ours_cpu")) (target ≥ 0.9);" \
    "cmark-gfm ${gfmpeer} (${gfm_cpu}), notes default flavour ${flavour} (${flavour_cpu}):" \
    "$(ratio "$gfmpeer" "$flavour") ($(ratio "$gfm_cpu" "$flavour_cpu")) (target ≥ 0.8);" \
    "notes with wiki links ${wiki} (${wiki_cpu}): $(ratio "$gfmpeer" "$wiki") ($(ratio "$gfm_cpu" "$wiki_cpu")) of cmark-gfm;" \
    "libcmark in-process ${floor} (${floor_cpu}): notes --commonmark $(ratio "$floor" "$ours") ($(ratio "$floor_cpu" "$ours_cpu")) of it (target ≥ 0.95)"
table_row "render 20 MB, CommonMark" "cmark CLI" "$(printf '%.3f s' "$cmark")" "$(printf '%.3f s' "$ours")" "$(ratio "$cmark" "$ours") (throughput)" "≥ 0.9"
table_row "render 20 MB, default flavour" "cmark-gfm CLI" "$(printf '%.3f s' "$gfmpeer")" "$(printf '%.3f s' "$flavour")" "$(ratio "$gfmpeer" "$flavour") (throughput)" "≥ 0.8"
table_row "render 20 MB, default flavour and wiki links (info)" "cmark-gfm CLI" "$(printf '%.3f s' "$gfmpeer")" "$(printf '%.3f s' "$wiki")" "$(ratio "$gfmpeer" "$wiki") (throughput)" "-"
table_row "render 20 MB, CommonMark, vs libcmark in-process" "render floor (C)" "$(printf '%.3f s' "$floor")" "$(printf '%.3f s' "$ours")" "$(ratio "$floor" "$ours") (throughput)" "≥ 0.95"
