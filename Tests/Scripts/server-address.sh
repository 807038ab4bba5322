# Sourced by the test scripts that start notes-server in the background (Tests/browser,
# Tests/webdav). server_address OUT PID LOG: prints the http:// address the server announced in
# its output file OUT, once it did (up to 10 s); fails, showing its LOG, when process PID ended
# first or nothing was announced in time.
server_address() {
    local out=$1 pid=$2 log=$3 address=""
    for _ in $(seq 1 100); do
        address=$(sed -n 's/.*listening on \(http:\/\/[^ ]*\).*/\1/p' "$out" | head -1)
        [ -n "$address" ] && { echo "$address"; return 0; }
        kill -0 "$pid" 2>/dev/null || { cat "$log" >&2; return 1; }
        sleep 0.1
    done
    return 1
}
