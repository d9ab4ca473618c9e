"""GET URL with httpx.stream, write it to OUT (or /dev/null), print bytes and CRC-32."""
import sys
import zlib

import httpx

url, out, sink = sys.argv[1], sys.argv[2], sys.argv[3]
dest = out if sink == "file" else "/dev/null"
n, crc = 0, 0
with httpx.stream("GET", url, timeout=60) as r, open(dest, "wb") as f:
    r.raise_for_status()
    for chunk in r.iter_bytes(chunk_size=1 << 20):
        f.write(chunk)
        crc = zlib.crc32(chunk, crc)
        n += len(chunk)
print(f"bytes={n} crc32={crc:08x}")
