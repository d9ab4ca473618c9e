#!/usr/bin/env bash
# bench/hpack.sh: HPACK decoding, barrage's decoder against loona-hpack (the maintained
# standalone HPACK crate), on a response header block as nginx sends it (crates/wire/benches/
# hpack.rs). Both run in one criterion process, pinned to one CPU, alternating over N rounds;
# prints each round's medians and the median ratio as Markdown. Run it on a quiet machine.
#
#   bench/hpack.sh [--rounds N]
set -euo pipefail
ROUNDS=5
while [ $# -gt 0 ]; do
    case "$1" in
        --rounds) ROUNDS=$2; shift 2 ;;
        *) echo "usage: $0 [--rounds N]" >&2; exit 2 ;;
    esac
done
cd "$(dirname "$0")/.."
cargo bench -q -p barrage-wire --bench hpack --no-run >&2
BIN=$(ls -t "${CARGO_TARGET_DIR:-target}"/release/deps/hpack-* | grep -v '\.d$' | head -1)
echo "| round | barrage (ns) | loona-hpack (ns) | ratio |"
echo "|---|---|---|---|"
ratios=()
for r in $(seq 1 "$ROUNDS"); do
    out=$(taskset -c 0 "$BIN" --bench --warm-up-time 1 --measurement-time 3 2>/dev/null)
    ns() { echo "$out" | grep -A1 "/$1\$" | grep -o 'time: *\[[^]]*\]' | awk '{v=$4; u=$5; if(u=="µs") v*=1000; if(u=="ms") v*=1e6; print v}'; }
    a=$(ns barrage); b=$(ns loona-hpack)
    ratio=$(python3 -c "print(f'{$b/$a:.0f}')")
    ratios+=("$ratio")
    echo "| $r | $a | $b | ${ratio}x |"
done
echo
echo "median ratio (loona-hpack / barrage): $(printf '%s\n' "${ratios[@]}" | sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}')x"
