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
#
# Usage: bench/h3.sh    (ROUNDS=3 DURATION=5 CONNS=16 STREAMS=8)
#        SKIP_TOOLS=1 or SKIP_SERVERS=1 leaves a part out; BARRAGE=path skips the build.
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
TOOLS_DIR=${BENCH_TOOLS:-$HOME/.cache/barrage-bench}
OHA=${OHA:-$TOOLS_DIR/oha-h3/bin/oha}
SERVER_SRC=bench/h3/server
SERVER_HASH=$(cat "$SERVER_SRC/main.go" "$SERVER_SRC/go.mod" "$SERVER_SRC/go.sum" | sha256sum | cut -c1-12)
H3_SERVER=${H3_SERVER:-$TOOLS_DIR/h3-server-$SERVER_HASH/server}

for need in /usr/bin/time python3 taskset openssl; do
  command -v "$need" >/dev/null || { echo "bench/h3.sh: missing $need (apt install time util-linux python3 openssl)" >&2; exit 1; }
done
if [ ! -x "$OHA" ]; then
  echo "bench/h3.sh: building oha with HTTP/3 into $TOOLS_DIR/oha-h3 (once)" >&2
  cargo install oha --locked --features http3 --root "$TOOLS_DIR/oha-h3"
  OHA=$TOOLS_DIR/oha-h3/bin/oha
fi
if [ ! -x "$H3_SERVER" ]; then
  command -v go >/dev/null || {
    echo "bench/h3.sh: go not found, and the quic-go server is not built yet ($H3_SERVER)." >&2
    echo "  Install Go 1.26 or later (quic-go v0.65 needs it), or give H3_SERVER=path to a binary built elsewhere." >&2
    exit 1
  }
  echo "bench/h3.sh: building the quic-go HTTP/3 server into $(dirname "$H3_SERVER") (once)" >&2
  mkdir -p "$(dirname "$H3_SERVER")"
  (cd "$SERVER_SRC" && go build -trimpath -o "$H3_SERVER" .)
fi

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
GOMAXPROCS=1 taskset -c 0 "$H3_SERVER" -addr "127.0.0.1:$GO_PORT" -cert "$WORK/cert.pem" -key "$WORK/key.pem" 2>"$WORK/go.err" &
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
