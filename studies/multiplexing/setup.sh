#!/usr/bin/env bash
# Installs and builds what studies/multiplexing needs on a fresh Debian (bookworm) machine: nginx,
# h2o and h2load (nghttp2-client, to check servers by hand) from apt, Go and Node.js toolchains
# (apt's golang-go / nodejs / npm when absent), Maven and a JDK (apt's maven / default-jdk-headless
# when absent); then builds the contenders: the Go servers (go build; go-nethttp needs Go 1.24+
# for net/http's unencrypted HTTP/2, go-quic (study-h3.toml) Go 1.26 for quic-go 0.65, both newer
# than bookworm's golang-go; go-quic fetches its modules once), the Node.js server's (empty)
# dependency tree (npm ci), the hyper server (cargo build into its own target/; cargo is expected
# to be installed, as for barrage itself) and the Jetty server (mvn package: Jetty 12 needs Java
# 17+). Idempotent: installed packages are left alone and builds are redone quickly. A contender
# that does not build here is reported by `barrage run` as skipped or build_failed, not dropped.
# Needs: root (or sudo) for apt-get; network access to Debian, crates.io and Maven Central.
set -euo pipefail
cd "$(dirname "$0")"
c=contenders
failed=()

have() { command -v "$1" >/dev/null 2>&1; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
# Runs one contender's setup; a failure is remembered, not fatal: the others still build.
step() {
  local name="$1"
  shift
  echo "== $name"
  if ! "$@"; then
    failed+=("$name")
    echo "   $name: setup failed (the study will report it as skipped or build_failed)" >&2
  fi
}

missing=()
have nginx || [ -x /usr/sbin/nginx ] || missing+=(nginx-light)
have h2o || missing+=(h2o)
have h2load || missing+=(nghttp2-client)
have go || missing+=(golang-go)
have node || missing+=(nodejs)
have npm || missing+=(npm)
have java || missing+=(default-jdk-headless)
have mvn || missing+=(maven)
if [ ${#missing[@]} -gt 0 ]; then
  echo "multiplexing/setup.sh: installing ${missing[*]}"
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
# Debian's nginx and h2o packages start system services on port 80/8080; the study starts its
# own instances on free ports, so those services are not needed (and are left as they are).

# Go net/http: standard library only; Server.Protocols (HTTP/1.1 + h2c on one port) is Go 1.24+.
go_build() {
  have go || return 1
  local v
  v=$(go env GOVERSION | sed 's/^go//')
  if ! printf '1.24\n%s\n' "$v" | sort -V -C; then
    echo "   go-nethttp needs Go 1.24+ (unencrypted HTTP/2 in net/http); this is $v" >&2
    return 1
  fi
  (cd "$c/go-nethttp" && go build -o hello .)
}
step "go-nethttp (go build)" go_build

# Go quic-go (study-h3.toml): HTTP/1.1 + h2 over TLS and HTTP/3 on one port number; quic-go
# 0.65.0 (go.mod/go.sum) needs Go 1.26.
go_quic_build() {
  have go || return 1
  local v
  v=$(go env GOVERSION | sed 's/^go//')
  if ! printf '1.26\n%s\n' "$v" | sort -V -C; then
    echo "   go-quic needs Go 1.26+ (quic-go 0.65); this is $v" >&2
    return 1
  fi
  (cd "$c/go-quic" && go build -o hello .)
}
step "go-quic (go build)" go_quic_build

# Node.js http + http2: no dependencies, but `npm ci` keeps the lock file honest.
npm_ci() { have npm && (cd "$c/node-http2" && npm ci --no-audit --no-fund --silent); }
step "node-http2 (npm ci)" npm_ci

# hyper: its own Cargo.lock and target/ (not a member of barrage's workspace, whatever
# CARGO_TARGET_DIR says: the study starts target/release/multiplexing-hyper).
cargo_build() { have cargo && (cd "$c/rust-hyper" && cargo build --release --locked --quiet --target-dir target); }
step "rust-hyper (cargo build --release)" cargo_build

# Jetty 12: Maven fetches Jetty and the build plugins once (the study's build then runs offline).
mvn_package() { have mvn && have java && (cd "$c/java-jetty" && mvn -q -B package); }
step "java-jetty (mvn package)" mvn_package

if [ ${#failed[@]} -gt 0 ]; then
  echo "multiplexing/setup.sh: failed: ${failed[*]}" >&2
  exit 1
fi
echo "multiplexing/setup.sh: ready (run: barrage run studies/multiplexing/study.toml, or study-h3.toml)"
