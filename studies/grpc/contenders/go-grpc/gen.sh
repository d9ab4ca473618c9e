#!/usr/bin/env bash
# Regenerates pb/ (committed, as Go projects commit their generated code, so that building the
# contender needs only `go build`) from docs/grpc/barrage.proto: protoc from grpcio-tools (the
# Python contender's venv, made by ../../setup.sh), protoc-gen-go v1.36.11 and
# protoc-gen-go-grpc v1.6.0 from the Go module proxy. Run it after a change of the .proto.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"
python=../python-grpcio/.venv/bin/python
"$python" -c 'import grpc_tools' 2>/dev/null || { echo "gen.sh: no grpcio-tools: run studies/grpc/setup.sh" >&2; exit 1; }
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
GOBIN="$bin" go install google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.11
GOBIN="$bin" go install google.golang.org/grpc/cmd/protoc-gen-go-grpc@v1.6.0
m=Mbarrage.proto=barrage.study/grpcgo/pb
PATH="$bin:$PATH" "$python" -m grpc_tools.protoc -I ../../../../docs/grpc \
    --go_out=pb --go_opt=paths=source_relative --go_opt=$m \
    --go-grpc_out=pb --go-grpc_opt=paths=source_relative --go-grpc_opt=$m \
    barrage.proto
