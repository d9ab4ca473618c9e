#!/usr/bin/env bash
# bench/targets.sh: the cost of many targets. barrage load with one URL against the same load
# over a targets file of 1,000 targets (each its own path and header), on the same nginx.
#
# nginx (Debian's, one worker, `return 200 "Hello, World!"` on every path, access log off) is
# pinned to CPU 0; barrage to CPU 1 with one thread and 64 connections for DURATION. The two
# alternate (one URL, 1,000 targets, one URL, ...) for ROUNDS rounds, without and with
# pipelining (16). Printed: median req/s, median CPU per request (user+sys from /usr/bin/time
# over the responses), median max RSS, and the 1,000-target figures as ratios to one URL (the
# bar: CPU per request at most 1.1x).
#
# Usage: bench/targets.sh        (ROUNDS=5 DURATION=5s TARGETS=1000 by default)
# Needs: nginx, /usr/bin/time, taskset. Run it on an otherwise idle machine.
set -euo pipefail
cd "$(dirname "$0")/.."

ROUNDS=${ROUNDS:-5}
DURATION=${DURATION:-5s}
CONNS=${CONNS:-64}
TARGETS=${TARGETS:-1000}
NGINX=${NGINX:-/usr/sbin/nginx}
for need in "$NGINX" /usr/bin/time; do
  [ -x "$need" ] || { echo "bench/targets.sh: missing $need" >&2; exit 1; }
done

cargo build --profile perf --locked -p barrage >/dev/null 2>&1 || cargo build --profile perf -p barrage
target=${CARGO_TARGET_DIR:-target}
BARRAGE=$target/perf/barrage
case "$BARRAGE" in /*) ;; *) BARRAGE=$PWD/$BARRAGE ;; esac

WORK=$(mktemp -d /tmp/barrage-bench.XXXXXX)
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
URL="http://127.0.0.1:$PORT"
cat >"$WORK/nginx.conf" <<CONF
daemon off; master_process off; worker_processes 1;
pid $WORK/nginx.pid; error_log $WORK/error.log;
events { worker_connections 4096; }
http {
  access_log off; keepalive_requests 100000000; keepalive_timeout 300s;
  client_body_temp_path $WORK/body; proxy_temp_path $WORK/proxy; fastcgi_temp_path $WORK/fcgi;
  uwsgi_temp_path $WORK/uwsgi; scgi_temp_path $WORK/scgi;
  server { listen 127.0.0.1:$PORT backlog=4096; location / { return 200 "Hello, World!"; } }
}
CONF
taskset -c 0 "$NGINX" -p "$WORK" -c "$WORK/nginx.conf" -e "$WORK/error.log" &
NGINX_PID=$!
cleanup() { kill "$NGINX_PID" 2>/dev/null || true; wait "$NGINX_PID" 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT
for _ in $(seq 100); do
  (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break
  sleep 0.05
done

# TARGETS targets, vegeta's http format: a path and a header of their own each.
for i in $(seq 0 $((TARGETS - 1))); do
  printf 'GET /api/items/%d?page=%d\nX-Request-Id: %d\n\n' "$i" $((i % 7)) "$i"
done >"$WORK/targets.txt"

# run MODE PIPELINE -> "rps cpu_us_per_req maxrss_kib responses"
run() {
  local mode=$1 depth=$2 out="$WORK/out" tm="$WORK/time" cmd
  case "$mode" in
    one) cmd=("$BARRAGE" load -t1 -c"$CONNS" -d"$DURATION" --pipeline "$depth" -H "X-Request-Id: 0" "$URL/api/items/0?page=0") ;;
    targets) cmd=("$BARRAGE" load -t1 -c"$CONNS" -d"$DURATION" --pipeline "$depth" --targets "$WORK/targets.txt" "$URL") ;;
  esac
  taskset -c 1 /usr/bin/time -f "%U %S %M" -o "$tm" "${cmd[@]}" >"$out" 2>&1
  python3 - "$out" "$tm" <<'PY'
import re, sys
out, tm = open(sys.argv[1]).read(), open(sys.argv[2]).read().split()
user, sys_, rss = float(tm[-3]), float(tm[-2]), int(tm[-1])
n = int(re.search(r"^r:(\d+) ", out, re.M).group(1))
e = int(re.search(r"^r:\d+ w:\d+ e:(\d+)", out, re.M).group(1))
assert e == 0, out
rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
print(f"{rps:.0f} {(user + sys_) / max(n, 1) * 1e6:.3f} {rss} {n}")
PY
}

median() { python3 -c "import statistics,sys; print(statistics.median(float(x) for x in sys.argv[1:]))" "$@"; }

bench() {
  local depth=$1
  declare -A RPS CPU RSS
  for r in $(seq "$ROUNDS"); do
    for m in one targets; do
      read -r rps cpu rss n < <(run "$m" "$depth")
      echo "  round $r $m (pipeline $depth): $rps req/s, $cpu us CPU/request, ${rss} KiB max RSS, $n responses" >&2
      RPS[$m]="${RPS[$m]:-} $rps"; CPU[$m]="${CPU[$m]:-} $cpu"; RSS[$m]="${RSS[$m]:-} $rss"
    done
  done
  echo
  echo "| barrage load (pipeline $depth, 1 thread, $CONNS connections, $DURATION, median of $ROUNDS) | req/s | CPU µs/request | max RSS MiB | req/s vs one URL | CPU vs one URL |"
  echo "|---|---:|---:|---:|---:|---:|"
  local r1 c1
  r1=$(median ${RPS[one]}); c1=$(median ${CPU[one]})
  for m in one targets; do
    local label=$m
    [ "$m" = one ] && label="one URL"
    [ "$m" = targets ] && label="$TARGETS targets, round-robin"
    python3 -c "import sys; t,r,c,m,wr,wc=sys.argv[1],*map(float,sys.argv[2:]); print(f'| {t} | {r:.0f} | {c:.2f} | {m/1024:.1f} | {r/wr:.2f}x | {c/wc:.2f}x |')" \
      "$label" "$(median ${RPS[$m]})" "$(median ${CPU[$m]})" "$(median ${RSS[$m]})" "$r1" "$c1"
  done
}

echo "# bench/targets.sh on $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
echo "nginx $("$NGINX" -v 2>&1 | cut -d/ -f2), $("$BARRAGE" --version)"
bench 1
bench 16
