#!/bin/sh
# Runs dlixir with one built library set: sh run.sh SET LIB MODE URL OUT SINK
# (SET as in build.sh; LIB MODE URL OUT SINK as in lib/dlixir.ex). Plain `elixir`: the BEAM's
# defaults, as the seed's escript had.
set -e
cd "$(dirname "$0")"
set_=$1; shift
b=_build/$set_
[ -f "$b/.built" ] || { echo "run.sh: $set_ is not built: sh build.sh $set_ (or studies/download/setup.sh)" >&2; exit 1; }
ERL_LIBS=$b/_build/default/checkouts:$b/lib exec elixir -e 'Dlixir.main(System.argv())' -- "$@"
