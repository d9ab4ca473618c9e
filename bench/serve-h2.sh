#!/usr/bin/env bash
# bench/serve-h2.sh: barrage serve against nginx and h2o as HTTP/2 (h2c) servers under h2load.
#
# Each server is pinned to CPU 0 with one thread/worker and answers GET / with "Hello, World!":
# barrage serve --threads 1; nginx (Debian's, one worker, `listen ... http2`, `return 200`,
# access log off, keepalive_requests raised so no connection ends); h2o 2.2 (num-threads 1, a
# 13-byte file). h2load is pinned to CPU 1: -t1, CONNS connections x STREAMS streams, DURATION
# seconds. The servers alternate (barrage, nginx, h2o, barrage, ...) for ROUNDS rounds. Printed
# per server: median req/s, median server CPU per response (utime+stime from /proc/PID/stat over
# h2load's 2xx responses), ratios to nginx. Every response must be 2xx.
#
# Usage: bench/serve-h2.sh     (ROUNDS=3 DURATION=5 CONNS=64 STREAMS=10 by default)
# Needs: nginx, h2o, h2load (apt install nghttp2-client), taskset. Run it on an idle machine.
set -euo pipefail
cd "$(dirname "$0")/.."

ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-5}
CONNS=${CONNS:-64}
STREAMS=${STREAMS:-10}
for tool in nginx h2o h2load taskset python3; do
  command -v "$tool" >/dev/null || [ -x "/usr/sbin/$tool" ] ||
    { echo "bench/serve-h2.sh: $tool is not installed" >&2; exit 1; }
done
NGINX=$(command -v nginx || echo /usr/sbin/nginx)

target=${CARGO_TARGET_DIR:-target}
cargo build --profile perf -q -p barrage >&2
BARRAGE=$target/perf/barrage
case "$BARRAGE" in /*) ;; *) BARRAGE=$PWD/$BARRAGE ;; esac

WORK=$(mktemp -d /tmp/barrage-serveh2.XXXXXX)
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() {
  for _ in $(seq 100); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    sleep 0.05
  done
  echo "bench/serve-h2.sh: nothing listens on $1" >&2
  exit 1
}

declare -A PORT PID
PORT[barrage]=$(free_port)
taskset -c 0 "$BARRAGE" serve --addr "127.0.0.1:${PORT[barrage]}" --threads 1 >/dev/null &
PID[barrage]=$!

PORT[nginx]=$(free_port)
mkdir -p "$WORK/nginx"
cat >"$WORK/nginx/nginx.conf" <<CONF
daemon off; master_process off; worker_processes 1;
pid $WORK/nginx/nginx.pid; error_log $WORK/nginx/error.log;
worker_rlimit_nofile 30000;
events { worker_connections 20000; }
http {
  access_log off; keepalive_requests 100000000; keepalive_timeout 300s;
  client_body_temp_path $WORK/nginx/body; proxy_temp_path $WORK/nginx/proxy;
  fastcgi_temp_path $WORK/nginx/fcgi; uwsgi_temp_path $WORK/nginx/uwsgi; scgi_temp_path $WORK/nginx/scgi;
  server { listen 127.0.0.1:${PORT[nginx]} http2 backlog=16384;
           location / { default_type text/plain; return 200 "Hello, World!"; } }
}
CONF
taskset -c 0 "$NGINX" -p "$WORK/nginx" -c "$WORK/nginx/nginx.conf" -e "$WORK/nginx/error.log" &
PID[nginx]=$!

PORT[h2o]=$(free_port)
mkdir -p "$WORK/h2o/www"
printf 'Hello, World!' >"$WORK/h2o/www/index.html"
chmod -R a+rX "$WORK"
cat >"$WORK/h2o/h2o.conf" <<CONF
num-threads: 1
http2-idle-timeout: 300
listen:
  host: 127.0.0.1
  port: ${PORT[h2o]}
hosts:
  default:
    paths:
      /:
        file.dir: $WORK/h2o/www
CONF
taskset -c 0 h2o -c "$WORK/h2o/h2o.conf" >"$WORK/h2o/log" 2>&1 &
PID[h2o]=$!
PIDS=("${PID[barrage]}" "${PID[nginx]}" "${PID[h2o]}")
for s in barrage nginx h2o; do wait_port "${PORT[$s]}"; done

# run SERVER -> prints "rps server_cpu_us_per_response responses"
run() {
  local s=$1 before after out
  before=$(awk '{print $14 + $15}' "/proc/${PID[$s]}/stat")
  out=$(taskset -c 1 h2load -t1 -c"$CONNS" -m"$STREAMS" -D"$DURATION" "http://127.0.0.1:${PORT[$s]}/" 2>&1)
  after=$(awk '{print $14 + $15}' "/proc/${PID[$s]}/stat")
  python3 - "$out" "$((after - before))" "$(getconf CLK_TCK)" <<'PY'
import re, sys
out, ticks, hz = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rps = float(re.search(r"finished in [\d.]+\w+, ([\d.]+) req/s", out).group(1))
m = re.search(r"status codes: (\d+) 2xx, (\d+) 3xx, (\d+) 4xx, (\d+) 5xx", out)
ok, other = int(m.group(1)), sum(int(m.group(i)) for i in (2, 3, 4))
failed = re.search(r"(\d+) failed, (\d+) errored", out)
# h2load's "done" may trail its status count by one at the deadline: the check is that no
# response was anything but 2xx and no request failed.
if other or int(failed.group(1)) or int(failed.group(2)):
    sys.exit(f"not every response was 2xx: {m.group(0)}; {failed.group(0)}")
print(f"{rps:.0f} {ticks / hz / max(ok, 1) * 1e6:.3f} {ok}")
PY
}
median() { python3 -c "import statistics,sys; print(statistics.median(float(x) for x in sys.argv[1:]))" "$@"; }

echo "# bench/serve-h2.sh on $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
echo "$("$BARRAGE" --version), nginx $("$NGINX" -v 2>&1 | cut -d/ -f2), h2o $(h2o --version | head -1 | cut -d' ' -f3), $(h2load --version | head -1)"
declare -A RPS CPU
for r in $(seq "$ROUNDS"); do
  for s in barrage nginx h2o; do
    read -r rps cpu n < <(run "$s")
    echo "  round $r $s: $rps req/s, $cpu us server CPU/response, $n responses (all 2xx)" >&2
    RPS[$s]="${RPS[$s]:-} $rps"; CPU[$s]="${CPU[$s]:-} $cpu"
  done
done
base_rps=$(median ${RPS[nginx]}); base_cpu=$(median ${CPU[nginx]})
echo
echo "| server (h2c, CPU 0; h2load -t1 -c$CONNS -m$STREAMS -D$DURATION on CPU 1; median of $ROUNDS) | req/s | server CPU µs/response | req/s vs nginx | CPU vs nginx |"
echo "|---|---:|---:|---:|---:|"
for s in barrage nginx h2o; do
  python3 -c "import sys; s,r,c,br,bc=sys.argv[1],*map(float,sys.argv[2:]); print(f'| {s} | {r:.0f} | {c:.2f} | {r/br:.2f}x | {c/bc:.2f}x |')" \
    "$s" "$(median ${RPS[$s]})" "$(median ${CPU[$s]})" "$base_rps" "$base_cpu"
done
