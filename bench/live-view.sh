#!/usr/bin/env bash
# bench/live-view.sh: the generator's CPU with and without `barrage load`'s live view.
#
# nginx (one worker, `return 200`) pinned to CPU 0; `barrage load -t1 -c64` pinned to CPU 1 for
# DURATION in three forms, alternating for ROUNDS rounds: "live" (stderr is a pseudo-terminal,
# made by script(1), so the live view draws), "lines" (stderr is a file: one line a second, as
# before the live view) and "quiet" (-q). Printed: median CPU µs per request (user+sys from
# /usr/bin/time over the responses) and the live view's cost against "lines" (goal <= 1%).
#
# Usage: bench/live-view.sh   (ROUNDS=5 DURATION=5s; BARRAGE=path skips the build)
# Needs: nginx, script (bsdutils), /usr/bin/time, taskset. Run it on a quiet machine.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-5}
DURATION=${DURATION:-5s}
NGINX=${NGINX:-/usr/sbin/nginx}
for need in "$NGINX" /usr/bin/time /usr/bin/script; do
  [ -x "$need" ] || { echo "bench/live-view.sh: missing $need" >&2; exit 1; }
done
if [ -z "${BARRAGE:-}" ]; then
  cargo build --profile perf -p barrage >/dev/null 2>&1 || cargo build --profile perf -p barrage
  BARRAGE=$PWD/${CARGO_TARGET_DIR:-target}/perf/barrage
fi
WORK=$(mktemp -d /tmp/barrage-live.XXXXXX)
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
URL="http://127.0.0.1:$PORT/"
cat >"$WORK/nginx.conf" <<CONF
daemon off; master_process off; worker_processes 1;
pid $WORK/nginx.pid; error_log $WORK/error.log;
events { worker_connections 4096; }
http {
  access_log off; keepalive_requests 100000000;
  client_body_temp_path $WORK/body; proxy_temp_path $WORK/proxy; fastcgi_temp_path $WORK/fcgi;
  uwsgi_temp_path $WORK/uwsgi; scgi_temp_path $WORK/scgi;
  server { listen 127.0.0.1:$PORT; location / { return 200 "Hello, World!"; } }
}
CONF
taskset -c 0 "$NGINX" -p "$WORK" -c "$WORK/nginx.conf" -e "$WORK/error.log" &
NGINX_PID=$!
cleanup() { kill "$NGINX_PID" 2>/dev/null || true; wait "$NGINX_PID" 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT
for _ in $(seq 100); do (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break; sleep 0.05; done

# run MODE -> prints "cpu_us_per_req responses"
run() {
  local mode=$1 json="$WORK/run.json" tm="$WORK/time"
  local cmd=(taskset -c 1 /usr/bin/time -f "%U %S" -o "$tm" "$BARRAGE" load -t1 -c64 -d"$DURATION" --json "$json" "$URL")
  case "$mode" in
    live) TERM=xterm-256color script -qefc "$(printf '%q ' "${cmd[@]}")" /dev/null >"$WORK/screen" 2>&1 ;;
    lines) "${cmd[@]}" >"$WORK/out" 2>"$WORK/err" ;;
    quiet) "${cmd[@]}" -q >"$WORK/out" 2>&1 ;;
  esac
  python3 - "$json" "$tm" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
user, sys_ = map(float, open(sys.argv[2]).read().split()[-2:])
n = doc["requests"]
print(f"{(user + sys_) / max(n, 1) * 1e6:.3f} {n}")
PY
}
median() { python3 -c "import statistics,sys; print(statistics.median(float(x) for x in sys.argv[1:]))" "$@"; }

echo "# bench/live-view.sh on $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, $("$BARRAGE" --version)"
declare -A CPU
for r in $(seq "$ROUNDS"); do
  for m in live lines quiet; do
    read -r cpu n < <(run "$m")
    echo "  round $r $m: $cpu us CPU/request, $n responses" >&2
    CPU[$m]="${CPU[$m]:-} $cpu"
  done
done
lines=$(median ${CPU[lines]})
echo "| barrage load -t1 -c64 -d$DURATION (median of $ROUNDS) | CPU µs/request | vs lines |"
echo "|---|---:|---:|"
for m in live lines quiet; do
  c=$(median ${CPU[$m]})
  python3 -c "import sys; m,c,l=sys.argv[1],float(sys.argv[2]),float(sys.argv[3]); print(f'| {m} | {c:.3f} | {c/l:.3f}x |')" "$m" "$c" "$lines"
done
