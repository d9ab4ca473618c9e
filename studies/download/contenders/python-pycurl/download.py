"""GET URL with libcurl through pycurl: libcurl calls WRITEFUNCTION with each chunk it receives,
which writes it to OUT (or /dev/null) and updates zlib.crc32; print bytes and CRC-32."""
import sys
import zlib

import pycurl

url, out, sink = sys.argv[1], sys.argv[2], sys.argv[3]
n = crc = 0
with open(out if sink == "file" else "/dev/null", "wb") as f:

    def write(chunk: bytes) -> None:
        global n, crc
        f.write(chunk)
        crc = zlib.crc32(chunk, crc)
        n += len(chunk)

    c = pycurl.Curl()
    c.setopt(pycurl.URL, url)
    c.setopt(pycurl.WRITEFUNCTION, write)
    c.setopt(pycurl.FAILONERROR, True)
    c.perform()
    c.close()
print(f"bytes={n} crc32={crc:08x}")
