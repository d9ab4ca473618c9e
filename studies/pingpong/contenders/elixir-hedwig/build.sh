#!/usr/bin/env bash
# Builds the seed's Hedwig bot offline from vendor/ (no hex.pm) into _build/:
#   cowboy 1.1.2, cowlib 1.0.2, ranch 1.3.2: a small rebar3 project in _build/ whose _checkouts/
#     link to vendor/ (rebar3 builds checkouts offline into _build/_build/default/checkouts/)
#   hedwig 1.0.0 and lib/hedwig_demo.ex: elixirc into _build/lib/NAME/ebin, with .app files
#     written here (mix, which would write them, needs Hex for the rebar3 projects' deps); the
#     bot's config (config.exs in a mix project) is hedwig_demo.app's env.
# run.sh puts both on ERL_LIBS. Does nothing when _build is newer than its sources.
set -euo pipefail
cd "$(dirname "$0")"
b=$(pwd)/_build
stamp=$b/.built
if [ -f "$stamp" ] && [ -z "$(find build.sh lib vendor -newer "$stamp" -print -quit)" ]; then
  exit 0
fi
for c in rebar3 elixirc; do
  command -v $c >/dev/null || { echo "build.sh: $c is missing (run studies/pingpong/setup.sh)" >&2; exit 1; }
done
echo "build.sh: building the Hedwig bot" >&2
rm -rf "$b"
mkdir -p "$b/_checkouts" "$b/src" "$b/lib"
for p in cowboy-1.1.2 cowlib-1.0.2 ranch-1.3.2; do ln -s "../../vendor/$p" "$b/_checkouts/${p%-*}"; done
echo '{deps, [cowboy]}.' > "$b/rebar.config"
echo '{application, hedwig_bot_deps, [{description, "the bot'"'"'s Erlang deps"}, {vsn, "0"}, {applications, [kernel, stdlib, cowboy]}]}.' > "$b/src/hedwig_bot_deps.app.src"
(cd "$b" && rebar3 compile >rebar3.log 2>&1) || { cat "$b/rebar3.log" >&2; exit 1; }
pa=()
for d in cowboy cowlib ranch; do pa+=(-pa "$b/_build/default/checkouts/$d/ebin"); done

# NAME.app listing the modules elixirc wrote.
write_app() {
  local eb=$1 app=$2 vsn=$3 rest=$4 mods
  mods=$(cd "$eb" && ls *.beam | sed -e 's/\.beam$//' -e "s/.*/'&'/" | paste -sd, -)
  cat > "$eb/$app.app" <<APP
{application, $app, [{description, "$app (built by build.sh)"}, {vsn, "$vsn"},
  {modules, [$mods]}, {registered, []}, $rest]}.
APP
}

eb=$b/lib/hedwig/ebin
mkdir -p "$eb"
elixirc -o "$eb" $(find vendor/hedwig-1.0.0/lib -name '*.ex' | sort) >"$b/elixirc.log" 2>&1 ||
  { cat "$b/elixirc.log" >&2; exit 1; }
write_app "$eb" hedwig 1.0.0 "{applications, [kernel, stdlib, elixir, logger]}, {mod, {'Elixir.Hedwig', []}}"

db=$b/lib/hedwig_demo/ebin
mkdir -p "$db"
elixirc "${pa[@]}" -pa "$eb" -o "$db" lib/hedwig_demo.ex >>"$b/elixirc.log" 2>&1 ||
  { cat "$b/elixirc.log" >&2; exit 1; }
# The config: port (run.sh sets it: elixir --erl "-hedwig_demo port N"), and the robot's.
write_app "$db" hedwig_demo 0 "{applications, [kernel, stdlib, elixir, logger, hedwig, cowboy]},
  {mod, {'Elixir.HedwigDemo.Application', []}},
  {env, [{port, 3000},
         {'Elixir.HedwigDemo.Robot', [{adapter, 'Elixir.HedwigDemo.Adapters.Http'},
                                      {name, <<\"hedwig\">>},
                                      {aka, <<\"/\">>},
                                      {responders, [{'Elixir.HedwigDemo.Responders.PingPong', []}]}]}]}"
touch "$stamp"
