#!/usr/bin/env bash
# bench/h2-wire.sh: why a server may spend more per request under one HTTP/2 load tool than under
# another. For h2load and barrage, against the same nginx (h2c, one worker, as bench/h2.sh), with
# the same requests (-n N, CONNS connections x STREAMS streams, one thread):
#   1. frames per request in each direction, by type and bytes, counted by a relay
#      (bench/h2-wire.py) between the tool and nginx;
#   2. nginx's system calls per request (strace -c on the worker, the tool talking to nginx
#      directly): how many reads and writes the tool's traffic makes the server do.
# Counts, not timings: they do not depend on how busy the machine is.
#
# Usage: bench/h2-wire.sh   (N=200000 CONNS=64 STREAMS=10; RELAY_N=20000 through the relay)
# Needs: nginx, h2load (nghttp2-client), strace, python3.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-200000}
RELAY_N=${RELAY_N:-20000}
CONNS=${CONNS:-64}
STREAMS=${STREAMS:-10}
NGINX=${NGINX:-/usr/sbin/nginx}
H2LOAD=${H2LOAD:-$(command -v h2load || true)}
for need in "$NGINX" "$H2LOAD" "$(command -v strace || true)"; do
  [ -x "$need" ] || { echo "bench/h2-wire.sh: missing ${need:-a tool} (apt install nginx-light nghttp2-client strace)" >&2; exit 1; }
done
target=${CARGO_TARGET_DIR:-target}
cargo build --profile perf -p barrage >/dev/null 2>&1 || cargo build --profile perf -p barrage
BARRAGE=$PWD/$target/perf/barrage

WORK=$(mktemp -d /tmp/barrage-h2wire.XXXXXX)
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
PORT=$(port)
RELAY=$(port)
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
NGINX_PID=$!
cleanup() { kill "$NGINX_PID" 2>/dev/null || true; wait "$NGINX_PID" 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT
for _ in $(seq 100); do (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break; sleep 0.05; done

cmd() { # cmd TOOL PORT REQUESTS
  case "$1" in
    h2load) echo "$H2LOAD -t1 -c$CONNS -m$STREAMS -n$3 http://127.0.0.1:$2/" ;;
    barrage) echo "$BARRAGE load --http2 -t1 -c$CONNS -m$STREAMS -n$3 http://127.0.0.1:$2/" ;;
  esac
}

echo "# bench/h2-wire.sh on $(date -u '+%Y-%m-%d %H:%M UTC'): nginx $("$NGINX" -v 2>&1 | cut -d/ -f2) h2c, $CONNS connections x $STREAMS streams"
echo "## frames per request through the relay (-n $RELAY_N)"
for tool in h2load barrage; do
  python3 bench/h2-wire.py "$RELAY" "$PORT" "$WORK/$tool.json" &
  relay=$!
  for _ in $(seq 100); do (exec 3<>"/dev/tcp/127.0.0.1/$RELAY") 2>/dev/null && break; sleep 0.05; done
  # The probe connection above counts as one (it sends nothing).
  taskset -c 1 $(cmd "$tool" "$RELAY" "$RELAY_N") >"$WORK/$tool.out" 2>&1
  kill "$relay"; wait "$relay" || true
  python3 - "$tool" "$WORK/$tool.json" "$RELAY_N" <<'PY'
import json, sys
tool, d, n = sys.argv[1], json.load(open(sys.argv[2])), int(sys.argv[3])
for way in ("to_server", "to_client"):
    f, b = d[way]["frames"], d[way]["bytes"]
    parts = ", ".join(f"{k} {f[k] / n:.3f} ({b[k] / n:.1f} B)" for k in sorted(f))
    print(f"  {tool} {way}: {sum(b.values()) / n:.1f} B/request; frames/request: {parts}")
PY
done

echo "## nginx's system calls per request (strace -c on the worker, -n $N)"
for tool in h2load barrage; do
  strace -c -f -o "$WORK/strace.$tool" -p "$NGINX_PID" &
  st=$!
  sleep 0.5
  taskset -c 1 $(cmd "$tool" "$PORT" "$N") >"$WORK/$tool.direct" 2>&1
  kill -INT "$st"; wait "$st" || true
  python3 - "$tool" "$WORK/strace.$tool" "$N" <<'PY'
import re, sys
tool, text, n = sys.argv[1], open(sys.argv[2]).read(), int(sys.argv[3])
calls = {}
for line in text.splitlines():
    m = re.match(r"\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:\d+\s+)?(\w+)$", line)
    if m and m.group(2) != "total":
        calls[m.group(2)] = int(m.group(1))
top = sorted(calls.items(), key=lambda kv: -kv[1])[:6]
print(f"  {tool}: " + ", ".join(f"{k} {v / n:.3f}" for k, v in top))
PY
done

echo "## requests per TCP segment nginx receives, at full speed (ss -ti of nginx's sockets 3 s into a 4 s run, ROUNDS alternating)"
for r in $(seq "${ROUNDS:-2}"); do
  for tool in h2load barrage; do
    case $tool in
      h2load) c="$H2LOAD -t1 -c$CONNS -m$STREAMS -D4 http://127.0.0.1:$PORT/" ;;
      barrage) c="$BARRAGE load --http2 -t1 -c$CONNS -m$STREAMS -d4s http://127.0.0.1:$PORT/" ;;
    esac
    taskset -c 1 $c >"$WORK/$tool.seg" 2>&1 &
    t=$!
    sleep 3
    ss -tinH state established "( sport = :$PORT )" >"$WORK/ss.$tool"
    wait "$t"
    python3 - "$tool" "$WORK/ss.$tool" "$r" <<'PY'
import re, sys
t = open(sys.argv[2]).read()
total = lambda k: sum(int(x) for x in re.findall(k + r":(\d+)", t))
segs, got = total("segs_in"), total("bytes_received")
# A request is one HEADERS frame of 13-14 bytes (the relay's count above): bytes over segments.
print(f"  round {sys.argv[3]} {sys.argv[1]}: {got / segs:.1f} B per segment received by nginx")
PY
  done
done
