# Sourced by bench/h3.sh and bench/h3-interop.sh (from the repository's root): the independent
# HTTP/3 peers, built once into ~/.cache/barrage-bench (BENCH_TOOLS) unless given.
#   OHA        oha built with --features http3 (cargo install --locked)
#   H3_SERVER  quic-go's http3 server, bench/h3/server (go build; Go 1.26+ for quic-go v0.65),
#              kept under a name with the hash of its source, so an edit rebuilds it
TOOLS_DIR=${BENCH_TOOLS:-$HOME/.cache/barrage-bench}
OHA=${OHA:-$TOOLS_DIR/oha-h3/bin/oha}
SERVER_SRC=bench/h3/server
SERVER_HASH=$(cat "$SERVER_SRC/main.go" "$SERVER_SRC/go.mod" "$SERVER_SRC/go.sum" | sha256sum | cut -c1-12)
H3_SERVER=${H3_SERVER:-$TOOLS_DIR/h3-server-$SERVER_HASH/server}

if [ ! -x "$OHA" ]; then
  echo "$0: building oha with HTTP/3 into $TOOLS_DIR/oha-h3 (once)" >&2
  cargo install oha --locked --features http3 --root "$TOOLS_DIR/oha-h3"
  OHA=$TOOLS_DIR/oha-h3/bin/oha
fi
if [ ! -x "$H3_SERVER" ]; then
  command -v go >/dev/null || {
    echo "$0: go not found, and the quic-go server is not built yet ($H3_SERVER)." >&2
    echo "  Install Go 1.26 or later (quic-go v0.65 needs it), or give H3_SERVER=path to a binary built elsewhere." >&2
    exit 1
  }
  echo "$0: building the quic-go HTTP/3 server into $(dirname "$H3_SERVER") (once)" >&2
  mkdir -p "$(dirname "$H3_SERVER")"
  (cd "$SERVER_SRC" && go build -trimpath -o "$H3_SERVER" .)
fi
