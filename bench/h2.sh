#!/usr/bin/env bash
# bench/h2.sh: barrage load --http2 against h2load and oha --http2 on the same nginx over h2c.
#
# nginx (Debian's, one worker, `listen ... http2` -- h2c with prior knowledge --, `return 200
# "Hello, World!"`, access log off, keepalive_requests raised (it also bounds h2 streams per
# connection in nginx 1.19.7+) so no connection ends in a run) is
# pinned to CPU 0; each tool is pinned to CPU 1 with one thread, CONNS connections x STREAMS
# streams, for DURATION; the tools alternate (h2load, oha, barrage, h2load, ...) for ROUNDS
# rounds. Printed per tool: median req/s, median CPU per request (user+sys from /usr/bin/time
# over the responses), median max RSS, ratios to h2load, and nginx's own CPU per request under
# that tool (from /proc/PID/stat), which tells a tool that costs the server more.
#
# Usage: bench/h2.sh     (ROUNDS=3 DURATION=5 CONNS=64 STREAMS=10 TARGET=nginx by default;
#        TARGET=h2o-tls: the same rounds against h2o 2.2 over TLS, h2 by ALPN)
# Needs: nginx, h2load (apt install nghttp2-client), oha (cargo install oha --locked; skipped
# when missing), /usr/bin/time (apt install time), taskset. Run it on an idle machine.
set -euo pipefail
cd "$(dirname "$0")/.."

ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-5}
CONNS=${CONNS:-64}
STREAMS=${STREAMS:-10}
NGINX=${NGINX:-/usr/sbin/nginx}
H2O=${H2O:-/usr/bin/h2o}
# TARGET=nginx (h2c, the default) or h2o-tls (h2 by ALPN over TLS).
TARGET=${TARGET:-nginx}
H2LOAD=${H2LOAD:-$(command -v h2load || true)}
OHA=${OHA:-$(command -v oha || echo "$HOME/.cargo/bin/oha")}

for need in "$NGINX" "$H2LOAD" /usr/bin/time; do
  [ -x "$need" ] || { echo "bench/h2.sh: missing ${need:-h2load} (apt install nghttp2-client time)" >&2; exit 1; }
done
HAVE_OHA=1
[ -x "$OHA" ] || { echo "bench/h2.sh: oha not found ($OHA); skipping it" >&2; HAVE_OHA=0; }

target=${CARGO_TARGET_DIR:-target}
# BARRAGE=path skips the build (a binary built elsewhere, e.g. another profile); BARRAGE_ALT=path
# adds a second barrage binary to the rounds as tool "alt".
if [ -z "${BARRAGE:-}" ]; then
  cargo build --profile perf -p barrage >/dev/null 2>&1 || cargo build --profile perf -p barrage
  BARRAGE=$PWD/$target/perf/barrage
  [ -x "$BARRAGE" ] || BARRAGE=$target/perf/barrage
fi

ulimit -n "$(ulimit -Hn)" || true
WORK=$(mktemp -d /tmp/barrage-h2bench.XXXXXX)
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
if [ "$TARGET" = h2o-tls ]; then
  # h2o 2.2 (Debian) over TLS, one thread, h2 by ALPN, a self-signed certificate; the tools skip
  # verification (h2load never verifies; oha --insecure; barrage --insecure).
  URL="https://127.0.0.1:$PORT/"
  openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=localhost \
    -keyout "$WORK/key.pem" -out "$WORK/cert.pem" >/dev/null 2>&1
  mkdir -p "$WORK/www" && printf 'Hello, World!' >"$WORK/www/index.html" && chmod -R a+rX "$WORK"
  cat >"$WORK/h2o.conf" <<CONF
num-threads: 1
http2-idle-timeout: 300
listen:
  host: 127.0.0.1
  port: $PORT
  ssl:
    certificate-file: $WORK/cert.pem
    key-file: $WORK/key.pem
hosts:
  default:
    paths:
      /:
        file.dir: $WORK/www
CONF
  taskset -c 0 "$H2O" -c "$WORK/h2o.conf" >"$WORK/h2o.log" 2>&1 &
