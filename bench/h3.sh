#!/usr/bin/env bash
# bench/h3.sh: HTTP/3 (issue 29): barrage load --http3 against oha built with its http3
# feature, and barrage serve --http3 against an independent HTTP/3 server (Go, quic-go's http3
# package, bench/h3/server), "/" answering "Hello, World!".
#
# 1. The load tools: the quic-go server (GOMAXPROCS=1), then barrage serve --http3 (the fastest
#    HTTP/3 server here; quic-go limits both tools at these loads), pinned to CPU 0; oha (--http-version 3,
#    CONNS connections, STREAMS requests in flight on each) and barrage load --http3 -t1
#    -cCONNS -mSTREAMS (each body compared) are pinned to CPU 1 and alternate (oha, barrage,
#    oha, ...) for ROUNDS rounds of DURATION seconds. Printed per tool: median requests/s,
#    median CPU per request (user+sys from /usr/bin/time over the requests the tool counted:
#    oha's status-code distribution, barrage's responses), median max RSS, the ratios to oha
#    (the issue's bars: barrage's CPU per request <= 0.8x oha's, its req/s >= 3x), and the
#    server's CPU per request under each tool (/proc/PID/stat).
# 2. The servers: barrage serve --tls --http3 --threads 1 and the quic-go server, both pinned to
#    CPU 0, under the same client (barrage load --http3 -t1 -cCONNS -mSTREAMS on CPU 1),
#    alternating for ROUNDS rounds. Printed per server: median requests/s and median server CPU
#    per response, and the ratio to quic-go's (the bar: barrage <= 0.8x).
# 3. GSO/GRO (barrage_udp): barrage load --http3 against barrage serve --http3 as in 2, with the
#    kernel's UDP offload on (the default) and off (BARRAGE_UDP_OFFLOAD=off, for both), on "/"
#    and on /bytes/BULK (one connection, requests of BULK bytes: where datagrams come in
#    flights), alternating. Printed: req/s and MiB/s, CPU per request of client and server.
# 4. The floor: what the same datagrams cost with no QUIC, TLS or HTTP: bench/udp-floor's echo
#    (CPU 0) answering each datagram of the client's mean size with one of the server's mean
#    size, and its sender (CPU 1) keeping as many in flight as barrage's run had, both taken
#    from a barrage load --http3 run against barrage serve (its datagram counts and bytes);
#    one recv and one send system call per datagram each way. Printed: exchanges/s, their CPU,
#    the requests/s they equal at barrage's datagrams per request, and barrage against it.
#
# Usage: bench/h3.sh    (ROUNDS=3 DURATION=5 CONNS=16 STREAMS=8 BULK=64MiB)
#        SKIP_TOOLS=1, SKIP_SERVERS=1, SKIP_OFFLOAD=1 or SKIP_FLOOR=1 leaves a part out;
#        BARRAGE=path skips the build.
# Needs: go (builds the quic-go server once from the Go module proxy into ~/.cache/barrage-bench;
# H3_SERVER=path uses one built elsewhere), oha with HTTP/3 (built once with `cargo install oha
# --locked --features http3` into ~/.cache/barrage-bench/oha-h3; OHA=path uses another), openssl,
# /usr/bin/time, taskset, python3. Run it on an idle machine.
set -euo pipefail
cd "$(dirname "$0")/.."

ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-5}
CONNS=${CONNS:-16}
STREAMS=${STREAMS:-8}
BULK=${BULK:-64MiB}
for need in /usr/bin/time python3 taskset openssl; do
  command -v "$need" >/dev/null || { echo "bench/h3.sh: missing $need (apt install time util-linux python3 openssl)" >&2; exit 1; }
done
# oha and the quic-go server: $OHA, $H3_SERVER, $SERVER_SRC.
source bench/h3/tools.sh

target=${CARGO_TARGET_DIR:-target}
if [ -z "${BARRAGE:-}" ]; then
  cargo build --profile perf --locked -p barrage >/dev/null 2>&1 || cargo build --profile perf -p barrage
  BARRAGE=$target/perf/barrage
