#!/usr/bin/env bash
# Installs and builds what studies/pipelining needs on a fresh Debian machine: nginx and h2o from
# apt, Go and Node.js toolchains (apt's golang-go / nodejs when absent), the Go server's binary
# and the Node server's (empty) dependency tree. Idempotent: installed packages and up-to-date
# builds are left alone. barrage itself is built by `cargo build --release -p barrage`, whose
# default features compile in the C request parsers that parsers.toml uses (parser-pico,
# parser-http-parser: vendored C built with cc, nothing to install).
set -euo pipefail
cd "$(dirname "$0")"

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

missing=()
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || missing+=(nginx-light)
command -v h2o >/dev/null 2>&1 || missing+=(h2o)
command -v go >/dev/null 2>&1 || missing+=(golang-go)
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)
if [ ${#missing[@]} -gt 0 ]; then
  echo "pipelining/setup.sh: installing ${missing[*]}"
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
# Debian's nginx and h2o packages start system services on port 80/8080; the study starts its
# own instances on free ports, so those services are not needed (and are left as they are).

# Go net/http server: standard library only.
(cd contenders/go-nethttp && go build -o hello .)
# Node.js http server: no dependencies, but `npm ci` keeps the lock file honest.
(cd contenders/node-http && npm ci --no-audit --no-fund --silent)
echo "pipelining/setup.sh: ready (run: barrage run studies/pipelining/study.toml)"
