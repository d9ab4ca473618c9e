#!/usr/bin/env bash
# Installs the toolchains of the fanout study's contenders and builds them. Idempotent: packages
# already installed are skipped by apt, the venv is reused, builds are incremental.
set -euo pipefail
cd "$(dirname "$0")"

# Debian packages: PHP with curl (pcntl is built into php-cli), Perl with LWP (Debian's perl has
# ithreads), Ruby. Only ask apt when something is missing, so a re-run needs no network.
pkgs=()
command -v php >/dev/null || pkgs+=(php-cli)
php -m 2>/dev/null | grep -qx curl || pkgs+=(php-curl)
perl -MLWP::UserAgent -e 1 2>/dev/null || pkgs+=(libwww-perl)
command -v ruby >/dev/null || pkgs+=(ruby)
if ((${#pkgs[@]})); then
  sudo=""; [[ $(id -u) -eq 0 ]] || sudo="sudo"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q "${pkgs[@]}"
fi

# Python: aiohttp (pinned) in a venv inside the study; threads and multiprocessing need only stdlib.
[[ -x .venv/bin/python ]] || python3 -m venv .venv
.venv/bin/pip install -q -r contenders/python/requirements.txt

# Compiled contenders (each skipped with a message when its toolchain is absent; the study then
# reports that contender as skipped or build_failed).
if command -v go >/dev/null; then (cd contenders/go && go build -o fanout .); else echo "no go: go-goroutines will be skipped"; fi
if command -v javac >/dev/null; then (cd contenders/java && javac -d build Fanout.java); else echo "no javac: java-executor will be skipped"; fi
if command -v cargo >/dev/null; then (cd contenders/rust && cargo build --release --locked); else echo "no cargo: rust-tokio will be skipped"; fi
echo "fanout: setup done"