fi
case "$BARRAGE" in /*) ;; *) BARRAGE=$PWD/$BARRAGE ;; esac

ulimit -n "$(ulimit -Hn)" || true
WORK=$(mktemp -d /tmp/barrage-h3bench.XXXXXX)
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# The quic-go server on CPU 0, one P, with a self-signed certificate.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 \
  -subj /CN=localhost -addext subjectAltName=IP:127.0.0.1,DNS:localhost \
  -keyout "$WORK/key.pem" -out "$WORK/cert.pem" 2>/dev/null
GO_PORT=$(free_port)
GOMAXPROCS=1 taskset -c 0 "$H3_SERVER" -addr "127.0.0.1:$GO_PORT" -cert "$WORK/cert.pem" -key "$WORK/key.pem" >"$WORK/go.out" 2>"$WORK/go.err" &
GO_PID=$!
PIDS+=("$GO_PID")
GO_URL="https://127.0.0.1:$GO_PORT/"

# barrage serve on CPU 0, one thread, HTTP/3 on UDP at its port's number.
taskset -c 0 "$BARRAGE" serve --addr 127.0.0.1:0 --threads 1 --tls --http3 >"$WORK/serve.out" 2>"$WORK/serve.err" &
SERVE_PID=$!
PIDS+=("$SERVE_PID")
for _ in $(seq 400); do [ -s "$WORK/serve.out" ] && break; sleep 0.05; done
[ -s "$WORK/serve.out" ] || { echo "bench/h3.sh: barrage serve did not start: $(cat "$WORK/serve.err")" >&2; exit 1; }
SERVE_PORT=$(head -1 "$WORK/serve.out" | sed 's/.*://')
SERVE_URL="https://127.0.0.1:$SERVE_PORT/"
sleep 0.5

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

# run TOOL URL SERVER_PID -> "rps cpu_us_per_req maxrss_kib requests server_cpu_us_per_req errors"
run() {
  local tool=$1 url=$2 spid=$3 out="$WORK/out" tm="$WORK/time"
  local cmd
  case "$tool" in
    oha) cmd=("$OHA" --http-version 3 --insecure --no-tui --output-format json -c "$CONNS" -p "$STREAMS"
              -z "${DURATION}s" "$url") ;;
    barrage) cmd=("$BARRAGE" load --http3 -k -t1 -c"$CONNS" -m"$STREAMS" -d"${DURATION}s"
                  --expect-body "Hello, World!" "$url") ;;
  esac
  local before after
  before=$(cpu_ticks "$spid")
  taskset -c 1 /usr/bin/time -f "%U %S %M" -o "$tm" "${cmd[@]}" >"$out" 2>&1 || {
    echo "bench/h3.sh: $tool failed:" >&2; tail -20 "$out" >&2; exit 1; }
  after=$(cpu_ticks "$spid")
  python3 - "$tool" "$out" "$tm" "$((after - before))" "$(getconf CLK_TCK)" "$DURATION" <<'PY'
import json, re, sys
tool, out, tm = sys.argv[1], open(sys.argv[2]).read(), open(sys.argv[3]).read().split()
server_s = int(sys.argv[4]) / int(sys.argv[5])
user, sys_, rss = float(tm[-3]), float(tm[-2]), int(tm[-1])
if tool == "oha":
    doc = json.loads(out[out.index("{"):])
    n = int(doc.get("statusCodeDistribution", {}).get("200", 0))
    errors = sum(int(v) for v in doc.get("errorDistribution", {}).values())
    rps = n / float(sys.argv[6])
else:
    n = int(re.search(r"^r:(\d+) ", out, re.M).group(1))
    errors = int(re.search(r"^r:\d+ w:\d+ e:(\d+)", out, re.M).group(1))
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
print(f"{rps:.0f} {(user + sys_) / max(n, 1) * 1e6:.3f} {rss} {n} {server_s / max(n, 1) * 1e6:.3f} {errors}")
PY
}

median() { python3 -c "import statistics,sys; print(statistics.median(float(x) for x in sys.argv[1:]))" "$@"; }

echo "# bench/h3.sh on $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
echo "quic-go $(grep -o 'quic-go/quic-go v[0-9.]*' "$SERVER_SRC/go.mod" | head -1 | cut -d' ' -f2) server ($(go version "$H3_SERVER" 2>/dev/null | awk '{print $NF}'), GOMAXPROCS=1), $("$OHA" --version | head -1), $("$BARRAGE" --version); $CONNS connections x $STREAMS streams"

# tools NAME URL PID: the load tools alternating against one server, and their table.
tools() {
  local name=$1 url=$2 pid=$3
  declare -A RPS CPU RSS SRV
  local TOOLS=(oha barrage)
  for r in $(seq "$ROUNDS"); do
    for t in "${TOOLS[@]}"; do
      read -r rps cpu rss n srv errs < <(run "$t" "$url" "$pid")
      echo "  round $r $t -> $name: $rps req/s, $cpu us CPU/request, ${rss} KiB max RSS, $n requests, $errs errors, server $srv us CPU/request" >&2
      RPS[$t]="${RPS[$t]:-} $rps"; CPU[$t]="${CPU[$t]:-} $cpu"; RSS[$t]="${RSS[$t]:-} $rss"; SRV[$t]="${SRV[$t]:-} $srv"
    done
  done
  local base_rps base_cpu
  base_rps=$(median ${RPS[oha]}); base_cpu=$(median ${CPU[oha]})
  echo
  echo "| tool (against $name on CPU 0; $CONNS connections x $STREAMS streams, ${DURATION}s, median of $ROUNDS) | req/s | CPU µs/request | max RSS MiB | req/s vs oha | CPU vs oha | server CPU µs/request |"
  echo "|---|---:|---:|---:|---:|---:|---:|"
  for t in "${TOOLS[@]}"; do
    rps=$(median ${RPS[$t]}); cpu=$(median ${CPU[$t]}); rss=$(median ${RSS[$t]}); srv=$(median ${SRV[$t]})
    python3 -c "import sys; t,r,c,m,wr,wc,sv=sys.argv[1],*map(float,sys.argv[2:]); print(f'| {t} | {r:.0f} | {c:.2f} | {m/1024:.1f} | {r/wr:.2f}x | {c/wc:.2f}x | {sv:.2f} |')" \
      "$t" "$rps" "$cpu" "$rss" "$base_rps" "$base_cpu" "$srv"
  done
}

if [ "${SKIP_TOOLS:-0}" != 1 ]; then
  # The independent server first (the issue's anchor); it is the bottleneck at these loads, so
  # the tools are also run against the fastest HTTP/3 server here, barrage serve, where the
  # tool's own cost shows.
  tools "quic-go http3 (GOMAXPROCS=1)" "$GO_URL" "$GO_PID"
  tools "barrage serve --http3 (1 thread)" "$SERVE_URL" "$SERVE_PID"
fi

if [ "${SKIP_SERVERS:-0}" != 1 ]; then
  declare -A SRPS SCPU
  SERVERS=(quic-go barrage)
  for r in $(seq "$ROUNDS"); do
    for s in "${SERVERS[@]}"; do
      if [ "$s" = quic-go ]; then url=$GO_URL; pid=$GO_PID; else url=$SERVE_URL; pid=$SERVE_PID; fi
      read -r rps _ _ n srv errs < <(run barrage "$url" "$pid")
      echo "  round $r server $s: $rps req/s, $srv us server CPU/response, $n responses, $errs errors" >&2
      SRPS[$s]="${SRPS[$s]:-} $rps"; SCPU[$s]="${SCPU[$s]:-} $srv"
    done
  done
  base_cpu=$(median ${SCPU[quic-go]})
  echo
  echo "| server (CPU 0; barrage load --http3 -t1 -c$CONNS -m$STREAMS, ${DURATION}s, median of $ROUNDS) | req/s | server CPU µs/response | CPU vs quic-go |"
  echo "|---|---:|---:|---:|"
  for s in "${SERVERS[@]}"; do
    rps=$(median ${SRPS[$s]}); cpu=$(median ${SCPU[$s]})
    name=$s; [ "$s" = quic-go ] && name="quic-go http3 (Go)"; [ "$s" = barrage ] && name="barrage serve --http3"
    python3 -c "import sys; t,r,c,wc=sys.argv[1],*map(float,sys.argv[2:]); print(f'| {t} | {r:.0f} | {c:.2f} | {c/wc:.2f}x |')" \
      "$name" "$rps" "$cpu" "$base_cpu"
  done
fi

# offload_run ON|OFF PATH CONNS STREAMS -> "rps mib_s cpu_us_per_req server_cpu_us_per_req errors"
# against a barrage serve started with the same setting (the env var is read by both).
offload_run() {
  local mode=$1 path=$2 c=$3 m=$4 env=() out="$WORK/off.out" tm="$WORK/off.time"
  [ "$mode" = off ] && env=(BARRAGE_UDP_OFFLOAD=off)
  env "${env[@]}" taskset -c 0 "$BARRAGE" serve --addr 127.0.0.1:0 --threads 1 --tls --http3 \
    >"$WORK/oserve.out" 2>"$WORK/oserve.err" &
  local spid=$!
  for _ in $(seq 400); do [ -s "$WORK/oserve.out" ] && break; sleep 0.05; done
  local port; port=$(head -1 "$WORK/oserve.out" | sed 's/.*://')
  sleep 0.3
  local before after
  before=$(cpu_ticks "$spid")
  env "${env[@]}" taskset -c 1 /usr/bin/time -f "%U %S %M" -o "$tm" "$BARRAGE" load --http3 -k -t1 \
    -c"$c" -m"$m" -d"${DURATION}s" --json "$WORK/off.json" "https://127.0.0.1:$port$path" >"$out" 2>&1
  after=$(cpu_ticks "$spid")
  kill "$spid"; wait "$spid" 2>/dev/null || true
  : >"$WORK/oserve.out"
  python3 - "$WORK/off.json" "$tm" "$((after - before))" "$(getconf CLK_TCK)" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); tm = open(sys.argv[2]).read().split()
n = max(d["requests"], 1); secs = d["duration_s"] if "duration_s" in d else d["duration"]
cpu = (float(tm[-3]) + float(tm[-2])) / n * 1e6
srv = int(sys.argv[3]) / int(sys.argv[4]) / n * 1e6
print(f'{d["requests"] / secs:.0f} {d["bytes_read"] / secs / 2**20:.1f} {cpu:.3f} {srv:.3f} {d["errors"]["total"]}')
PY
}

if [ "${SKIP_OFFLOAD:-0}" != 1 ]; then
  declare -A ORPS OMIB OCPU OSRV
  CASES=("/ $CONNS $STREAMS" "/bytes/$BULK 1 1")
  for r in $(seq "$ROUNDS"); do
    for k in "${!CASES[@]}"; do
      for mode in on off; do
        read -r path c m <<<"${CASES[$k]}"
        read -r rps mib cpu srv errs < <(offload_run "$mode" "$path" "$c" "$m")
        echo "  round $r offload $mode $path: $rps req/s, $mib MiB/s, $cpu us CPU/request, server $srv us, $errs errors" >&2
        key="$k $mode"
        ORPS[$key]="${ORPS[$key]:-} $rps"; OMIB[$key]="${OMIB[$key]:-} $mib"
        OCPU[$key]="${OCPU[$key]:-} $cpu"; OSRV[$key]="${OSRV[$key]:-} $srv"
      done
    done
  done
  echo
  echo "| GSO/GRO (barrage load --http3 -t1 on CPU 1 -> barrage serve --http3 on CPU 0, ${DURATION}s, median of $ROUNDS) | req/s | MiB/s | client CPU µs/request | server CPU µs/request | client CPU off/on | server CPU off/on |"
  echo "|---|---:|---:|---:|---:|---:|---:|"
  for k in "${!CASES[@]}"; do
    read -r path c m <<<"${CASES[$k]}"
    for mode in on off; do
      key="$k $mode"
      python3 -c "import sys; n,r,mb,c,s,c0,s0=sys.argv[1],*map(float,sys.argv[2:]); print(f'| {n} | {r:.0f} | {mb:.1f} | {c:.2f} | {s:.2f} | {c/c0:.2f}x | {s/s0:.2f}x |')" \
        "$path -c$c -m$m, offload $mode" "$(median ${ORPS[$key]})" "$(median ${OMIB[$key]})" \
        "$(median ${OCPU[$key]})" "$(median ${OSRV[$key]})" "$(median ${OCPU[$k on]})" "$(median ${OSRV[$k on]})"
    done
  done
fi

if [ "${SKIP_FLOOR:-0}" != 1 ]; then
  FLOOR=bench/udp-floor/target/release/udp-floor
  cargo build --release --quiet --manifest-path bench/udp-floor/Cargo.toml
  # The datagrams of barrage's run against barrage serve ("/", CONNS x STREAMS).
  taskset -c 1 "$BARRAGE" load --http3 -k -t1 -c"$CONNS" -m"$STREAMS" -d"${DURATION}s" \
    --json "$WORK/floor.json" "$SERVE_URL" >/dev/null 2>&1
  read -r csize ssize window per_req brps < <(python3 - "$WORK/floor.json" "$CONNS" "$STREAMS" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); h = d["http3"]
n = max(d["requests"], 1)
per_req = h["datagrams_sent"] / n
window = max(int(sys.argv[2]), round(int(sys.argv[2]) * int(sys.argv[3]) * per_req))
secs = d["duration_s"] if "duration_s" in d else d["duration"]
print(round(d["bytes_written"] / h["datagrams_sent"]), round(d["bytes_read"] / h["datagrams_received"]),
      window, f"{per_req:.4f}", f"{d['requests'] / secs:.0f}")
PY
)
  declare -a FEX FCPU FSRV
  for r in $(seq "$ROUNDS"); do
    taskset -c 0 "$FLOOR" echo 127.0.0.1:0 "$ssize" >"$WORK/echo.out" &
    epid=$!
    for _ in $(seq 100); do [ -s "$WORK/echo.out" ] && break; sleep 0.05; done
    eport=$(sed 's/.*://' "$WORK/echo.out")
    before=$(cpu_ticks "$epid")
    taskset -c 1 /usr/bin/time -f "%U %S" -o "$WORK/floor.time" "$FLOOR" send "127.0.0.1:$eport" "$csize" "$window" "$DURATION" >"$WORK/floor.out"
    after=$(cpu_ticks "$epid")
    kill "$epid"; wait "$epid" 2>/dev/null || true
    read -r ex cpu srv < <(python3 - "$WORK/floor.out" "$WORK/floor.time" "$((after - before))" "$(getconf CLK_TCK)" <<'PY'
import sys
f = open(sys.argv[1]).read().split(); tm = open(sys.argv[2]).read().split()
n, secs = int(f[1]), float(f[3])
print(f"{n / secs:.0f} {(float(tm[0]) + float(tm[1])) / n * 1e6:.3f} {int(sys.argv[3]) / int(sys.argv[4]) / n * 1e6:.3f}")
PY
)
    echo "  round $r floor: $ex exchanges/s ($csize B out, $ssize B back, $window in flight), sender $cpu us, echo $srv us CPU/exchange" >&2
    FEX+=("$ex"); FCPU+=("$cpu"); FSRV+=("$srv")
  done
  echo
  echo "| floor (bench/udp-floor: echo on CPU 0, sender on CPU 1, ${DURATION}s, median of $ROUNDS) | exchanges/s | sender CPU µs/exchange | echo CPU µs/exchange | = requests/s at $per_req datagrams/request | barrage load --http3 -> barrage serve req/s | barrage / floor |"
  echo "|---|---:|---:|---:|---:|---:|---:|"
  python3 -c "import sys; e,c,s,p,b=map(float,sys.argv[1:6]); print(f'| one datagram of {int(sys.argv[6])} B out, one of {int(sys.argv[7])} B back, {int(sys.argv[8])} in flight | {e:.0f} | {c:.2f} | {s:.2f} | {e/p:.0f} | {b:.0f} | {b/(e/p):.2f}x |')" \
    "$(median "${FEX[@]}")" "$(median "${FCPU[@]}")" "$(median "${FSRV[@]}")" "$per_req" "$brps" "$csize" "$ssize" "$window"
fi
