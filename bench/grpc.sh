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
# Usage: bench/grpc.sh    (ROUNDS=3 DURATION=5 CONNS=8 STREAMS=8 DATA='{"text": "hello"}')
#        BARRAGE=path skips the build; GHZ=path uses a ghz built elsewhere.
# Needs: go (builds ghz $GHZ_VERSION on first use from the Go module proxy into
# ~/.cache/barrage-bench, kept), /usr/bin/time, taskset, python3. Run it on an idle machine.
set -euo pipefail
cd "$(dirname "$0")/.."

ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-5}
CONNS=${CONNS:-8}
STREAMS=${STREAMS:-8}
DATA=${DATA:-'{"text": "hello"}'}
CALL=barrage.test.v1.Test/Echo
PROTO=docs/grpc/barrage.proto
GHZ_VERSION=${GHZ_VERSION:-v0.120.0}
TOOLS_DIR=${BENCH_TOOLS:-$HOME/.cache/barrage-bench}
GHZ=${GHZ:-$TOOLS_DIR/ghz-$GHZ_VERSION/ghz}

for need in /usr/bin/time python3 taskset; do
  command -v "$need" >/dev/null || { echo "bench/grpc.sh: missing $need (apt install time util-linux python3)" >&2; exit 1; }
done
if [ ! -x "$GHZ" ]; then
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
