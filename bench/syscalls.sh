#!/usr/bin/env bash
# Syscalls per request of one build at its defaults, under the bench's load: the server pinned to
# core 0, wrk (1 thread, 50 connections) on core 1, 10,000 pets, an enterprise key; strace -c -f
# counts every thread's calls for 5 s after 3 s of warm-up, divided by the requests wrk counted.
#   bench/syscalls.sh CHECKOUT list|get|create [LOG_LEVEL]     (CHECKOUT: built, e.g. . or a worktree)
# Needs strace, wrk and taskset. strace slows the server: compare counts, not times.
set -euo pipefail
root=$(cd "$1" && pwd); workload=$2; level=${3:-}
bench=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d)
pid=""
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$dir"' EXIT
export DATABASE_URL="sqlite:$dir/pets.db"
bin="$root/packages/server/bin/animal-store.js"
node "$bin" migrate >/dev/null
node -e "import('$bench/lib/seed.ts').then((m) => m.seedServiceSqlite('$dir/pets.db', 10000))"
key=$(node "$bin" keys create --plan enterprise --per-minute 100000000 --per-day 1000000000 --json |
  node -e "let s = ''; process.stdin.on('data', (d) => (s += d)).on('end', () => console.log(JSON.parse(s).key))")
port=$((21000 + RANDOM % 5000))
env ${level:+LOG_LEVEL=$level} PORT=$port ADMIN_PORT=$((port + 1)) taskset -c 0 node "$bin" serve >"$dir/out.log" 2>&1 &
pid=$!
for _ in $(seq 100); do curl -sf -o /dev/null -H "authorization: Bearer $key" "http://127.0.0.1:$port/v1/pets" && break; sleep 0.1; done
export BENCH_KEY=$key
case $workload in
  list) export BENCH_MODE=static; url="http://127.0.0.1:$port/v1/pets?limit=20" ;;
  get) export BENCH_MODE=random-id BENCH_ID_MAX=10000 BENCH_ID_PREFIX=/v1/pets/; url="http://127.0.0.1:$port/" ;;
  create) export BENCH_MODE=static BENCH_METHOD=POST BENCH_BODY='{"name":"Rex","status":"available"}'; url="http://127.0.0.1:$port/v1/pets" ;;
  *) echo "workload: list, get or create" >&2; exit 2 ;;
esac
taskset -c 1 wrk -t1 -c50 -d3s -s "$bench/wrk/workload.lua" "$url" >/dev/null
strace -c -f -q -p "$pid" -o "$dir/strace.txt" &
tracer=$!
sleep 0.5
requests=$(taskset -c 1 wrk -t1 -c50 -d5s -s "$bench/wrk/workload.lua" "$url" | sed -n 's/^ *\([0-9]*\) requests in.*/\1/p')
sleep 0.3
kill -INT "$tracer"
wait "$tracer" 2>/dev/null || true
echo "$(git -C "$root" rev-parse --short HEAD) $workload ${level:-defaults}: $requests requests"
awk -v n="$requests" '$NF != "total" && $4 ~ /^[0-9]+$/ { printf "  %-14s %9d  %6.3f per request\n", $NF, $4, $4 / n }' "$dir/strace.txt" |
  sort -k2 -n -r | head -6
