#!/usr/bin/env bash
# bench/serve.sh: barrage serve against nginx and h2o (see docs/serve.md, "Speed").
#
#   bench/serve.sh [--rounds N] [--duration 5s] [--only keepalive,pipeline,bytes,idle,sleep] [--quick]
#
# - keep-alive and pipelined (16 deep) plaintext: each server pinned to CPU 0 with one thread,
#   wrk -t1 -c64 pinned to CPU 1; the server's own CPU seconds (utime+stime from /proc/PID/stat)
#   per response; servers alternate within each round (barrage, nginx, h2o, barrage, ...);
#   medians over the rounds.
# - /bytes/1GiB to curl (pinned to CPU 1) against nginx serving a 1 GiB file (sendfile on), and
#   the server's peak RSS (VmHWM) during the transfer.
# - 10,000 idle keep-alive connections (each has made one request): the server's RSS.
# - 10,000 concurrent GET /sleep/1000: wall time, the server's CPU time and RSS.
# Prints a Markdown report on stdout; progress on stderr. Needs: wrk, curl, nginx, h2o, python3,
# taskset. Run it on a quiet machine: it measures time.
set -euo pipefail

ROUNDS=3
DURATION=5s
ONLY=keepalive,pipeline,bytes,idle,sleep
CONNS=64
IDLE_CONNS=10000
while [ $# -gt 0 ]; do
    case "$1" in
        --rounds) ROUNDS=$2; shift 2 ;;
        --duration) DURATION=$2; shift 2 ;;
        --only) ONLY=$2; shift 2 ;;
        --quick) ROUNDS=1; DURATION=1s; IDLE_CONNS=2000; shift ;;
        *) echo "usage: $0 [--rounds N] [--duration 5s] [--only LIST] [--quick]" >&2; exit 2 ;;
    esac
done
want() { [[ ",$ONLY," == *",$1,"* ]]; }

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BARRAGE=${BARRAGE:-$ROOT/target/perf/barrage}
if [ -z "${BARRAGE_NO_BUILD:-}" ]; then
    (cd "$ROOT" && cargo build --profile perf -q -p barrage) >&2
fi
for tool in wrk curl nginx h2o python3 taskset; do
    command -v "$tool" >/dev/null || { echo "serve.sh: $tool is not installed" >&2; exit 1; }
done
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"

WORK=$(mktemp -d /tmp/barrage-bench.XXXXXX)
# h2o started as root drops to nobody: let it read its files.
chmod 755 "$WORK"
PIDS=()
cleanup() {
    for p in "${PIDS[@]:-}"; do
        [ -n "$p" ] && kill "$p" 2>/dev/null && wait "$p" 2>/dev/null || true
    done
    rm -rf "$WORK"
}
trap cleanup EXIT INT TERM

