"""GET URL with the standard library's urllib.request, read 1 MiB at a time, write to OUT (or /dev/null), print bytes and CRC-32."""
import sys
import urllib.request
import zlib

url, out, sink = sys.argv[1], sys.argv[2], sys.argv[3]
dest = out if sink == "file" else "/dev/null"
n, crc = 0, 0
with urllib.request.urlopen(url, timeout=60) as r, open(dest, "wb") as f:
    while chunk := r.read(1 << 20):
        f.write(chunk)
        crc = zlib.crc32(chunk, crc)
        n += len(chunk)
print(f"bytes={n} crc32={crc:08x}")
