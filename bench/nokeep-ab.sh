#!/usr/bin/env bash
# bench/nokeep-ab.sh OLD NEW: client CPU per request of two barrage builds with --no-keepalive
# -n N (a connection per request), against one barrage serve (NEW's) on CPU 0; the clients on
# CPU 1, alternating (old, new, old, ...). Prints each run's CPU (user+sys) per request.
# Usage: N=100000 ROUNDS=5 bench/nokeep-ab.sh OLD_BARRAGE NEW_BARRAGE. Needs taskset, python3,
# GNU time. Run it on an idle machine.
set -euo pipefail
OLD=$1 NEW=$2 N=${N:-100000} ROUNDS=${ROUNDS:-5}
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
taskset -c 0 "$NEW" serve --addr 127.0.0.1:$PORT --threads 1 >/dev/null 2>&1 &
SPID=$!
trap 'kill $SPID; wait $SPID 2>/dev/null || true' EXIT
sleep 1
for r in $(seq $ROUNDS); do
  for b in old new; do
    bin=$OLD; [ $b = new ] && bin=$NEW
    out=$( { /usr/bin/time -f "%U %S" taskset -c 1 "$bin" load --no-keepalive -t1 -c32 -n $N --json /tmp/nk.json http://127.0.0.1:$PORT/ >/dev/null; } 2>&1 | tail -1)
    reqs=$(python3 -c 'import json; print(json.load(open("/tmp/nk.json"))["requests"])')
    python3 -c "u,s='$out'.split(); print('$b', $r, $reqs, round((float(u)+float(s))/$reqs*1e6, 3), 'us/request')"
  done
done
