# barrage in a container, for `barrage cluster k8s --image` (and anyone who wants it there):
# a static binary (musl) on Alpine, whose `sh` runs each pod's command
# (`barrage load --shard $((JOB_COMPLETION_INDEX+1))/N ...`).
#
#   docker build -t registry.example.com/barrage:0.1.0 .
#   docker push registry.example.com/barrage:0.1.0
#   barrage cluster k8s --shards 4 --image registry.example.com/barrage:0.1.0 -c 256 -d 60s http://svc:8080/
FROM rust:1-alpine AS build
# cc for the vendored C request parsers and the bundled SQLite.
RUN apk add --no-cache build-base
WORKDIR /src
COPY . .
RUN cargo build --release --locked -p barrage \
 && strip target/release/barrage \
 && ./target/release/barrage --version

FROM alpine:3.20
COPY --from=build /src/target/release/barrage /usr/local/bin/barrage
# Nobody: a load generator needs no privileges.
USER 65534:65534
CMD ["barrage", "--help"]
