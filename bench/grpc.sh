#!/usr/bin/env bash
# bench/grpc.sh: gRPC unary calls (issue 40): barrage load --grpc against ghz, the usual gRPC load
# tool, both calling barrage serve's barrage.test.v1.Test/Echo over h2c.
#
# barrage serve --threads 1 is pinned to CPU 0. ghz (CONNS connections, CONNS x STREAMS calls
# in flight, -z DURATION) and barrage load --grpc -t1 -cCONNS -mSTREAMS -dDURATION (the same
# calls in flight on the same connections, the same .proto and data) are pinned to CPU 1 and
# alternate (ghz, barrage, ghz, ...) for ROUNDS rounds. Printed per tool: median calls/s, median
# client CPU per call (user+sys from /usr/bin/time over the calls the tool counted as OK), median
# max RSS, the server's CPU per call under that tool (from /proc/PID/stat), and ratios to ghz.
#
# The server half (PARTS=server): barrage serve --threads 1, grpc-go and tonic (studies/grpc's
# contenders, built here: GOMAXPROCS and tokio's workers follow the affinity, so each runs one
# thread of work) are each pinned to CPU 0 and called by the same client, barrage load --grpc
# -t1 -cCONNS -mSTREAMS pinned to CPU 1, the servers alternating (serve, go, tonic, serve, ...)
# for ROUNDS rounds: unary Echo (DATA) and bidirectional Chat (CHAT_MESSAGES messages of DATA a
# call). Printed per server: median calls/s and the server's CPU per call (user+sys of its
# process tree from /proc over the load, over the calls the client counted OK), and for Chat the
# reply messages/s and the server's CPU per message; then barrage serve's CPU per unary call
# over the lower of grpc-go's and tonic's (the issue's bar: <= 0.8x).
#
# Usage: bench/grpc.sh    (ROUNDS=3 DURATION=5 CONNS=8 STREAMS=8 DATA='{"text": "hello"}'
#                          CHAT_MESSAGES=10 PARTS="client server")
#        BARRAGE=path skips the build; GHZ=path uses a ghz built elsewhere.
# Needs: go (builds ghz $GHZ_VERSION on first use from the Go module proxy into
# ~/.cache/barrage-bench, kept, and studies/grpc's grpc-go contender), cargo (its tonic
# contender, in its own target/), /usr/bin/time, taskset, python3. Run it on an idle machine.
set -euo pipefail
cd "$(dirname "$0")/.."

ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-5}
CONNS=${CONNS:-8}
STREAMS=${STREAMS:-8}
DATA=${DATA:-'{"text": "hello"}'}
CHAT_MESSAGES=${CHAT_MESSAGES:-10}
PARTS=${PARTS:-client server}
CALL=barrage.test.v1.Test/Echo
PROTO=docs/grpc/barrage.proto
GHZ_VERSION=${GHZ_VERSION:-v0.120.0}
TOOLS_DIR=${BENCH_TOOLS:-$HOME/.cache/barrage-bench}
GHZ=${GHZ:-$TOOLS_DIR/ghz-$GHZ_VERSION/ghz}

for need in /usr/bin/time python3 taskset; do
  command -v "$need" >/dev/null || { echo "bench/grpc.sh: missing $need (apt install time util-linux python3)" >&2; exit 1; }
done
want() { [[ " $PARTS " == *" $1 "* ]]; }
if want client && [ ! -x "$GHZ" ]; then
  command -v go >/dev/null || { echo "bench/grpc.sh: go not found, and ghz is not built yet ($GHZ): install Go or give GHZ=path" >&2; exit 1; }
  echo "bench/grpc.sh: building ghz $GHZ_VERSION into $(dirname "$GHZ") (once)" >&2
  mkdir -p "$(dirname "$GHZ")"
  GOBIN=$(cd "$(dirname "$GHZ")" && pwd) go install "github.com/bojand/ghz/cmd/ghz@$GHZ_VERSION"
fi

target=${CARGO_TARGET_DIR:-target}
if [ -z "${BARRAGE:-}" ]; then
  cargo build --profile perf --locked -p barrage >/dev/null 2>&1 || cargo build --profile perf -p barrage
  BARRAGE=$target/perf/barrage
