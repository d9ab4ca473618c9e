#!/bin/sh
# Runs the cowboy ping-pong server (both forms: POST / and the WebSocket /ws) on PORT:
# sh run.sh PORT (build it first: bash build.sh). The BEAM's defaults otherwise.
set -e
cd "$(dirname "$0")"
[ -f _build/.built ] || { echo "run.sh: not built: bash build.sh (or studies/pingpong/setup.sh)" >&2; exit 1; }
ERL_LIBS=_build/lib exec erl -noshell -s pingpong_cowboy start "${1:?usage: sh run.sh PORT}"
