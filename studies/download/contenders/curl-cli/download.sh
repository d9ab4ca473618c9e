#!/bin/sh
# curl CLI downloads; tee writes the file (or /dev/null) while a tiny Python filter computes the
# CRC-32 and byte count from the same stream (curl has no checksum option of its own).
# Usage: download.sh URL OUT SINK   (SINK = file | null)
set -eu
url=$1 out=$2 sink=$3
[ "$sink" = file ] || out=/dev/null
# pipefail is not POSIX: a curl failure must still fail the run, so its status goes through a file.
status=$(mktemp)
{ curl -sS --fail "$url"; echo $? > "$status"; } | tee "$out" | python3 -c '
import sys, zlib
n = crc = 0
while chunk := sys.stdin.buffer.read(1 << 20):
    crc = zlib.crc32(chunk, crc); n += len(chunk)
print(f"bytes={n} crc32={crc:08x}")'
rc=$(cat "$status"); rm -f "$status"
exit "$rc"
