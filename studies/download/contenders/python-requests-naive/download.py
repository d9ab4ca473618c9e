"""The naive way: GET URL with requests and take r.content (the whole body in memory), then write it."""
import sys
import zlib

import requests

url, out, sink = sys.argv[1], sys.argv[2], sys.argv[3]
dest = out if sink == "file" else "/dev/null"
r = requests.get(url, timeout=60)
r.raise_for_status()
body = r.content
with open(dest, "wb") as f:
    f.write(body)
print(f"bytes={len(body)} crc32={zlib.crc32(body):08x}")
