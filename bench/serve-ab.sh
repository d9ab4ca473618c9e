#!/usr/bin/env bash
# bench/serve-ab.sh: two builds of barrage serve, side by side, on every protocol (issue 39:
# "the server's CPU per response within 3%" across a change to the server).
#
#   bench/serve-ab.sh OLD_BARRAGE NEW_BARRAGE     (ROUNDS=3 DURATION=5 CONNS=64 STREAMS=10)
#
# For each protocol, OLD and NEW alternate (old, new, old, new, ...) for ROUNDS rounds; each
# server is started fresh, pinned to CPU 0 with one thread, and its CPU time (utime+stime from
# /proc/PID/stat) is divided by the responses the client counted. The clients, pinned to CPU 1,
# are the same for both servers:
#   h1        wrk -t1 -cCONNS, GET / keep-alive
#   h1-pipe   wrk -t1 -cCONNS with 16 requests per write (bench/pipeline.lua)
#   h2c       h2load -t1 -cCONNS -mSTREAMS
#   h3        OLD's barrage load --http3 -k -t1 -c16 -m8 (TLS, UDP)
#   ws        OLD's barrage load --ws -t1 -cCONNS (/ws/echo round trips)
# Printed (Markdown on stdout, progress on stderr): per protocol, the median server CPU per
# response of each build, NEW/OLD, and the medians of req/s. ONLY=h1,h2c leaves the others out.
# Needs: wrk, h2load (nghttp2-client), taskset, python3. Run it on an idle machine.
set -euo pipefail
cd "$(dirname "$0")/.."

[ $# -eq 2 ] || { echo "usage: bench/serve-ab.sh OLD_BARRAGE NEW_BARRAGE" >&2; exit 2; }
declare -A BIN=([old]=$(realpath "$1") [new]=$(realpath "$2"))
for b in old new; do [ -x "${BIN[$b]}" ] || { echo "bench/serve-ab.sh: ${BIN[$b]} is not executable" >&2; exit 2; }; done
ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-5}
CONNS=${CONNS:-64}
STREAMS=${STREAMS:-10}
ONLY=${ONLY:-h1,h1-pipe,h2c,h3,ws}
for tool in wrk h2load taskset python3; do
  command -v "$tool" >/dev/null || { echo "bench/serve-ab.sh: $tool is not installed" >&2; exit 1; }
done
ulimit -n 65536 2>/dev/null || true

WORK=$(mktemp -d /tmp/barrage-serveab.XXXXXX)
SERVER_PID=
cleanup() {
  [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null && wait "$SERVER_PID" 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT INT TERM
log() { echo "serve-ab.sh: $*" >&2; }
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
TICK=$(getconf CLK_TCK)

# start BUILD [ARGS...]: barrage serve on CPU 0; sets SERVER_PID and PORT.
start() {
  local bin=${BIN[$1]}; shift
  : >"$WORK/serve.out"
  taskset -c 0 "$bin" serve --addr 127.0.0.1:0 --threads 1 "$@" >"$WORK/serve.out" 2>"$WORK/serve.err" &
  SERVER_PID=$!
  for _ in $(seq 400); do [ -s "$WORK/serve.out" ] && break; sleep 0.05; done
  [ -s "$WORK/serve.out" ] || { log "barrage serve did not start: $(cat "$WORK/serve.err")"; exit 1; }
  PORT=$(head -1 "$WORK/serve.out" | sed 's/.*://')
  sleep 0.3
}
stop() { kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; SERVER_PID=; }

# client PROTO -> prints the responses the client counted (its output in $WORK/client.out).
client() {
  local url="http://127.0.0.1:$PORT/" out=$WORK/client.out
  case "$1" in
    h1) taskset -c 1 wrk -t1 -c"$CONNS" -d"${DURATION}s" "$url" >"$out"
        awk '/requests in/ {print $1}' "$out" ;;
    h1-pipe) taskset -c 1 wrk -t1 -c"$CONNS" -d"${DURATION}s" -s bench/pipeline.lua "$url" >"$out"
        awk '/requests in/ {print $1}' "$out" ;;
    h2c) taskset -c 1 h2load -t1 -c"$CONNS" -m"$STREAMS" -D"$DURATION" "$url" >"$out" 2>&1
        awk '/^status codes:/ {gsub(",", "", $3); print $3}' "$out" ;;
    h3) taskset -c 1 "${BIN[old]}" load --http3 -k -t1 -c16 -m8 -d"${DURATION}s" \
          --expect-body "Hello, World!" "https://127.0.0.1:$PORT/" >"$out" 2>&1
        sed -n 's/^r:\([0-9]*\) .*/\1/p' "$out" | head -1 ;;
    ws) taskset -c 1 "${BIN[old]}" load --ws -t1 -c"$CONNS" -d"${DURATION}s" \
          "ws://127.0.0.1:$PORT/ws/echo" >"$out" 2>&1
        sed -n 's/^r:\([0-9]*\) .*/\1/p' "$out" | head -1 ;;
  esac
}
# Errors the client saw, so a fast wrong answer never counts.
errors() {
  local out=$WORK/client.out
  case "$1" in
    h1|h1-pipe) grep -E "Non-2xx|Socket errors" "$out" || true ;;
    h2c) awk '/^requests:/ {for (i = 1; i < NF; i++) if ($(i+1) ~ /^(failed|errored|timeout)/ && $i + 0 > 0) print}' "$out" ;;
    h3|ws) sed -n 's/^r:[0-9]* w:[0-9]* e:\([1-9][0-9]*\).*/errors: \1/p' "$out" | head -1 ;;
  esac
}

