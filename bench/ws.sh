#!/usr/bin/env bash
# bench/ws.sh: WebSocket echo round trips (issue 30): barrage load --ws against Artillery, and
# barrage serve's /ws/echo against an independent echo server (Go, gorilla/websocket).
#
# 1. The tools: the Go echo server (bench/ws/echo, GOMAXPROCS=1) is pinned to CPU 0; Artillery
#    (bench/ws/echo.yml: CONNS virtual users, one connection each, a closed loop of send, await
#    the reply, check it is the message, send again) and barrage load --ws -t1 -cCONNS (the same
#    closed loop, the same message, each reply compared) are pinned to CPU 1 and alternate
#    (artillery, barrage, artillery, ...) for ROUNDS rounds of DURATION seconds. Printed per
#    tool: median messages/s, median CPU per message (user+sys from /usr/bin/time over the
#    messages the tool counted: Artillery's websocket.messages_received, barrage's answered
#    requests; Artillery's own start and end, the CPU of a run of 0 s just before, taken out),
#    median max RSS, ratios to Artillery, and the echo server's CPU per message under that tool
#    (from /proc/PID/stat), which tells a tool that costs the server more. Issue 30's anchor was
#    k6, which is not to be used here (AGPL); its figures stay in bench/RESULTS.md.
# 2. The servers: barrage serve --threads 1 (/ws/echo) and the Go echo server, both pinned to
#    CPU 0, under the same client, barrage load --ws -t1 -cCONNS --pipeline PIPELINE on CPU 1,
#    alternating for ROUNDS rounds. Printed per server: median messages/s and median server CPU
#    per echoed message (utime+stime from /proc/PID/stat before and after, over the messages
#    the client counted), and the ratio to the Go server's (the bar: barrage <= 0.8x).
#
# Usage: bench/ws.sh    (ROUNDS=3 DURATION=5 CONNS=64 PIPELINE=1 MESSAGE='Hello, World!')
#        SKIP_TOOLS=1 or SKIP_SERVERS=1 leaves a part out; BARRAGE=path skips the build.
# Needs: npm (installs, on first use, Artillery $ARTILLERY_VERSION into ~/.cache/barrage-bench
# without its install scripts: they fetch Playwright's browser, which its WebSocket engine does
# not use), go (builds the echo server from the Go module proxy there too; ARTILLERY=path and
# ECHO=path use ones installed elsewhere), /usr/bin/time (apt install time), taskset, python3.
# Run it on an idle machine.
set -euo pipefail
cd "$(dirname "$0")/.."

ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-5}
CONNS=${CONNS:-64}
PIPELINE=${PIPELINE:-1}
MESSAGE=${MESSAGE:-Hello, World!}
ARTILLERY_VERSION=${ARTILLERY_VERSION:-2.0.34}
TOOLS_DIR=${BENCH_TOOLS:-$HOME/.cache/barrage-bench}
ARTILLERY=${ARTILLERY:-$TOOLS_DIR/artillery-$ARTILLERY_VERSION/node_modules/.bin/artillery}
# The echo server's binary is named by a hash of its sources: an edit rebuilds it.
ECHO_SRC=bench/ws/echo
ECHO_HASH=$(cat "$ECHO_SRC/main.go" "$ECHO_SRC/go.mod" "$ECHO_SRC/go.sum" | sha256sum | cut -c1-12)
ECHO=${ECHO:-$TOOLS_DIR/ws-echo-$ECHO_HASH/echo}

for need in /usr/bin/time python3 taskset; do
  command -v "$need" >/dev/null || { echo "bench/ws.sh: missing $need (apt install time util-linux python3)" >&2; exit 1; }
done
need_go() {
  command -v go >/dev/null || {
    echo "bench/ws.sh: go not found, and $1 is not built yet ($2)." >&2
    echo "  Install Go 1.22 or later (https://go.dev/dl/, or apt install golang), or give $3=path to a binary built elsewhere." >&2
    exit 1
  }
}
if [ ! -x "$ARTILLERY" ]; then
  command -v npm >/dev/null || { echo "bench/ws.sh: npm not found, and Artillery is not installed ($ARTILLERY); apt install npm, or give ARTILLERY=path" >&2; exit 1; }
  dir=$TOOLS_DIR/artillery-$ARTILLERY_VERSION
  echo "bench/ws.sh: installing Artillery $ARTILLERY_VERSION into $dir (once)" >&2
  mkdir -p "$dir"
  (cd "$dir" && npm install --ignore-scripts --no-audit --no-fund --loglevel=error "artillery@$ARTILLERY_VERSION")
  ARTILLERY=$dir/node_modules/.bin/artillery
fi
if [ ! -x "$ECHO" ]; then
  need_go "the Go echo server" "$ECHO" ECHO
  echo "bench/ws.sh: building the Go echo server into $(dirname "$ECHO") (once)" >&2
  mkdir -p "$(dirname "$ECHO")"
  (cd "$ECHO_SRC" && go build -trimpath -o "$ECHO" .)
fi