fi
case "$BARRAGE" in /*) ;; *) BARRAGE=$PWD/$BARRAGE ;; esac

ulimit -n "$(ulimit -Hn)" || true
WORK=$(mktemp -d /tmp/barrage-grpcbench.XXXXXX)
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT

taskset -c 0 "$BARRAGE" serve --addr 127.0.0.1:0 --threads 1 >"$WORK/serve.out" 2>"$WORK/serve.err" &
SERVE_PID=$!
PIDS+=("$SERVE_PID")
for _ in $(seq 400); do [ -s "$WORK/serve.out" ] && break; sleep 0.05; done
[ -s "$WORK/serve.out" ] || { echo "bench/grpc.sh: barrage serve did not start: $(cat "$WORK/serve.err")" >&2; exit 1; }
PORT=$(head -1 "$WORK/serve.out" | sed 's/.*://')

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

# run TOOL -> prints "cps client_cpu_us_per_call maxrss_kib calls server_cpu_us_per_call errors"
run() {
  local tool=$1 out="$WORK/out" tm="$WORK/time" cmd
  case "$tool" in
    ghz) cmd=("$GHZ" --insecure --proto "$PROTO" --call "$CALL" -d "$DATA"
              -c $((CONNS * STREAMS)) --connections "$CONNS" -z "${DURATION}s" --format json
              "127.0.0.1:$PORT") ;;
    barrage) cmd=("$BARRAGE" load --grpc --proto "$PROTO" --call "$CALL" --data "$DATA"
                  -t1 -c"$CONNS" -m"$STREAMS" -d"${DURATION}s" -q "http://127.0.0.1:$PORT") ;;
  esac
  local before after
  before=$(cpu_ticks "$SERVE_PID")
  taskset -c 1 /usr/bin/time -f "%U %S %M" -o "$tm" "${cmd[@]}" >"$out" 2>&1 || {
    echo "bench/grpc.sh: $tool failed:" >&2; tail -20 "$out" >&2; exit 1; }
  after=$(cpu_ticks "$SERVE_PID")
  python3 - "$tool" "$out" "$tm" "$((after - before))" "$(getconf CLK_TCK)" <<'PY'
import json, re, sys
tool, out, tm = sys.argv[1], open(sys.argv[2]).read(), open(sys.argv[3]).read().split()
server_s = int(sys.argv[4]) / int(sys.argv[5])
user, sys_, rss = float(tm[-3]), float(tm[-2]), int(tm[-1])
if tool == "ghz":
    j = json.loads(out[out.index("{"):])
    n = int(j.get("statusCodeDistribution", {}).get("OK", 0))
    errors = int(j["count"]) - n
    cps = n / (j["total"] / 1e9)
else:
    n = int(re.search(r"^r:(\d+) ", out, re.M).group(1))
    errors = int(re.search(r"^r:\d+ w:\d+ e:(\d+)", out, re.M).group(1))
    cps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
print(f"{cps:.0f} {(user + sys_) / max(n, 1) * 1e6:.3f} {rss} {n} {server_s / max(n, 1) * 1e6:.3f} {errors}")
PY
}

median() { python3 -c "import statistics,sys; print(statistics.median(float(x) for x in sys.argv[1:]))" "$@"; }

echo "# bench/grpc.sh on $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
if want client; then
echo "ghz $("$GHZ" --version 2>&1 | head -1), $("$BARRAGE" --version); $CALL $DATA; $CONNS connections x $STREAMS calls in flight; ${DURATION}s x $ROUNDS alternating rounds; server barrage serve --threads 1 on CPU 0, clients on CPU 1"
declare -A CPS CPU RSS SRV
for round in $(seq "$ROUNDS"); do
  for tool in ghz barrage; do
    read -r cps cpu rss n srv errors < <(run "$tool")
    echo "round $round $tool: $cps calls/s, $cpu µs CPU/call, $rss KiB, $n calls OK, $errors errors, server $srv µs/call" >&2
    [ "$errors" = 0 ] || echo "bench/grpc.sh: $tool had $errors failed calls" >&2
    CPS[$tool]+="$cps "; CPU[$tool]+="$cpu "; RSS[$tool]+="$rss "; SRV[$tool]+="$srv "
  done
done
echo
echo "| tool | calls/s (median) | client CPU µs/call | max RSS KiB | server CPU µs/call |"
echo "|---|---|---|---|---|"
for tool in ghz barrage; do
  # shellcheck disable=SC2086
  echo "| $tool | $(median ${CPS[$tool]}) | $(median ${CPU[$tool]}) | $(median ${RSS[$tool]}) | $(median ${SRV[$tool]}) |"
done
# shellcheck disable=SC2086
python3 - "$(median ${CPU[barrage]})" "$(median ${CPU[ghz]})" "$(median ${CPS[barrage]})" "$(median ${CPS[ghz]})" <<'PY'
import sys
b, g, bc, gc = map(float, sys.argv[1:])
print(f"\nbarrage / ghz: client CPU per call {b / g:.3f}x, calls/s {bc / gc:.2f}x")
PY
fi

if want server; then
# The process tree's CPU ticks (user+sys of every thread of PID and of its descendants, from
# /proc): what a server that forks or runs helper processes spends, all of it.
tree_ticks() {
  local pid=$1 total child
  total=$(cpu_ticks "$pid")
  for child in $(cat /proc/"$pid"/task/*/children 2>/dev/null); do
    total=$((total + $(tree_ticks "$child")))
  done
  echo "$total"
}
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() {
  for _ in $(seq 400); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0; sleep 0.05; done
  echo "bench/grpc.sh: nothing listens on port $1" >&2; exit 1
}
# studies/grpc's contenders, the code the study runs.
GO_DIR=studies/grpc/contenders/go-grpc
TONIC_DIR=studies/grpc/contenders/rust-tonic
command -v go >/dev/null || { echo "bench/grpc.sh: go not found (the grpc-go server)" >&2; exit 1; }
(cd "$GO_DIR" && go build -trimpath -o "$WORK/grpcgo" .)
(cd "$TONIC_DIR" && cargo build --release --locked --quiet --target-dir target)
declare -A SPID SPORT
SPID[serve]=$SERVE_PID; SPORT[serve]=$PORT
for srv in go tonic; do
  SPORT[$srv]=$(free_port)
  case $srv in
    go) taskset -c 0 "$WORK/grpcgo" "127.0.0.1:${SPORT[$srv]}" 2>"$WORK/$srv.err" & ;;
    tonic) taskset -c 0 "$TONIC_DIR/target/release/grpc-tonic" "127.0.0.1:${SPORT[$srv]}" 2>"$WORK/$srv.err" & ;;
  esac
  SPID[$srv]=$!
  PIDS+=("${SPID[$srv]}")
  wait_port "${SPORT[$srv]}"
