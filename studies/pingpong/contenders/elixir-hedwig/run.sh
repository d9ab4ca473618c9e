#!/bin/sh
# Runs the seed's Hedwig bot on PORT: sh run.sh PORT (build it first: sh build.sh). Plain
# `elixir`: the BEAM's defaults, as the seed's `mix run --no-halt` had; Logger at :warn (the
# robot logs every message at :debug otherwise, which the seed's prod build would not print).
set -e
cd "$(dirname "$0")"
[ -f _build/.built ] || { echo "run.sh: not built: sh build.sh (or studies/pingpong/setup.sh)" >&2; exit 1; }
ERL_LIBS=_build/_build/default/checkouts:_build/lib exec elixir \
  --erl "-hedwig_demo port ${1:?usage: sh run.sh PORT} -logger level warning" --no-halt \
  -e '{:ok, _} = Application.ensure_all_started(:hedwig_demo)'
