#!/usr/bin/env bash
# bench/parser-duel.sh: the request parser duel with criterion — httparse, picohttpparser and
# http-parser (nodejs/http-parser 2.9.4) on the same requests, as `barrage serve --parser` parses
# them: a keep-alive GET (one request per read) and a buffer of 16 pipelined GETs
# (`serve/keepalive-get`, `serve/pipelined-16` in crates/wire/benches/parsers.rs), and the raw
# parsers on the duel's corpus of real-world requests. With --serve, only the server path.
#
#   bench/parser-duel.sh [--serve] [--quick]
#
# Prints a Markdown table on stdout (requests/s per parser from criterion's median time per
# iteration, with its 95% interval, and the ratio to httparse); criterion's own report is in
# $CARGO_TARGET_DIR/criterion (default target/criterion). Needs: cargo, python3, a C compiler.
# Run it on a quiet machine, pinned to CPU 0: it measures time (about a minute; 15 s with --serve).
set -euo pipefail
cd "$(dirname "$0")/.."

filter=""
extra=()
while [ $# -gt 0 ]; do
    case "$1" in
        --serve) filter=serve/; shift ;;
        --all) filter=""; shift ;;  # the default; kept for older command lines
        --quick) extra=(--warm-up-time 0.2 --measurement-time 0.5); shift ;;
        *) echo "usage: $0 [--serve] [--quick]" >&2; exit 2 ;;
    esac
done

target=${CARGO_TARGET_DIR:-target}
echo "parser-duel: cargo bench -p barrage-wire --bench parsers -- ${filter:-(all)}" >&2
taskset -c 0 cargo bench -p barrage-wire --bench parsers -- ${filter:+"$filter"} "${extra[@]}" >&2

python3 - "$target/criterion" "$filter" <<'PY'
import json, os, sys

root, only = sys.argv[1], sys.argv[2]
# criterion names a directory by the group ("serve/pipelined-16" -> "serve_pipelined-16").
rows = []
for group in sorted(os.listdir(root)):
    if only and not group.startswith(only.rstrip("/") + "_"):
        continue
    gdir = os.path.join(root, group)
    for parser in ("httparse", "picohttpparser", "http-parser"):
        est = os.path.join(gdir, parser, "new", "estimates.json")
        bench = os.path.join(gdir, parser, "new", "benchmark.json")
        if not (os.path.exists(est) and os.path.exists(bench)):
            continue
        e = json.load(open(est))["median"]
        tp = json.load(open(bench)).get("throughput") or {}
        per_iter = tp.get("Elements") or tp.get("Bytes") or 1
        unit = "requests/s" if "Elements" in tp else "bytes/s"
        rate = lambda ns: per_iter / (ns * 1e-9)
        ci = e["confidence_interval"]
        rows.append((group.replace("_", "/", 1), parser, unit, rate(e["point_estimate"]),
                     rate(ci["upper_bound"]), rate(ci["lower_bound"])))

def fmt(x):
    return f"{x / 1e6:.2f} M" if x >= 1e6 else f"{x / 1e3:.0f} k"

print("| group | parser | median (per s) | 95% interval | vs httparse |")
print("|---|---|---|---|---|")
base = {g: r for g, p, _, r, _, _ in rows if p == "httparse"}
for g, p, unit, r, lo, hi in rows:
    ratio = f"{r / base[g]:.2f}x" if g in base else "-"
    print(f"| {g} | {p} | {fmt(r)} {unit} | [{fmt(lo)}, {fmt(hi)}] | {ratio} |")
PY
