#!/usr/bin/env bash
# bench/load.sh: barrage load against wrk and oha on the same nginx.
#
# nginx (Debian's, one worker, `return 200 "Hello, World!"`, access log off) is pinned to CPU 0;
# each load tool is pinned to CPU 1 with one thread and 64 connections for DURATION, the tools
# alternate (wrk, oha, barrage, wrk, ...) for ROUNDS rounds. Printed per tool: median req/s,
# median CPU per request (user+sys from /usr/bin/time over the responses), median max RSS, and
# ratios to wrk. Then the same with pipelining (wrk with bench/pipeline.lua, 16 requests per
# write, vs barrage --pipeline 16), and the 10,000-connection memory check (RSS at 10 s and at
# the end of an RSS_DURATION run; the bar is <= 64 MiB and no growth).
#
# Usage: bench/load.sh            (ROUNDS=3 DURATION=5s RSS_DURATION=60 by default)
#        ROUNDS=5 bench/load.sh   SKIP_RSS=1 bench/load.sh   SKIP_PIPELINE=1 ...
# Needs: nginx, wrk, oha (cargo install oha --locked), /usr/bin/time (apt install time), taskset.
# Run it on an otherwise idle machine: the figures are timing measurements.
set -euo pipefail
cd "$(dirname "$0")/.."

ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-5s}
CONNS=${CONNS:-64}
RSS_CONNS=${RSS_CONNS:-10000}
RSS_DURATION=${RSS_DURATION:-60}
NGINX=${NGINX:-/usr/sbin/nginx}
OHA=${OHA:-$(command -v oha || echo "$HOME/.cargo/bin/oha")}
WRK=${WRK:-$(command -v wrk || true)}

for need in "$NGINX" "$WRK" /usr/bin/time; do
  [ -x "$need" ] || { echo "bench/load.sh: missing $need" >&2; exit 1; }
done
command -v taskset >/dev/null || { echo "bench/load.sh: missing taskset" >&2; exit 1; }
HAVE_OHA=1
[ -x "$OHA" ] || { echo "bench/load.sh: oha not found ($OHA); skipping it" >&2; HAVE_OHA=0; }

# BARRAGE=path skips the build (a binary built elsewhere, e.g. another profile); BARRAGE_ALT=path
# adds a second barrage binary, run as tool "alt" in the same rounds (profile comparisons).
if [ -z "${BARRAGE:-}" ]; then
  cargo build --profile perf --locked -p barrage >/dev/null 2>&1 || cargo build --profile perf -p barrage
  target=${CARGO_TARGET_DIR:-target}
  BARRAGE=$target/perf/barrage
