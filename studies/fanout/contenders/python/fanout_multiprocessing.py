"""N concurrent GETs with multiprocessing: a Pool of N worker processes, one request each.

Usage: python3 fanout_multiprocessing.py URL N   Prints "fanout_s=<seconds>" (the fan-out timed in
here, from the pool's creation to its workers' end, without Python's start-up), then
"ok=<200 responses> crc32=<distinct body CRC-32s>".
"""
import multiprocessing
import sys
import time
import urllib.request
import zlib


def fetch(url: str) -> tuple[int, str]:
    with urllib.request.urlopen(url) as r:
        return r.status, f"{zlib.crc32(r.read()):08x}"


def main() -> int:
    url, n = sys.argv[1], int(sys.argv[2])
    start = time.monotonic()
    # fork (Linux default): the workers are copies of this process, as in PHP's pcntl_fork.
    with multiprocessing.Pool(processes=n) as pool:
        results = pool.map(fetch, [url] * n, chunksize=1)
    fanout_s = time.monotonic() - start
    ok = sum(1 for status, _ in results if status == 200)
    crcs = sorted({crc for _, crc in results})
    print(f"fanout_s={fanout_s:.6f}")
    print(f"ok={ok} crc32={','.join(crcs)}")
    return 0 if ok == n else 1


if __name__ == "__main__":
    sys.exit(main())
