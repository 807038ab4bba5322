#!/usr/bin/env bash
# Transport floor (under bench/attachments.sh's 1 GiB upload row): 1 GiB sent as PUTs of 8 MiB (the server's chunk
# size), two at a time (the client's chunks in flight), to nginx reading and dropping every body:
#   curl      the curl CLI, on the same libcurl FoundationNetworking drives (--parallel 2);
#   delegate  URLSession with answers streamed to a delegate, as notes sends (bench/floor);
#   handler   URLSession with a completion handler per request (answers buffered unbounded).
# All three run as batch jobs, as notes does (BatchScheduling). No file is read and nothing is
# hashed or stored: what is left is the cost of moving the bytes through each client, to put
# beside the 1 GiB upload row of bench/attachments.sh.
#   TOTAL_MIB=256 bench/transport.sh   a quick run
source "$(dirname "$0")/common.sh"
need_packages nginx-light hyperfine curl
total_mib=${TOTAL_MIB:-1024}
chunk_mib=8
runs=${RUNS:-5}
work=$(bench_workdir)
cleanup() {
    stop_nginx "$work"
    rm -rf "$work"
}
trap cleanup EXIT

swiftc -O "$ROOT/bench/floor/urlsession_upload.swift" -o "$work/urlsession_upload" >&2
head -c $((chunk_mib * 1024 * 1024)) /dev/zero > "$work/chunk"
port=$(free_port)
start_nginx "$work" "client_max_body_size 0; server { listen 127.0.0.1:$port; location / { return 200 \"ok\"; } }"

url="http://127.0.0.1:$port/chunk"
count=$((total_mib / chunk_mib))
echo "transport: $total_mib MiB as $count PUTs of $chunk_mib MiB, two in flight, to nginx; $runs runs each" >&2
hyperfine --style basic --warmup 1 --runs "$runs" --export-json "$work/transport.json" \
    -n curl "chrt --batch 0 curl -sf --parallel --parallel-max 2 -T '$work/chunk' '$url/[1-$count]' -o /dev/null" \
    -n delegate "chrt --batch 0 '$work/urlsession_upload' '$url' $total_mib $chunk_mib 2 delegate" \
    -n handler "chrt --batch 0 '$work/urlsession_upload' '$url' $total_mib $chunk_mib 2 handler" >&2

report "PUT ${total_mib} MiB" "curl CLI (same libcurl)" "$(median_seconds "$work/transport.json" 0)" "$(median_seconds "$work/transport.json" 1)" "– (URLSession, delegate: as notes)"
report "PUT ${total_mib} MiB" "curl CLI (same libcurl)" "$(median_seconds "$work/transport.json" 0)" "$(median_seconds "$work/transport.json" 2)" "– (URLSession, completion handler)"
