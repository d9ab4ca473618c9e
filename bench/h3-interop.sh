#!/usr/bin/env bash
# bench/h3-interop.sh: exact counts between barrage and independent HTTP/3 peers that the tests
# cannot build cheaply (issue 29's interop). Not a benchmark: no timing is kept.
#
#   oha (built with --features http3) -> barrage serve --tls --http3: oha's count of 200s
#     against barrage serve's own (its Prometheus figures, responses_total{protocol="h3"}).
#   barrage load --http3 -> quic-go's http3 server (bench/h3/server): barrage's count against
#     the server's log ("served N requests" on SIGTERM). The engine's tests do this too
#     (crates/engine/tests/it/h3_quicgo.rs), and aioquic's server and client both ways
#     (crates/engine/tests/it/h3.rs, crates/server/tests/it/h3.rs).
#
# Usage: bench/h3-interop.sh   (N=20000 CONNS=8 STREAMS=8; BARRAGE, OHA, H3_SERVER as in h3.sh)
# Exits 1 when a count differs.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-20000}
CONNS=${CONNS:-8}
STREAMS=${STREAMS:-8}
BARRAGE=${BARRAGE:-target/release/barrage}

# oha and the quic-go server: $OHA, $H3_SERVER, $SERVER_SRC.
source bench/h3/tools.sh
[ -x "$BARRAGE" ] || cargo build --release --locked -p barrage

WORK=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
# The first line matching $2 in file $1, waited for up to 10 s.
line_of() {
  for _ in $(seq 100); do
    grep -m1 "$2" "$1" 2>/dev/null && return 0
    sleep 0.1
  done
  echo "bench/h3-interop.sh: no '$2' in $1" >&2
  exit 1
}
fail=0
check() { # name, ours, theirs
  if [ "$2" = "$3" ]; then echo "  ok    $1: $2 = $3"; else echo "  DIFF  $1: $2 != $3"; fail=1; fi
}

echo "oha $("$OHA" --version | awk '{print $2}') -> barrage serve --http3 ($N requests, $CONNS x $STREAMS)"
"$BARRAGE" serve --addr 127.0.0.1:0 --threads 1 --tls --http3 --metrics 127.0.0.1:0 \
  >"$WORK/serve.out" 2>"$WORK/serve.err" &
pids+=($!)
port=$(line_of "$WORK/serve.out" '^listening on' | sed 's/.*://')
metrics=$(line_of "$WORK/serve.err" 'metrics on' | sed 's/.*metrics on //')
"$OHA" --no-tui --http-version 3 --insecure -n "$N" -c "$CONNS" -p "$STREAMS" \
  "https://127.0.0.1:$port/" >"$WORK/oha.out" 2>&1
oha_200=$(grep -o '\[200\] [0-9]* responses' "$WORK/oha.out" | awk '{print $2}')
served=$(curl -s "$metrics" | grep 'responses_total{protocol="h3",code="200"}' | awk '{print $2}')
check "oha's 200s vs barrage serve's h3 200s" "${oha_200:-0}" "${served:-0}"
check "oha's 200s vs requests asked" "${oha_200:-0}" "$N"

echo "barrage load --http3 -> quic-go $(grep -o 'quic-go v[0-9.]*' "$SERVER_SRC/go.mod" | cut -d' ' -f2) ($N requests, $CONNS x $STREAMS)"
GOMAXPROCS=1 "$H3_SERVER" -addr 127.0.0.1:0 >"$WORK/go.out" 2>"$WORK/go.err" &
gopid=$!
pids+=($gopid)
port=$(line_of "$WORK/go.out" '^listening on' | sed 's/.*://')
"$BARRAGE" load --http3 -k -c "$CONNS" -m "$STREAMS" -n "$N" --expect-body 'Hello, World!' \
  --json "$WORK/load.json" "https://127.0.0.1:$port/" >/dev/null
ours=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["requests"], d["errors"]["total"])' "$WORK/load.json")
kill -TERM "$gopid"
theirs=$(line_of "$WORK/go.out" '^served' | awk '{print $2}')
check "barrage's responses vs quic-go's log" "${ours% *}" "$theirs"
check "barrage's errors" "${ours#* }" 0
exit $fail
