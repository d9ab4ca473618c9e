#!/usr/bin/env bash
# Builds one of dlixir's three library sets offline from vendor/ (no hex.pm):
#   sh build.sh httpoison-1.8.2    HTTPoison 1.8.2 on hackney 1.20.1 (+ its deps)
#   sh build.sh httpoison-0.13.0   HTTPoison 0.13.0 on hackney 1.10.1 (the seed's, Dec 2017)
#   sh build.sh httpotion-3.1.2    HTTPotion 3.1.2 on ibrowse 4.4.0
#   sh build.sh all
# The Erlang libraries: a small rebar3 project per set in _build/SET/ whose _checkouts/ are links
# to vendor/ (rebar3 builds checkouts offline into _build/SET/_build/default/checkouts/NAME/ebin).
# The Elixir wrapper and lib/ (dlixir): elixirc into _build/SET/lib/NAME/ebin, with an .app file
# written here (mix, which would write it, needs Hex to read the rebar3 projects' deps).
# run.sh puts both on ERL_LIBS. Does nothing when the set is newer than its sources.
set -euo pipefail
cd "$(dirname "$0")"
here=$(pwd)

build() {
  local set=$1 erl_pkgs ex_pkg ex_app ex_vsn ex_deps dl_src
  case $set in
    httpoison-1.8.2)
      erl_pkgs="hackney-1.20.1 certifi-2.12.0 idna-6.1.1 metrics-1.0.1 mimerl-1.2.0 parse_trans-3.4.1 ssl_verify_fun-1.1.7 unicode_util_compat-0.7.0"
      ex_deps="hackney"; dl_src=lib/dlixir/httpoison.ex ;;
    httpoison-0.13.0)
      # hackney 1.10.1 asked for idna 5.1.0, mimerl 1.0.2, certifi 2.0.0, ssl_verify_fun 1.1.1:
      # the newer ones here (their APIs hackney 1.10.1 calls are unchanged; see README.md).
      erl_pkgs="hackney-1.10.1 certifi-2.12.0 idna-6.1.1 metrics-1.0.1 mimerl-1.2.0 ssl_verify_fun-1.1.7 unicode_util_compat-0.7.0"
      ex_deps="hackney"; dl_src=lib/dlixir/httpoison.ex ;;
    httpotion-3.1.2)
      erl_pkgs="ibrowse-4.4.0"
      ex_deps="ssl, ibrowse"; dl_src=lib/dlixir/httpotion.ex ;;
    *) echo "build.sh: unknown set $set (httpoison-1.8.2, httpoison-0.13.0, httpotion-3.1.2, all)" >&2; exit 2 ;;
  esac
  ex_pkg=$set; ex_app=${set%-*}; ex_vsn=${set##*-}
  local b=$here/_build/$set stamp=$here/_build/$set/.built
  local srcs=(build.sh lib/dlixir.ex "$dl_src" "vendor/$ex_pkg")
  for p in $erl_pkgs; do srcs+=("vendor/$p"); done
  if [ -f "$stamp" ] && [ -z "$(find "${srcs[@]}" -newer "$stamp" -print -quit)" ]; then
    return 0
  fi
  echo "build.sh: building $set" >&2
  rm -rf "$b"
  mkdir -p "$b/_checkouts" "$b/src" "$b/lib"
  local deps=()
  for p in $erl_pkgs; do
    ln -s "../../../vendor/$p" "$b/_checkouts/${p%-*}"
    deps+=("${p%-*}")
  done
  local top=${erl_pkgs%% *}; top=${top%-*}
  echo "{deps, [$top]}." > "$b/rebar.config"
  echo "{application, dlixir_deps, [{description, \"dlixir's Erlang deps\"}, {vsn, \"0\"}, {applications, [kernel, stdlib, $top]}]}." > "$b/src/dlixir_deps.app.src"
  (cd "$b" && rebar3 compile >rebar3.log 2>&1) || { cat "$b/rebar3.log" >&2; exit 1; }
  local pa=()
  for d in "${deps[@]}"; do pa+=(-pa "$b/_build/default/checkouts/$d/ebin"); done
  # The Elixir wrapper (HTTPoison or HTTPotion) and its .app file.
  local eb=$b/lib/$ex_app/ebin
  mkdir -p "$eb"
  elixirc --ignore-module-conflict "${pa[@]}" -o "$eb" $(find "vendor/$ex_pkg/lib" -name '*.ex' | sort) >"$b/elixirc.log" 2>&1 ||
    { cat "$b/elixirc.log" >&2; exit 1; }
  write_app "$eb" "$ex_app" "$ex_vsn" "$ex_deps"
  # dlixir itself, against that wrapper.
  local db=$b/lib/dlixir/ebin
  mkdir -p "$db"
  elixirc "${pa[@]}" -pa "$eb" -o "$db" lib/dlixir.ex "$dl_src" >>"$b/elixirc.log" 2>&1 ||
    { cat "$b/elixirc.log" >&2; exit 1; }
  write_app "$db" dlixir 0 "$ex_app"
  touch "$stamp"
}

# NAME.app listing the modules elixirc wrote, so Application.ensure_all_started/1 (HTTPoison.start,
# HTTPotion.start) finds the application and starts its dependencies.
write_app() {
  local eb=$1 app=$2 vsn=$3 deps=$4 mods
  mods=$(cd "$eb" && ls *.beam | sed -e 's/\.beam$//' -e "s/.*/'&'/" | paste -sd, -)
  cat > "$eb/$app.app" <<APP
{application, $app, [{description, "$app (built by dlixir's build.sh)"}, {vsn, "$vsn"},
  {modules, [$mods]}, {registered, []}, {applications, [kernel, stdlib, elixir, $deps]}]}.
APP
}

command -v rebar3 >/dev/null || { echo "build.sh: rebar3 is missing (apt-get install rebar3; run studies/download/setup.sh)" >&2; exit 1; }
command -v elixirc >/dev/null || { echo "build.sh: elixirc is missing (apt-get install elixir)" >&2; exit 1; }
if [ "${1:-}" = all ]; then
  for s in httpoison-1.8.2 httpoison-0.13.0 httpotion-3.1.2; do build "$s"; done
else
  build "${1:?usage: sh build.sh SET|all}"
fi