target=${CARGO_TARGET_DIR:-target}
# BARRAGE=path skips the build (a binary built elsewhere, e.g. another profile).
if [ -z "${BARRAGE:-}" ]; then
  cargo build --profile perf --locked -p barrage >/dev/null 2>&1 || cargo build --profile perf -p barrage
  BARRAGE=$target/perf/barrage
fi
case "$BARRAGE" in /*) ;; *) BARRAGE=$PWD/$BARRAGE ;; esac

ulimit -n "$(ulimit -Hn)" || true
WORK=$(mktemp -d /tmp/barrage-wsbench.XXXXXX)
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT

wait_port() {
  for _ in $(seq 200); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    sleep 0.05
  done
  echo "bench/ws.sh: nothing answers on port $1" >&2
  exit 1
}

# The Go echo server on CPU 0, one P.
GO_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
GOMAXPROCS=1 taskset -c 0 "$ECHO" -addr "127.0.0.1:$GO_PORT" 2>"$WORK/echo.err" &
GO_PID=$!
PIDS+=("$GO_PID")
wait_port "$GO_PORT"
GO_URL="ws://127.0.0.1:$GO_PORT/ws/echo"

# barrage serve on CPU 0, one thread (its address is the first line it prints).
taskset -c 0 "$BARRAGE" serve --addr 127.0.0.1:0 --threads 1 >"$WORK/serve.out" 2>"$WORK/serve.err" &
SERVE_PID=$!
PIDS+=("$SERVE_PID")
for _ in $(seq 400); do [ -s "$WORK/serve.out" ] && break; sleep 0.05; done
[ -s "$WORK/serve.out" ] || { echo "bench/ws.sh: barrage serve did not start: $(cat "$WORK/serve.err")" >&2; exit 1; }
SERVE_PORT=$(head -1 "$WORK/serve.out" | sed 's/.*://')
wait_port "$SERVE_PORT"
SERVE_URL="ws://127.0.0.1:$SERVE_PORT/ws/echo"

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

# Artillery's scenario for URL: bench/ws/echo.yml with the run's values.
artillery_yml() {
  python3 - "$1" "$CONNS" "$MESSAGE" "$PWD/bench/ws/artillery.js" bench/ws/echo.yml >"$WORK/echo.yml" <<'PY'
import json, sys
url, vus, msg, proc, template = sys.argv[1:]
text = open(template).read()
# JSON strings are YAML's double-quoted strings.
for k, v in {'"URL"': json.dumps(url), '"PROCESSOR"': json.dumps(proc), 'VUS': vus, '"MESSAGE"': json.dumps(msg)}.items():
    text = text.replace(k, v)
print(text)
PY
}

# run TOOL URL SERVER_PID DEPTH [BASE_CPU_S] -> prints "mps cpu_us_per_msg maxrss_kib messages
# server_cpu_us_per_msg errors cpu_s"; BASE_CPU_S (Artillery's start and end) is taken out of
# the CPU per message. TOOL artillery0 is Artillery for 0 s.
run() {
  local tool=$1 url=$2 spid=$3 depth=$4 base=${5:-0} out="$WORK/out" tm="$WORK/time"
  local cmd seconds=$DURATION
  case "$tool" in
    artillery|artillery0)
      [ "$tool" = artillery0 ] && seconds=0
      artillery_yml "$url"
      cmd=(env "DURATION_S=$seconds" "$ARTILLERY" run --quiet --output "$WORK/art.json" "$WORK/echo.yml") ;;
    barrage) cmd=("$BARRAGE" load --ws -t1 -c"$CONNS" --pipeline "$depth" -d"${DURATION}s"
                  --body "$MESSAGE" --expect-body "$MESSAGE" "$url") ;;
  esac
  rm -f "$WORK/art.json"
  local before after
  before=$(cpu_ticks "$spid")
  taskset -c 1 /usr/bin/time -f "%U %S %M" -o "$tm" "${cmd[@]}" >"$out" 2>&1 || {
    echo "bench/ws.sh: $tool failed:" >&2; tail -20 "$out" >&2; exit 1; }
  after=$(cpu_ticks "$spid")
  python3 - "$tool" "$out" "$tm" "$((after - before))" "$(getconf CLK_TCK)" "$WORK/art.json" "$DURATION" "$base" <<'PY'
import json, re, sys
tool, out, tm = sys.argv[1], open(sys.argv[2]).read(), open(sys.argv[3]).read().split()
server_s = int(sys.argv[4]) / int(sys.argv[5])
user, sys_, rss = float(tm[-3]), float(tm[-2]), int(tm[-1])
base = float(sys.argv[8])
if tool.startswith("artillery"):
    c = json.load(open(sys.argv[6]))["aggregate"]["counters"]
    n = int(c.get("websocket.messages_received", 0))
    mps = n / float(sys.argv[7])
    # A reply that is not the message fails its virtual user (errors.Failed capture or match).
    errors = sum(v for k, v in c.items() if k.startswith("errors.")) + int(c.get("vusers.failed", 0))
else:
    n = int(re.search(r"^r:(\d+) ", out, re.M).group(1))
    errors = int(re.search(r"^r:\d+ w:\d+ e:(\d+)", out, re.M).group(1))
    mps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
cpu = user + sys_
print(f"{mps:.0f} {(cpu - base) / max(n, 1) * 1e6:.3f} {rss} {n} {server_s / max(n, 1) * 1e6:.3f} {errors} {cpu:.3f}")
PY
}

median() { python3 -c "import statistics,sys; print(statistics.median(float(x) for x in sys.argv[1:]))" "$@"; }

echo "# bench/ws.sh on $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
GO_BUILT=$(go version "$ECHO" 2>/dev/null | awk '{print $NF}' || true)
echo "Go echo server (${GO_BUILT:-go ?}, gorilla/websocket $(awk '/gorilla\/websocket/ {print $NF; exit}' "$ECHO_SRC/go.mod"), GOMAXPROCS=1), Artillery $("$ARTILLERY" version 2>/dev/null | awk '/^Artillery:/ {print $2}') (Node $(node --version)), $("$BARRAGE" --version); message ${#MESSAGE} bytes"

if [ "${SKIP_TOOLS:-0}" != 1 ]; then
  declare -A MPS CPU RSS SRV
  TOOLS=(artillery barrage)
  for r in $(seq "$ROUNDS"); do
    # Artillery's start and end (Node, its modules, the workers), measured each round.
    read -r _ _ _ _ _ _ base < <(run artillery0 "$GO_URL" "$GO_PID" 1)
    echo "  round $r: Artillery for 0 s took $base s of CPU" >&2
    for t in "${TOOLS[@]}"; do
      b=0; [ "$t" = artillery ] && b=$base
      read -r mps cpu rss n srv errs _ < <(run "$t" "$GO_URL" "$GO_PID" 1 "$b")
      [ "$errs" = 0 ] || { echo "bench/ws.sh: $t counted $errs errors" >&2; exit 1; }
      echo "  round $r $t: $mps msg/s, $cpu us CPU/message, ${rss} KiB max RSS, $n messages, $errs errors, Go echo server $srv us CPU/message" >&2
      MPS[$t]="${MPS[$t]:-} $mps"; CPU[$t]="${CPU[$t]:-} $cpu"; RSS[$t]="${RSS[$t]:-} $rss"; SRV[$t]="${SRV[$t]:-} $srv"
    done
  done
  base_mps=$(median ${MPS[artillery]}); base_cpu=$(median ${CPU[artillery]})
  echo
  echo "| tool (Go echo server, 1 thread, $CONNS connections, closed loop, ${DURATION}s, median of $ROUNDS) | msg/s | CPU µs/message | max RSS MiB | msg/s vs Artillery | CPU vs Artillery | server CPU µs/message |"
  echo "|---|---:|---:|---:|---:|---:|---:|"
  for t in "${TOOLS[@]}"; do
    mps=$(median ${MPS[$t]}); cpu=$(median ${CPU[$t]}); rss=$(median ${RSS[$t]}); srv=$(median ${SRV[$t]})
    python3 -c "import sys; t,r,c,m,wr,wc,sv=sys.argv[1],*map(float,sys.argv[2:]); print(f'| {t} | {r:.0f} | {c:.2f} | {m/1024:.1f} | {r/wr:.2f}x | {c/wc:.2f}x | {sv:.2f} |')" \
      "$t" "$mps" "$cpu" "$rss" "$base_mps" "$base_cpu" "$srv"
  done
fi

if [ "${SKIP_SERVERS:-0}" != 1 ]; then
  declare -A SMPS SCPU
  SERVERS=(go barrage)
  for r in $(seq "$ROUNDS"); do
    for s in "${SERVERS[@]}"; do
      if [ "$s" = go ]; then url=$GO_URL; pid=$GO_PID; else url=$SERVE_URL; pid=$SERVE_PID; fi
      read -r mps _ _ n srv errs _ < <(run barrage "$url" "$pid" "$PIPELINE")
      echo "  round $r server $s: $mps msg/s, $srv us server CPU/message, $n messages, $errs errors" >&2
      SMPS[$s]="${SMPS[$s]:-} $mps"; SCPU[$s]="${SCPU[$s]:-} $srv"
    done
  done
  base_cpu=$(median ${SCPU[go]})
  echo
  echo "| server (1 thread on CPU 0; barrage load --ws -t1 -c$CONNS --pipeline $PIPELINE, ${DURATION}s, median of $ROUNDS) | msg/s | server CPU µs/message | CPU vs Go echo |"
  echo "|---|---:|---:|---:|"
  for s in "${SERVERS[@]}"; do
    mps=$(median ${SMPS[$s]}); cpu=$(median ${SCPU[$s]})
    name=$s; [ "$s" = go ] && name="Go gorilla/websocket echo"; [ "$s" = barrage ] && name="barrage serve /ws/echo"
    python3 -c "import sys; t,r,c,wc=sys.argv[1],*map(float,sys.argv[2:]); print(f'| {t} | {r:.0f} | {c:.2f} | {c/wc:.2f}x |')" \
      "$name" "$mps" "$cpu" "$base_cpu"
  done
fi
