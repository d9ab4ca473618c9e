#!/usr/bin/env bash
# bench/builds.sh: the CPU per request of two or more barrage builds, pipelined HTTP/1.1 against
# one nginx, for a fixed count of requests (not a duration: each build does the same work).
#
# nginx (one worker, `return 200`, access log off) on CPU 0; each build `barrage load -t1 -c64
# --pipeline 16 -n N` on CPU 1, the builds alternating for ROUNDS rounds; per run the build's
# task-clock from `perf stat` (user+sys CPU of the process) divided by N. Printed: each run, then
# each build's median and its ratio to the first build's. Hardware counters (instructions,
# cycles) are not read: this VM does not expose them.
#
# Usage: bench/builds.sh BUILD_A BUILD_B [...]      (ROUNDS=5 N=3000000 by default)
# Needs: nginx, perf, taskset. Run it on an otherwise idle machine.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { echo "usage: bench/builds.sh BUILD_A BUILD_B [...]" >&2; exit 2; }
ROUNDS=${ROUNDS:-5}
N=${N:-3000000}
NGINX=${NGINX:-/usr/sbin/nginx}
for need in "$NGINX" "$@"; do
  [ -x "$need" ] || { echo "bench/builds.sh: missing $need" >&2; exit 1; }
done
command -v perf >/dev/null || { echo "bench/builds.sh: missing perf" >&2; exit 1; }
WORK=$(mktemp -d /tmp/barrage-builds.XXXXXX)
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cat >"$WORK/nginx.conf" <<CONF
daemon off; master_process off; worker_processes 1;
pid $WORK/nginx.pid; error_log $WORK/error.log;
events { worker_connections 2000; }
http { access_log off; keepalive_requests 100000000; keepalive_timeout 300s;
  client_body_temp_path $WORK/body; proxy_temp_path $WORK/proxy; fastcgi_temp_path $WORK/fcgi;
  uwsgi_temp_path $WORK/uwsgi; scgi_temp_path $WORK/scgi;
  server { listen 127.0.0.1:$PORT backlog=16384; location / { return 200 "Hello, World!"; } } }
CONF
taskset -c 0 "$NGINX" -p "$WORK" -c "$WORK/nginx.conf" -e "$WORK/error.log" &
NGINX_PID=$!
cleanup() { kill "$NGINX_PID" 2>/dev/null || true; wait "$NGINX_PID" 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT
for _ in $(seq 100); do
  (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break
  sleep 0.05
done
for r in $(seq "$ROUNDS"); do
  i=0
  for b in "$@"; do
    perf stat -x, -e task-clock -o "$WORK/stat" \
      taskset -c 1 "$b" load -t1 -c64 --pipeline 16 -n "$N" "http://127.0.0.1:$PORT/" >/dev/null
    us=$(awk -F, -v n="$N" '$3 ~ /task-clock/ {printf "%.3f", $1 * 1000 / n}' "$WORK/stat")
    echo "round $r build $i $(basename "$b"): $us µs/request"
    echo "$i $us" >>"$WORK/all"
    i=$((i + 1))
  done
done
python3 - "$WORK/all" "$@" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
names = sys.argv[2:]
med = [statistics.median(float(v) for k, v in rows if int(k) == i) for i in range(len(names))]
for i, n in enumerate(names):
    print(f"| {n} | {med[i]:.3f} | {med[i] / med[0]:.3f}x |")
PY