done
CHAT=$(python3 -c 'import json, sys; print(json.dumps([json.loads(sys.argv[1])] * int(sys.argv[2])))' "$DATA" "$CHAT_MESSAGES")

# serve_run SERVER MODE -> prints "calls_per_s messages_per_s server_us_per_call server_us_per_message errors"
serve_run() {
  local srv=$1 mode=$2 out="$WORK/out" call data before after
  case $mode in
    unary) call=barrage.test.v1.Test/Echo; data=$DATA ;;
    chat) call=barrage.test.v1.Test/Chat; data=$CHAT ;;
  esac
  before=$(tree_ticks "${SPID[$srv]}")
  taskset -c 1 "$BARRAGE" load --grpc --proto "$PROTO" --call "$call" --data "$data" \
    -t1 -c"$CONNS" -m"$STREAMS" -d"${DURATION}s" -q "http://127.0.0.1:${SPORT[$srv]}" >"$out" 2>&1 || {
    echo "bench/grpc.sh: barrage load against $srv failed:" >&2; tail -20 "$out" >&2; exit 1; }
  after=$(tree_ticks "${SPID[$srv]}")
  python3 - "$out" "$((after - before))" "$(getconf CLK_TCK)" <<'PY'
import re, sys
out = open(sys.argv[1]).read()
server_s = int(sys.argv[2]) / int(sys.argv[3])
n = int(re.search(r"^r:(\d+) ", out, re.M).group(1))
errors = int(re.search(r"^r:\d+ w:\d+ e:(\d+)", out, re.M).group(1))
cps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
m = int(re.search(r"Reply messages: (\d+)", out).group(1))
print(f"{cps:.0f} {cps * m / max(n, 1):.0f} {server_s / max(n, 1) * 1e6:.3f} {server_s / max(m, 1) * 1e6:.3f} {errors}")
PY
}

echo
echo "Servers: barrage serve --threads 1, grpc-go ($GO_DIR), tonic ($TONIC_DIR), each on CPU 0; client $("$BARRAGE" --version) load --grpc -t1 -c$CONNS -m$STREAMS on CPU 1; unary $DATA, chat $CHAT_MESSAGES of it a call; ${DURATION}s x $ROUNDS alternating rounds"
declare -A SCPS SMPS SCALL SMSG
for round in $(seq "$ROUNDS"); do
  for mode in unary chat; do
    for srv in serve go tonic; do
      read -r cps mps us_call us_msg errors < <(serve_run "$srv" "$mode")
      echo "round $round $mode $srv: $cps calls/s, $mps messages/s, server $us_call µs/call, $us_msg µs/message, $errors errors" >&2
      [ "$errors" = 0 ] || echo "bench/grpc.sh: $errors failed calls against $srv ($mode)" >&2
      SCPS[$mode,$srv]+="$cps "; SMPS[$mode,$srv]+="$mps "; SCALL[$mode,$srv]+="$us_call "; SMSG[$mode,$srv]+="$us_msg "
    done
  done
done
echo
echo "| server | unary calls/s (median) | server CPU µs/call | chat messages/s (median) | server CPU µs/message |"
echo "|---|---|---|---|---|"
for srv in serve go tonic; do
  name=$srv; [ "$srv" = serve ] && name="barrage serve"; [ "$srv" = go ] && name=grpc-go
  # shellcheck disable=SC2086
  echo "| $name | $(median ${SCPS[unary,$srv]}) | $(median ${SCALL[unary,$srv]}) | $(median ${SMPS[chat,$srv]}) | $(median ${SMSG[chat,$srv]}) |"
done
# shellcheck disable=SC2086
python3 - "$(median ${SCALL[unary,serve]})" "$(median ${SCALL[unary,go]})" "$(median ${SCALL[unary,tonic]})" \
  "$(median ${SMSG[chat,serve]})" "$(median ${SMSG[chat,go]})" "$(median ${SMSG[chat,tonic]})" <<'PY'
import sys
s, g, t, sm, gm, tm = map(float, sys.argv[1:])
best, who = min((g, "grpc-go"), (t, "tonic"))
bm, whom = min((gm, "grpc-go"), (tm, "tonic"))
print(f"\nbarrage serve's CPU per unary call / {who}'s (the lower of grpc-go and tonic): {s / best:.3f}x;"
      f" per Chat message / {whom}'s: {sm / bm:.3f}x")
PY
fi
