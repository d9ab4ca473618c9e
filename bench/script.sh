#!/usr/bin/env bash
# bench/script.sh: wrk's Lua scripts under wrk and under `barrage load -s`, on the same nginx.
#
# nginx (Debian's, one worker, `return 200 "Hello, World!"`, access log off) is pinned to CPU 0;
# each tool is pinned to CPU 1 with one thread and 64 connections for DURATION; wrk and barrage
# alternate for ROUNDS rounds per script. Scripts (crates/script/tests/wrk/, wrk's own, and
# bench/response.lua): counter.lua (request() builds a path per request), post.lua (a static
# method, body and header), report.lua (done only), response.lua (response() reads every
# status), and no script at all. Printed per script: median req/s, median CPU per request
# (user+sys from /usr/bin/time over the responses), median max RSS, and barrage/wrk ratios.
#
# Usage: bench/script.sh            (ROUNDS=3 DURATION=5s by default)
# Needs: nginx, wrk, /usr/bin/time (apt install time), taskset.
# Run it on an otherwise idle machine: the figures are timing measurements.
set -euo pipefail
cd "$(dirname "$0")/.."

ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-5s}
CONNS=${CONNS:-64}
NGINX=${NGINX:-/usr/sbin/nginx}
WRK=${WRK:-$(command -v wrk || true)}
SCRIPTS=${SCRIPTS:-none counter post report response}

for need in "$NGINX" "$WRK" /usr/bin/time; do
  [ -x "$need" ] || { echo "bench/script.sh: missing $need" >&2; exit 1; }
done
command -v taskset >/dev/null || { echo "bench/script.sh: missing taskset" >&2; exit 1; }

if [ -z "${BARRAGE:-}" ]; then
  cargo build --profile perf --locked -p barrage >/dev/null 2>&1 || cargo build --profile perf -p barrage
  target=${CARGO_TARGET_DIR:-target}
  BARRAGE=$target/perf/barrage
fi
case "$BARRAGE" in /*) ;; *) BARRAGE=$PWD/$BARRAGE ;; esac

ulimit -n "$(ulimit -Hn)" || true
WORK=$(mktemp -d /tmp/barrage-bench.XXXXXX)
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
URL="http://127.0.0.1:$PORT/"
cat >"$WORK/nginx.conf" <<CONF
daemon off; master_process off; worker_processes 1;
pid $WORK/nginx.pid; error_log $WORK/error.log;
worker_rlimit_nofile 30000;
events { worker_connections 20000; }
http {
  access_log off; keepalive_requests 100000000; keepalive_timeout 300s;
  client_body_temp_path $WORK/body; proxy_temp_path $WORK/proxy; fastcgi_temp_path $WORK/fcgi;
  uwsgi_temp_path $WORK/uwsgi; scgi_temp_path $WORK/scgi;
  server { listen 127.0.0.1:$PORT backlog=16384; location / { return 200 "Hello, World!"; } }
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

secs() { python3 -c "import sys; s=sys.argv[1]; print(float(s[:-2])/1000 if s.endswith('ms') else float(s.rstrip('s')))" "$1"; }
DUR_S=$(secs "$DURATION")

# script NAME -> the script's path (nothing for "none")
script() {
  case "$1" in
    none) ;;
    response) echo bench/response.lua ;;
    *) echo "crates/script/tests/wrk/$1.lua" ;;
  esac
}

# run TOOL SCRIPT -> prints "rps cpu_us_per_req maxrss_kib responses"
run() {
  local tool=$1 name=$2 out="$WORK/out" tm="$WORK/time" s
  s=$(script "$name")
  local cmd
  case "$tool" in
    wrk) cmd=("$WRK" -t1 -c"$CONNS" -d"$DURATION" ${s:+-s "$s"} "$URL") ;;
    barrage) cmd=("$BARRAGE" load -q -t1 -c"$CONNS" -d"$DURATION" ${s:+-s "$s"} "$URL") ;;
  esac
  taskset -c 1 /usr/bin/time -f "%U %S %M" -o "$tm" "${cmd[@]}" >"$out" 2>&1
  python3 - "$tool" "$out" "$tm" <<'PY'
import re, sys
tool, out, tm = sys.argv[1], open(sys.argv[2]).read(), open(sys.argv[3]).read().split()
user, sys_, rss = float(tm[-3]), float(tm[-2]), int(tm[-1])
if tool == "wrk":
    n = int(re.search(r"(\d+) requests in", out).group(1))
else:
    n = int(re.search(r"^r:(\d+) ", out, re.M).group(1))
rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
print(f"{rps:.0f} {(user + sys_) / max(n, 1) * 1e6:.3f} {rss} {n}")
PY
}

median() { python3 -c "import statistics,sys; print(statistics.median(float(x) for x in sys.argv[1:]))" "$@"; }

bench() {
  local name=$1
  declare -A RPS CPU RSS
  for r in $(seq "$ROUNDS"); do
    for t in wrk barrage; do
      read -r rps cpu rss n < <(run "$t" "$name")
      echo "  round $r $t ($name): $rps req/s, $cpu us CPU/request, ${rss} KiB max RSS, $n responses" >&2
      RPS[$t]="${RPS[$t]:-} $rps"; CPU[$t]="${CPU[$t]:-} $cpu"; RSS[$t]="${RSS[$t]:-} $rss"
    done
  done
  python3 -c "import sys; n,*v=sys.argv[1:]; r,c,m,wr,wc,wm=map(float,v); print(f'| {n} | {wr:.0f} | {r:.0f} | {wc:.2f} | {c:.2f} | {c/wc:.2f}x | {wm/1024:.1f} | {m/1024:.1f} |')" \
    "$name" "$(median ${RPS[barrage]})" "$(median ${CPU[barrage]})" "$(median ${RSS[barrage]})" \
    "$(median ${RPS[wrk]})" "$(median ${CPU[wrk]})" "$(median ${RSS[wrk]})"
}

echo "# bench/script.sh on $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
echo "nginx $("$NGINX" -v 2>&1 | cut -d/ -f2), $("$WRK" -v 2>&1 | head -1 | cut -d' ' -f1-2), $("$BARRAGE" --version); 1 thread, $CONNS connections, $DURATION, median of $ROUNDS alternating rounds"
echo
echo "| script | wrk req/s | barrage req/s | wrk CPU µs/req | barrage CPU µs/req | barrage/wrk CPU | wrk max RSS MiB | barrage max RSS MiB |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
for name in $SCRIPTS; do
  bench "$name"
done