declare -A CPU RPS
for proto in h1 h1-pipe h2c h3 ws; do
  [[ ",$ONLY," == *",$proto,"* ]] || continue
  args=(); [ "$proto" = h3 ] && args=(--tls --http3)
  for round in $(seq "$ROUNDS"); do
    for b in old new; do
      start "$b" "${args[@]}"
      # Warm-up (not measured): connections, caches, the server's first allocations.
      saved=$DURATION; DURATION=1; client "$proto" >/dev/null; DURATION=$saved
      t0=$(cpu_ticks "$SERVER_PID")
      n=$(client "$proto")
      t1=$(cpu_ticks "$SERVER_PID")
      stop
      e=$(errors "$proto")
      [ -z "$e" ] || log "$proto $b: the client saw errors: $e"
      [ -n "$n" ] && [ "$n" -gt 0 ] || { log "$proto $b: no responses counted"; tail -5 "$WORK/client.out" >&2; exit 1; }
      us=$(python3 -c "print(($t1 - $t0) / $TICK / $n * 1e6)")
      log "$proto round $round $b: $n responses, $us µs server CPU/response"
      CPU[$proto,$b]+="$us "
      RPS[$proto,$b]+="$(python3 -c "print($n / $DURATION)") "
    done
  done
done

median() { python3 -c "import statistics,sys; print(statistics.median(float(x) for x in sys.argv[1:]))" "$@"; }
echo "## barrage serve, two builds ($(date -u +%Y-%m-%d), $(nproc) CPUs, $(uname -r))"
echo
echo "old: ${BIN[old]} ($("${BIN[old]}" --version)); new: ${BIN[new]} ($("${BIN[new]}" --version)); $ROUNDS alternating rounds of ${DURATION}s, server on CPU 0 (1 thread), client on CPU 1"
echo
echo "| protocol (client) | server CPU µs/response old | new | new / old | req/s old | req/s new |"
echo "|---|---|---|---|---|---|"
for proto in h1 h1-pipe h2c h3 ws; do
  [ -n "${CPU[$proto,old]:-}" ] || continue
  o=$(median ${CPU[$proto,old]}); n=$(median ${CPU[$proto,new]})
  ro=$(median ${RPS[$proto,old]}); rn=$(median ${RPS[$proto,new]})
  python3 -c "print(f'| $proto | {$o:.3f} | {$n:.3f} | {$n/$o:.3f}x | {$ro:,.0f} | {$rn:,.0f} |')"
done
