"""N concurrent GETs with Python threads (urllib.request, one thread per request).

Usage: python3 fanout_threads.py URL N   Prints "fanout_s=<seconds>" (the fan-out timed in here,
from the first thread started to the last joined, without Python's start-up), then
"ok=<200 responses> crc32=<distinct body CRC-32s>".
"""
import sys
import threading
import time
import urllib.request
import zlib


def main() -> int:
    url, n = sys.argv[1], int(sys.argv[2])
    results = [None] * n

    def fetch(i: int) -> None:
        with urllib.request.urlopen(url) as r:
            results[i] = (r.status, r.read())

    start = time.monotonic()
    threads = [threading.Thread(target=fetch, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    fanout_s = time.monotonic() - start
    done = [r for r in results if r is not None]
    ok = sum(1 for status, _ in done if status == 200)
    crcs = sorted({f"{zlib.crc32(body):08x}" for _, body in done})
    print(f"fanout_s={fanout_s:.6f}")
    print(f"ok={ok} crc32={','.join(crcs)}")
    return 0 if ok == n else 1


if __name__ == "__main__":
    sys.exit(main())
