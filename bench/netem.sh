#!/usr/bin/env bash
# bench/netem.sh: the link emulator's cost and limits (crates/netem/examples/netem_bench.rs).
#
# UDP datagrams (SIZE bytes of payload) go from the load side's namespace to the contender's
# across a link of DELAY_MS one way, paced at each offered rate for SECS seconds; the receiver
# measures each datagram's one-way delay on CLOCK_MONOTONIC (the kernel's view, not the
# emulator's). Printed per rate, as Markdown: packets/s received, lost, the delay added over
# DELAY_MS (p50, p99, max), the emulator's own lateness p99, its CPU per packet and in all. The
# emulator is pinned to CPU (default 1); its CPU includes the receiving kernel's work done in
# its write() to the TUN device (the packet's delivery up the contender's stack).
#
# Usage: bench/netem.sh   (RATES="10000 25000 50000 100000 200000 400000" SIZE=64 DELAY_MS=10
#        SECS=3 CPU=1 by default). Needs root and /dev/net/tun. Short; a quiet machine is best.
set -euo pipefail
cd "$(dirname "$0")/.."
RATES=${RATES:-"10000 25000 50000 100000 200000 400000"}
SIZE=${SIZE:-64}
DELAY_MS=${DELAY_MS:-10}
SECS=${SECS:-3}
CPU=${CPU:-1}
cargo build -q --profile perf -p barrage-netem --example netem_bench
# shellcheck disable=SC2086
target/perf/examples/netem_bench --delay-ms "$DELAY_MS" --size "$SIZE" --secs "$SECS" \
    --cpu "$CPU" $RATES
