#!/usr/bin/env bash
# Installs the toolchains of the keepalive study's contenders and builds them. Idempotent: apt is
# asked only for what is missing, the venv is reused, the Go build is incremental.
set -euo pipefail
cd "$(dirname "$0")"

# Debian packages: Ruby, and async-http for the fiber contenders (no gems from rubygems.org: the
# Debian packages are the pinned versions).
pkgs=()
command -v ruby >/dev/null || pkgs+=(ruby)
ruby -rasync -rasync/http/client -e 1 2>/dev/null || pkgs+=(ruby-async ruby-async-http)
if ((${#pkgs[@]})); then
  sudo=""; [[ $(id -u) -eq 0 ]] || sudo="sudo"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q "${pkgs[@]}"
fi

# Python: requests and aiohttp (pinned) in a venv inside the study.
[[ -x .venv/bin/python ]] || python3 -m venv .venv
.venv/bin/pip install -q -r contenders/python/requirements.txt

if command -v go >/dev/null; then (cd contenders/go && go build -o keepalive .); else echo "no go: the go-* contenders will be skipped"; fi
command -v node >/dev/null || echo "no node: the node-* contenders will be skipped"
echo "keepalive: setup done"
