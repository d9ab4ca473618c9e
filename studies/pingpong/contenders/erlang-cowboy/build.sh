#!/usr/bin/env bash
# Builds cowboy 2.9.0, cowlib 2.11.0, ranch 1.8.0 (vendor/, offline: no hex.pm) and the ping-pong
# handlers (src/) with plain erlc into _build/lib/NAME-VSN/ebin, the layout ERL_LIBS reads
# (run.sh sets it); the upstream .app files (ebin/ of each release) are copied beside the beams.
# Does nothing when _build is newer than its sources.
set -euo pipefail
cd "$(dirname "$0")"
b=$(pwd)/_build
stamp=$b/.built
if [ -f "$stamp" ] && [ -z "$(find build.sh src vendor -newer "$stamp" -print -quit)" ]; then
  exit 0
fi
command -v erlc >/dev/null || { echo "build.sh: erlc is missing (run studies/pingpong/setup.sh)" >&2; exit 1; }
echo "build.sh: building cowboy and the ping-pong handlers" >&2
rm -rf "$b"
for p in ranch-1.8.0 cowlib-2.11.0 cowboy-2.9.0; do
  d=$b/lib/$p
  mkdir -p "$d/ebin"
  cp "vendor/$p/ebin/"*.app "$d/ebin/"
  [ -d "vendor/$p/include" ] && ln -s "../../../vendor/$p/include" "$d/include"
  # Behaviours first (cowboy's handlers name them), then the rest; include_lib finds cowlib's
  # headers through ERL_LIBS.
  ERL_LIBS=$b/lib erlc +debug_info -I "vendor/$p/include" -o "$d/ebin" -pa "$d/ebin" \
    $(grep -l -- '-callback' "vendor/$p/src/"*.erl) >>"$b/erlc.log" 2>&1 || true
  ERL_LIBS=$b/lib erlc +debug_info -I "vendor/$p/include" -o "$d/ebin" -pa "$d/ebin" "vendor/$p/src/"*.erl >>"$b/erlc.log" 2>&1 ||
    { cat "$b/erlc.log" >&2; exit 1; }
done
mkdir -p "$b/lib/pingpong_cowboy-0/ebin"
ERL_LIBS=$b/lib erlc -o "$b/lib/pingpong_cowboy-0/ebin" src/*.erl >>"$b/erlc.log" 2>&1 ||
  { cat "$b/erlc.log" >&2; exit 1; }
touch "$stamp"
