#!/usr/bin/env bash
# Installs and builds the gRPC study's contenders on a Debian machine with Go, Node.js + npm,
# Python 3 + venv and Rust (cargo) installed (scripts/test installs the first three); the JDK,
# Maven and Ruby's grpc gem come from apt when missing. Idempotent: a second run only checks. A
# contender whose toolchain is missing is left out with a message; `barrage run` then reports it
# as skipped (its `requires`) or build_failed (its `build` check). Also copies study.toml's
# [[contender]] blocks into study-allcpus.toml and study-link.toml, and its three fastest
# servers' blocks into study-top.toml.
#
# Needs: root (or sudo) for apt-get when the JDK, Maven or ruby-grpc is missing; network access
# to the Go module proxy, npm, PyPI, crates.io and Maven Central (the first time).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
c="$here/contenders"
failed=()
export PATH="$PATH:/usr/local/go/bin"

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

# --- Go: grpc-go with the generated code committed in pb/ (gen.sh remakes it) ---
go_build() { have go && (cd "$c/go-grpc" && go build -trimpath -o grpcgo .); }
step "go-grpc (go build)" go_build

# --- Rust: tonic, its own Cargo.lock and target/ (not a member of barrage's workspace; the
# engine's interop test builds the same binary in the same place) ---
cargo_build() { have cargo && (cd "$c/rust-tonic" && cargo build --release --locked --quiet --target-dir target); }
step "rust-tonic (cargo build --release)" cargo_build

# --- Node.js: npm ci installs exactly package-lock.json, skipped when node_modules is newer ---
npm_ci() {
    local d="$c/node-grpc-js"
    have npm || return 1
    if [ "$d/node_modules/.package-lock.json" -nt "$d/package-lock.json" ]; then
        return 0
    fi
    (cd "$d" && npm ci --no-audit --no-fund --loglevel=error)
}
step "node-grpc-js (npm ci)" npm_ci

# --- Java: grpc-java on Netty; mvn package generates the messages with protoc (fetched from
# Maven Central by protobuf-maven-plugin) and copies the dependencies to target/lib. The JDK and
# Maven come from apt when missing (studies/multiplexing/setup.sh installs them too). ---
mvn_package() {
    if ! have java || ! have mvn; then
        local sudo=""
        [ "$(id -u)" -eq 0 ] || sudo="sudo"
        $sudo apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends default-jdk-headless maven
    fi
    (cd "$c/java-grpc" && mvn -q -B package)
}
step "java-grpc (mvn package)" mvn_package

# --- Python: one venv for both grpcio servers, pinned requirements; the message and service
# code generated from docs/grpc/barrage.proto by grpcio-tools (its own protoc) ---
python_venv() {
    local d="$c/python-grpcio"
    have python3 || return 1
    [ -x "$d/.venv/bin/python" ] || python3 -m venv "$d/.venv"
    "$d/.venv/bin/pip" install --quiet --disable-pip-version-check -r "$d/requirements.txt"
    (cd "$d" && .venv/bin/python -m grpc_tools.protoc -I ../../../../docs/grpc \
        --python_out=. --grpc_python_out=. barrage.proto)
}
step "python-grpcio (venv + pip + grpc_tools.protoc)" python_venv

# --- Ruby: Debian's grpc gem and its code generator (protoc 3.21 with the gem's plugin, the
# protobuf the gem reads), the code generated from docs/grpc/barrage.proto ---
ruby_grpc() {
    if ! ruby -e "require 'grpc'" 2>/dev/null || ! have grpc_tools_ruby_protoc; then
        local sudo=""
        [ "$(id -u)" -eq 0 ] || sudo="sudo"
        $sudo apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends ruby ruby-grpc ruby-grpc-tools
    fi
    (cd "$c/ruby-grpc" && grpc_tools_ruby_protoc -I ../../../../docs/grpc --ruby_out=. --grpc_out=. barrage.proto)
}
step "ruby-grpc (apt ruby-grpc ruby-grpc-tools, grpc_tools_ruby_protoc)" ruby_grpc

# --- The other study files' contenders: study.toml's, copied after their own heads ---
for f in study-allcpus.toml study-link.toml; do
    { sed '/^\[\[contender\]\]/,$d' "$here/$f"; sed -n '/^\[\[contender\]\]/,$p' "$here/study.toml"; } \
        > "$here/$f.new"
    mv "$here/$f.new" "$here/$f"
done
# study-top.toml: the blocks of its three servers only.
{ sed '/^\[\[contender\]\]/,$d' "$here/study-top.toml"
  awk 'BEGIN{RS="\\[\\[contender\\]\\]\n"; ORS=""} NR>1 && /name = "(barrage-serve|go-grpc|rust-tonic)"/ {print "[[contender]]\n" $0}' "$here/study.toml"
} > "$here/study-top.toml.new"
mv "$here/study-top.toml.new" "$here/study-top.toml"

if [ ${#failed[@]} -gt 0 ]; then
    echo "setup incomplete for: ${failed[*]}" >&2
    exit 1
fi
say "grpc: every contender is set up"
