#!/usr/bin/env bash
# Installs the toolchains and packages of the ping-pong study's contenders and builds them, on a
# fresh Debian (bookworm) machine. Idempotent: a second run only checks. A contender whose
# toolchain cannot be installed here is left out with a message; `barrage run` then reports it as
# skipped (its `requires`) or build_failed (its `build` check) rather than failing the study.
#
# Needs: root (or sudo) for apt-get; network access to Debian, PyPI, npm and crates.io.
# Go, Node.js + npm, Python 3 + venv, Java (JDK) and Rust (cargo) are expected to be installed
# already (they are not all in Debian at usable versions); Ruby, PHP, Erlang and Elixir come from
# apt. Also regenerates committed-allcpus.toml from committed.toml.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
c="$here/contenders"
failed=()

say() { printf '== %s\n' "$*"; }
have() { command -v "$1" >/dev/null 2>&1; }
# Runs one contender's setup; a failure is remembered, not fatal: the other contenders still build.
step() {
    local name="$1"
    shift
    say "$name"
    if ! "$@"; then
        failed+=("$name")
        echo "   $name: setup failed (the study will report it as skipped or build_failed)" >&2
    fi
}

# --- Debian packages: Ruby + WEBrick, PHP CLI, Erlang (compiler and runtime), Elixir ---
apt_install() {
    local missing=()
    have ruby || missing+=(ruby)
    have ruby && ruby -e "require 'webrick'" 2>/dev/null || missing+=(ruby-webrick)
    have php || missing+=(php-cli)
    { have erl && have erlc; } || missing+=(erlang-base)
    # Elixir: Debian's package (bookworm: 1.14 on OTP 25); hex.pm is not needed (OTP only).
    have elixir || missing+=(elixir)
    # The seed's Hedwig bot (elixir-hedwig): rebar3 builds cowboy/ranch offline; ranch starts ssl.
    have rebar3 || missing+=(rebar3)
    if have erl && ! erl -noshell -eval 'halt(case code:which(ssl) of non_existing -> 1; _ -> 0 end).' 2>/dev/null; then
        missing+=(erlang-ssl)
    fi
    [ ${#missing[@]} -eq 0 ] && return 0
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    # Without a fresh index, apt-get may not find the packages on a new machine.
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}
step "apt: ruby ruby-webrick php-cli erlang-base elixir rebar3 erlang-ssl" apt_install

# --- Go: standard library only, nothing to download ---
go_build() { have go && (cd "$c/go-nethttp" && go build -o pingpong .); }
step "go-nethttp (go build)" go_build

# --- Node.js: npm ci installs exactly package-lock.json (and skips work when it is satisfied) ---
npm_ci() {
    local d="$1"
    have npm || return 1
    # npm ci always wipes node_modules; skip it when node_modules was installed after the last
    # change of the lock file (npm writes node_modules/.package-lock.json on every install).
    if [ "$d/node_modules/.package-lock.json" -nt "$d/package-lock.json" ]; then
        return 0
    fi
    (cd "$d" && npm ci --no-audit --no-fund --loglevel=error)
}
step "node-http (npm ci)" npm_ci "$c/node-http"
step "node-fastify (npm ci)" npm_ci "$c/node-fastify"
step "node-botkit (npm ci)" npm_ci "$c/node-botkit"
# The WebSocket study (study-ws*.toml): ws; Botkit 4 and its web adapter (their .npmrc skips
# botbuilder-dialogs' postinstall, see contenders/node-botkit-web/README.md).
step "node-ws (npm ci)" npm_ci "$c/node-ws"
step "node-botkit-web (npm ci)" npm_ci "$c/node-botkit-web"

# --- Python: one venv per contender inside the study directory, pinned requirements ---
venv() {
    local d="$1"
    have python3 || return 1
    [ -x "$d/.venv/bin/python" ] || python3 -m venv "$d/.venv"
    "$d/.venv/bin/pip" install --quiet --disable-pip-version-check -r "$d/requirements.txt"
}
step "python-aiohttp (venv + pip)" venv "$c/python-aiohttp"
step "python-starlette (venv + pip)" venv "$c/python-starlette"

# --- Rust: its own Cargo.lock and target/ (not a member of barrage's workspace) ---
cargo_build() { have cargo && (cd "$c/rust-axum" && cargo build --release --locked --quiet); }
step "rust-axum (cargo build --release)" cargo_build

# --- Java: the JDK's own HTTP server, no dependencies ---
javac_build() { have javac && (cd "$c/java-httpserver" && javac -d classes PingPong.java); }
step "java-httpserver (javac)" javac_build

# --- Erlang ---
erlc_build() { have erlc && (cd "$c/erlang-gentcp" && erlc pingpong.erl); }
step "erlang-gentcp (erlc)" erlc_build
# cowboy 2.9 (HTTP and WebSocket, study-ws.toml), built offline from vendored sources with erlc.
cowboy_build() { have erlc && bash "$c/erlang-cowboy/build.sh"; }
step "erlang-cowboy (erlc, offline)" cowboy_build

# --- Elixir: the seed's Hedwig bot, built offline from vendored sources (rebar3 + elixirc) ---
hedwig_build() { have rebar3 && have elixirc && bash "$c/elixir-hedwig/build.sh"; }
step "elixir-hedwig (rebar3 + elixirc, offline)" hedwig_build

# Ruby (WEBrick), PHP (php -S) and Elixir (`elixir server.exs`, compiled in memory at start) need
# no build.

# --- The committed grid with every server free on every CPU: generated, never edited ---
sed -e 's/^name = "pingpong-committed"$/name = "pingpong-committed-allcpus"/' \
    -e 's/^description = "\(.*\)"$/description = "\1, every server free on every CPU"/' \
    -e 's/^pin = "auto" .*$/pin = false                 # every server may use every CPU (shared with barrage'"'"'s load generator)/' \
    -e 's/^# committed-allcpus.toml is this grid.*$/# GENERATED by setup.sh from committed.toml (pin = false, 3 of its points): edit committed.toml, not this file./' \
    -e '/^# connections (setup.sh generates it).$/d' \
    -e 's/^connections = \[1, 10, 50, 100, 500, 1000\]$/connections = [10, 100, 1000]/' \
    -e 's/1\.\.1000 connections/10, 100 and 1000 connections/' \
    "$here/committed.toml" > "$here/committed-allcpus.toml.new"
mv "$here/committed-allcpus.toml.new" "$here/committed-allcpus.toml"

if [ ${#failed[@]} -gt 0 ]; then
    echo "setup incomplete for: ${failed[*]}" >&2
    exit 1
fi
say "pingpong: every contender is set up"