log() { echo "serve.sh: $*" >&2; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
TICK=$(getconf CLK_TCK)

wait_port() {
    for _ in $(seq 200); do
        if curl -s -o /dev/null "http://127.0.0.1:$1/"; then return 0; fi
        sleep 0.05
    done
    echo "serve.sh: nothing answers on port $1" >&2
    return 1
}

# Each start_* sets SERVER_PID and PORT.
start_barrage() {
    local out=$WORK/barrage.out
    taskset -c 0 "$BARRAGE" serve --addr 127.0.0.1:0 --threads 1 >"$out" 2>"$WORK/barrage.err" &
    SERVER_PID=$!
    PIDS+=("$SERVER_PID")
    for _ in $(seq 400); do
        if [ -s "$out" ]; then break; fi
        sleep 0.05
    done
    if [ ! -s "$out" ]; then
        echo "serve.sh: barrage serve did not start: $(cat "$WORK/barrage.err")" >&2
        return 1
    fi
    PORT=$(head -1 "$out" | sed 's/.*://')
    wait_port "$PORT"
}

start_nginx() {
    PORT=$(free_port)
    mkdir -p "$WORK/nginx/logs" "$WORK/www"
    cat >"$WORK/nginx/nginx.conf" <<CONF
worker_processes 1;
master_process off;
daemon off;
error_log $WORK/nginx/logs/error.log;
pid $WORK/nginx/nginx.pid;
events { worker_connections 20000; }
http {
    access_log off;
    sendfile on;
    tcp_nopush on;
    keepalive_requests 100000000;
    keepalive_timeout 75s;
    client_body_temp_path $WORK/nginx/body;
    proxy_temp_path $WORK/nginx/proxy;
    fastcgi_temp_path $WORK/nginx/fastcgi;
    uwsgi_temp_path $WORK/nginx/uwsgi;
    scgi_temp_path $WORK/nginx/scgi;
    server {
        listen 127.0.0.1:$PORT;
        location = / { default_type text/plain; return 200 "Hello, World!"; }
        location /files/ { alias $WORK/www/; }
    }
}
CONF
    taskset -c 0 nginx -p "$WORK/nginx" -c "$WORK/nginx/nginx.conf" 2>>"$WORK/nginx/stderr" &
    SERVER_PID=$!
    PIDS+=("$SERVER_PID")
    wait_port "$PORT"
}

start_h2o() {
    PORT=$(free_port)
    mkdir -p "$WORK/h2o/www"
    printf 'Hello, World!' >"$WORK/h2o/www/index.html"
    cat >"$WORK/h2o/h2o.conf" <<CONF
num-threads: 1
listen:
  host: 127.0.0.1
  port: $PORT
hosts:
  "127.0.0.1:$PORT":
    paths:
      /:
        file.dir: $WORK/h2o/www
CONF
    taskset -c 0 h2o -c "$WORK/h2o/h2o.conf" >"$WORK/h2o/stderr" 2>&1 &
    SERVER_PID=$!
    PIDS+=("$SERVER_PID")
    wait_port "$PORT"
}

stop_server() {
    kill "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
}

cat >"$WORK/pipeline.lua" <<'LUA'
init = function(args)
    local r = {}
    for i = 1, 16 do r[i] = wrk.format(nil, "/") end
    req = table.concat(r)
end
request = function() return req end
LUA

# One wrk run against the running server; prints "responses cpu_seconds".
measure() {
    local mode=$1 script=()
    [ "$mode" = pipeline ] && script=(-s "$WORK/pipeline.lua")
    local before after out n
    # Warm up the connections and caches first (not measured).
    taskset -c 1 wrk -t1 -c"$CONNS" -d1s "${script[@]}" "http://127.0.0.1:$PORT/" >/dev/null
    before=$(cpu_ticks "$SERVER_PID")
    out=$(taskset -c 1 wrk -t1 -c"$CONNS" -d"$DURATION" "${script[@]}" "http://127.0.0.1:$PORT/")
    after=$(cpu_ticks "$SERVER_PID")
    n=$(echo "$out" | awk '/requests in/ {print $1}')
    if echo "$out" | grep -q "Non-2xx\|Socket errors"; then
        log "wrk reported errors: $(echo "$out" | grep 'Non-2xx\|Socket errors')"
    fi
    echo "$n $(python3 -c "print(($after - $before) / $TICK)")"
}

median() { python3 -c 'import sys, statistics; v=[float(x) for x in sys.argv[1:]]; print(statistics.median(v) if v else "nan")' "$@"; }

SERVERS=(barrage nginx h2o)
declare -A RESULTS
echo "## barrage serve vs nginx vs h2o ($(date -u +%Y-%m-%d), $(nproc) cores, $(uname -r))"
echo
for mode in keepalive pipeline; do
    want "$mode" || continue
    for round in $(seq "$ROUNDS"); do
        for srv in "${SERVERS[@]}"; do
            "start_$srv"
            read -r n cpu < <(measure "$mode")
            stop_server
            us=$(python3 -c "print($cpu / $n * 1e6 if $n else float('nan'))")
            rps=$(python3 -c "import re; print($n / float(re.sub('s$', '', '$DURATION')))")
            log "$mode round $round $srv: $n responses, ${cpu}s CPU, ${us} µs/response"
            RESULTS[$mode,$srv]+="$us "
            RESULTS[$mode,$srv,rps]+="$rps "
        done
    done
done
if want keepalive || want pipeline; then
    echo "Server CPU per response (µs, median of $ROUNDS rounds; wrk -t1 -c$CONNS -d$DURATION; server on CPU 0, wrk on CPU 1):"
    echo
    echo "| mode | barrage | nginx | h2o | barrage / nginx | req/s barrage | req/s nginx | req/s h2o |"
    echo "|---|---|---|---|---|---|---|---|"
    for mode in keepalive pipeline; do
        want "$mode" || continue
        b=$(median ${RESULTS[$mode,barrage]}); n=$(median ${RESULTS[$mode,nginx]}); h=$(median ${RESULTS[$mode,h2o]})
        rb=$(median ${RESULTS[$mode,barrage,rps]}); rn=$(median ${RESULTS[$mode,nginx,rps]}); rh=$(median ${RESULTS[$mode,h2o,rps]})
        python3 -c "print('| $mode%s | %.2f | %.2f | %.2f | %.2fx | %.0f | %.0f | %.0f |' % (' (16 deep)' if '$mode' == 'pipeline' else '', $b, $n, $h, $b / $n, $rb, $rn, $rh))"
    done
    echo
fi

peak_rss_kib() { awk '/VmHWM/ {print $2}' "/proc/$1/status"; }
rss_kib() { awk '/VmRSS/ {print $2}' "/proc/$1/status"; }

if want bytes; then
    log "writing a 1 GiB file for nginx"
    mkdir -p "$WORK/www"
    head -c $((1 << 30)) /dev/zero >"$WORK/www/1GiB"
    for round in $(seq "$ROUNDS"); do
        start_barrage
        bps=$(taskset -c 1 curl -s -o /dev/null -w '%{speed_download}' "http://127.0.0.1:$PORT/bytes/1GiB")
        RESULTS[bytes,barrage]+="$bps "
        RESULTS[bytes,barrage,rss]+="$(peak_rss_kib "$SERVER_PID") "
        stop_server
        start_nginx
        # Read the file once so both servers send from memory.
        cat "$WORK/www/1GiB" >/dev/null
        bps=$(taskset -c 1 curl -s -o /dev/null -w '%{speed_download}' "http://127.0.0.1:$PORT/files/1GiB")
        RESULTS[bytes,nginx]+="$bps "
        RESULTS[bytes,nginx,rss]+="$(peak_rss_kib "$SERVER_PID") "
        stop_server
        log "bytes round $round done"
    done
    echo "1 GiB to curl over loopback (median of $ROUNDS; curl on CPU 1, server on CPU 0):"
    echo
    echo "| server | MiB/s | server peak RSS (MiB) |"
    echo "|---|---|---|"
    for srv in barrage nginx; do
        python3 -c "print('| $srv | %.0f | %.1f |' % ($(median ${RESULTS[bytes,$srv]}) / 2**20, $(median ${RESULTS[bytes,$srv,rss]}) / 1024))"
    done
    echo
    rm -f "$WORK/www/1GiB"
fi

if want idle; then
    start_barrage
    base=$(rss_kib "$SERVER_PID")
    cat >"$WORK/idle.py" <<'PY'
import resource, socket, sys, time
port, n, pid = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
conns = []
for i in range(n):
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(b"GET / HTTP/1.1\r\nHost: b\r\n\r\n")
    conns.append(s)
got = 0
for s in conns:
    data = b""
    while not data.endswith(b"Hello, World!"):
        chunk = s.recv(4096)
        if not chunk:
            sys.exit("connection closed early")
        data += chunk
    got += 1
time.sleep(1.0)
with open(f"/proc/{pid}/status") as f:
    rss = [l.split()[1] for l in f if l.startswith("VmRSS")][0]
print(got, rss)
PY
    read -r got rss < <(taskset -c 1 python3 "$WORK/idle.py" "$PORT" "$IDLE_CONNS" "$SERVER_PID")
    stop_server
    echo "$got idle keep-alive connections (each made one request): barrage serve RSS $(python3 -c "print('%.1f' % ($rss / 1024))") MiB (at start: $(python3 -c "print('%.1f' % ($base / 1024))") MiB; bar: 64 MiB)."
    echo
fi

if want sleep; then
    start_barrage
    cat >"$WORK/sleep.py" <<'PY'
import resource, selectors, socket, sys, time
port, n, pid = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
def cpu():
    with open(f"/proc/{pid}/stat") as f:
        v = f.read().rsplit(")", 1)[1].split()
    return (int(v[11]) + int(v[12])) / float(sys.argv[4])
conns = [socket.create_connection(("127.0.0.1", port)) for _ in range(n)]
c0, t0 = cpu(), time.monotonic()
for s in conns:
    s.sendall(b"GET /sleep/1000 HTTP/1.1\r\nHost: b\r\n\r\n")
sel = selectors.DefaultSelector()
for s in conns:
    s.setblocking(False)
    sel.register(s, selectors.EVENT_READ, b"")
done, peak = 0, 0
while done < n:
    for key, _ in sel.select(timeout=5):
        data = key.data + key.fileobj.recv(4096)
        if data.endswith(b"slept 1000 ms\n"):
            sel.unregister(key.fileobj)
            done += 1
        else:
            sel.modify(key.fileobj, selectors.EVENT_READ, data)
    with open(f"/proc/{pid}/status") as f:
        peak = max(peak, int([l.split()[1] for l in f if l.startswith("VmRSS")][0]))
print(done, "%.2f" % (time.monotonic() - t0), "%.2f" % (cpu() - c0), peak)
PY
    read -r done wall cpu rss < <(taskset -c 1 python3 "$WORK/sleep.py" "$PORT" "$IDLE_CONNS" "$SERVER_PID" "$TICK")
    stop_server
    echo "$done concurrent GET /sleep/1000 on one server thread: all answered after ${wall} s; server CPU ${cpu} s, RSS $(python3 -c "print('%.1f' % ($rss / 1024))") MiB."
    echo
fi