else
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
  server { listen 127.0.0.1:$PORT http2 backlog=16384; location / { return 200 "Hello, World!"; } }
}
CONF
taskset -c 0 "$NGINX" -p "$WORK" -c "$WORK/nginx.conf" -e "$WORK/error.log" &
fi
NGINX_PID=$!
cleanup() { kill "$NGINX_PID" 2>/dev/null || true; wait "$NGINX_PID" 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT
for _ in $(seq 100); do
  (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break
  sleep 0.05
done

# run TOOL -> prints "rps cpu_us_per_req maxrss_kib responses nginx_cpu_us_per_req"
run() {
  local tool=$1 out="$WORK/out" tm="$WORK/time"
  local cmd
  case "$tool" in
    h2load) cmd=("$H2LOAD" -t1 -c"$CONNS" -m"$STREAMS" -D"$DURATION" "$URL") ;;
    oha) cmd=("$OHA" --http2 --insecure -z "${DURATION}s" -c "$CONNS" -p "$STREAMS" --no-tui "$URL") ;;
    barrage) cmd=("$BARRAGE" load --http2 --insecure -t1 -c"$CONNS" -m"$STREAMS" -d"${DURATION}s" "$URL") ;;
    alt) cmd=("$BARRAGE_ALT" load --http2 --insecure -t1 -c"$CONNS" -m"$STREAMS" -d"${DURATION}s" "$URL") ;;
  esac
  local before after
  before=$(awk '{print $14 + $15}' "/proc/$NGINX_PID/stat")
  taskset -c 1 /usr/bin/time -f "%U %S %M" -o "$tm" "${cmd[@]}" >"$out" 2>&1
  after=$(awk '{print $14 + $15}' "/proc/$NGINX_PID/stat")
  python3 - "$tool" "$out" "$tm" "$((after - before))" "$(getconf CLK_TCK)" <<'PY'
import re, sys
tool, out, tm = sys.argv[1], open(sys.argv[2]).read(), open(sys.argv[3]).read().split()
server_s = int(sys.argv[4]) / int(sys.argv[5])
user, sys_, rss = float(tm[-3]), float(tm[-2]), int(tm[-1])
if tool == "h2load":
    rps = float(re.search(r"finished in [\d.]+\w+, ([\d.]+) req/s", out).group(1))
    n = int(re.search(r"status codes: (\d+) 2xx", out).group(1))
elif tool in ("barrage", "alt"):
    n = int(re.search(r"^r:(\d+) ", out, re.M).group(1))
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
else:  # oha: responses from its status code distribution
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    n = sum(int(x) for x in re.findall(r"\[\d+\] (\d+) responses", out))
print(f"{rps:.0f} {(user + sys_) / max(n, 1) * 1e6:.3f} {rss} {n} {server_s / max(n, 1) * 1e6:.3f}")
PY
}

median() { python3 -c "import statistics,sys; print(statistics.median(float(x) for x in sys.argv[1:]))" "$@"; }

echo "# bench/h2.sh on $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
server="nginx $("$NGINX" -v 2>&1 | cut -d/ -f2) (h2c)"
[ "$TARGET" = h2o-tls ] && server="h2o $("$H2O" --version | head -1 | cut -d' ' -f3) (h2 over TLS)"
echo "$server, $("$H2LOAD" --version 2>&1 | head -1), $([ $HAVE_OHA = 1 ] && "$OHA" --version), $("$BARRAGE" --version)"
TOOLS=(h2load barrage)
[ $HAVE_OHA = 1 ] && TOOLS=(h2load oha barrage)
# BARRAGE_ALT=path: a second barrage binary in the same rounds, as "alt" (profile comparisons).
[ -n "${BARRAGE_ALT:-}" ] && TOOLS+=(alt)
declare -A RPS CPU RSS SRV
for r in $(seq "$ROUNDS"); do
  for t in "${TOOLS[@]}"; do
    read -r rps cpu rss n srv < <(run "$t")
    echo "  round $r $t: $rps req/s, $cpu us CPU/request, ${rss} KiB max RSS, $n responses, nginx $srv us CPU/request" >&2
    RPS[$t]="${RPS[$t]:-} $rps"; CPU[$t]="${CPU[$t]:-} $cpu"; RSS[$t]="${RSS[$t]:-} $rss"; SRV[$t]="${SRV[$t]:-} $srv"
  done
done
base_rps=$(median ${RPS[h2load]}); base_cpu=$(median ${CPU[h2load]})
echo
echo "| tool ($TARGET, 1 thread, $CONNS connections x $STREAMS streams, ${DURATION}s, median of $ROUNDS) | req/s | CPU µs/request | max RSS MiB | req/s vs h2load | CPU vs h2load | server CPU µs/request |"
echo "|---|---:|---:|---:|---:|---:|---:|"
for t in "${TOOLS[@]}"; do
  rps=$(median ${RPS[$t]}); cpu=$(median ${CPU[$t]}); rss=$(median ${RSS[$t]}); srv=$(median ${SRV[$t]})
  python3 -c "import sys; t,r,c,m,wr,wc,sv=sys.argv[1],*map(float,sys.argv[2:]); print(f'| {t} | {r:.0f} | {c:.2f} | {m/1024:.1f} | {r/wr:.2f}x | {c/wc:.2f}x | {sv:.2f} |')" \
    "$t" "$rps" "$cpu" "$rss" "$base_rps" "$base_cpu" "$srv"
done