fi
case "$BARRAGE" in /*) ;; *) BARRAGE=$PWD/$BARRAGE ;; esac
ALT=()
[ -n "${BARRAGE_ALT:-}" ] && ALT=(alt)

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

# run TOOL MODE -> prints "rps cpu_us_per_req maxrss_kib responses"
run() {
  local tool=$1 mode=$2 out="$WORK/out" tm="$WORK/time"
  local cmd
  case "$tool:$mode" in
    wrk:plain) cmd=("$WRK" -t1 -c"$CONNS" -d"$DURATION" "$URL") ;;
    wrk:pipeline) cmd=("$WRK" -t1 -c"$CONNS" -d"$DURATION" -s bench/pipeline.lua "$URL") ;;
    oha:plain) cmd=("$OHA" -z "$DURATION" -c "$CONNS" --no-tui "$URL") ;;
    barrage:plain) cmd=("$BARRAGE" load -t1 -c"$CONNS" -d"$DURATION" "$URL") ;;
    barrage:pipeline) cmd=("$BARRAGE" load -t1 -c"$CONNS" -d"$DURATION" --pipeline 16 "$URL") ;;
    alt:plain) cmd=("$BARRAGE_ALT" load -t1 -c"$CONNS" -d"$DURATION" "$URL") ;;
    alt:pipeline) cmd=("$BARRAGE_ALT" load -t1 -c"$CONNS" -d"$DURATION" --pipeline 16 "$URL") ;;
  esac
  taskset -c 1 /usr/bin/time -f "%U %S %M" -o "$tm" "${cmd[@]}" >"$out" 2>&1
  python3 - "$tool" "$out" "$tm" "$DUR_S" <<'PY'
import re, sys
tool, out, tm, dur = sys.argv[1], open(sys.argv[2]).read(), open(sys.argv[3]).read().split(), float(sys.argv[4])
user, sys_, rss = float(tm[-3]), float(tm[-2]), int(tm[-1])
if tool == "wrk":
    n = int(re.search(r"(\d+) requests in", out).group(1))
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
elif tool in ("barrage", "alt"):
    n = int(re.search(r"^r:(\d+) ", out, re.M).group(1))
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
else:  # oha: responses from its status code distribution
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    n = sum(int(x) for x in re.findall(r"\[\d+\] (\d+) responses", out))
print(f"{rps:.0f} {(user + sys_) / max(n, 1) * 1e6:.3f} {rss} {n}")
PY
}

median() { python3 -c "import statistics,sys; print(statistics.median(float(x) for x in sys.argv[1:]))" "$@"; }

bench() {
  local mode=$1; shift
  local tools=("$@")
  declare -A RPS CPU RSS
  for r in $(seq "$ROUNDS"); do
    for t in "${tools[@]}"; do
      read -r rps cpu rss n < <(run "$t" "$mode")
      echo "  round $r $t ($mode): $rps req/s, $cpu us CPU/request, ${rss} KiB max RSS, $n responses" >&2
      RPS[$t]="${RPS[$t]:-} $rps"; CPU[$t]="${CPU[$t]:-} $cpu"; RSS[$t]="${RSS[$t]:-} $rss"
    done
  done
  local wrk_rps wrk_cpu
  wrk_rps=$(median ${RPS[wrk]}); wrk_cpu=$(median ${CPU[wrk]})
  echo
  echo "| tool ($mode, 1 thread, $CONNS connections, $DURATION, median of $ROUNDS) | req/s | CPU µs/request | max RSS MiB | req/s vs wrk | CPU vs wrk |"
  echo "|---|---:|---:|---:|---:|---:|"
  for t in "${tools[@]}"; do
    local rps cpu rss
    rps=$(median ${RPS[$t]}); cpu=$(median ${CPU[$t]}); rss=$(median ${RSS[$t]})
    python3 -c "import sys; t,r,c,m,wr,wc=sys.argv[1],*map(float,sys.argv[2:]); print(f'| {t} | {r:.0f} | {c:.2f} | {m/1024:.1f} | {r/wr:.2f}x | {c/wc:.2f}x |')" \
      "$t" "$rps" "$cpu" "$rss" "$wrk_rps" "$wrk_cpu"
  done
}

echo "# bench/load.sh on $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
echo "nginx $("$NGINX" -v 2>&1 | cut -d/ -f2), $("$WRK" -v 2>&1 | head -1 | cut -d' ' -f1-2), $([ $HAVE_OHA = 1 ] && "$OHA" --version), $("$BARRAGE" --version)"
TOOLS=(wrk barrage "${ALT[@]}")
[ $HAVE_OHA = 1 ] && [ -z "${BARRAGE_ALT:-}" ] && TOOLS=(wrk oha barrage)
bench plain "${TOOLS[@]}"
[ "${SKIP_PIPELINE:-0}" = 1 ] || bench pipeline wrk barrage "${ALT[@]}"

if [ "${SKIP_RSS:-0}" != 1 ]; then
  echo
  echo "$RSS_CONNS connections: barrage load -t1 -c$RSS_CONNS -d${RSS_DURATION}s $URL"
  taskset -c 1 "$BARRAGE" load -t1 -c"$RSS_CONNS" -d"${RSS_DURATION}s" "$URL" >"$WORK/rss.out" 2>&1 &
  BP=$!
  sleep 10
  RSS10=$(awk '/VmRSS/ {print $2}' "/proc/$BP/status")
  sleep $((RSS_DURATION - 12))
  RSS_END=$(awk '/VmRSS/ {print $2}' "/proc/$BP/status")
  HWM=$(awk '/VmHWM/ {print $2}' "/proc/$BP/status")
  wait "$BP"
  echo "  RSS at 10 s: $((RSS10 / 1024)) MiB; near the end: $((RSS_END / 1024)) MiB; peak $((HWM / 1024)) MiB (bar: <= 64 MiB, no growth)"
  grep -E "^r:|Errors" "$WORK/rss.out" | sed 's/^/  /'
fi
