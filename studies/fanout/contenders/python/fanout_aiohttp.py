"""N concurrent GETs with asyncio + aiohttp: one task per request, one thread.

Usage: python3 fanout_aiohttp.py URL N   Prints "fanout_s=<seconds>" (the fan-out timed in here,
from the session opened to the last response read, without Python's start-up), then
"ok=<200 responses> crc32=<distinct body CRC-32s>".
"""
import asyncio
import sys
import time
import zlib

import aiohttp


async def fetch(session: aiohttp.ClientSession, url: str) -> tuple[int, bytes]:
    async with session.get(url) as r:
        return r.status, await r.read()


async def main() -> int:
    url, n = sys.argv[1], int(sys.argv[2])
    start = time.monotonic()
    # limit=0: no cap on connections, so all N run at once (aiohttp's default caps at 100).
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:
        results = await asyncio.gather(*(fetch(session, url) for _ in range(n)))
    fanout_s = time.monotonic() - start
    ok = sum(1 for status, _ in results if status == 200)
    crcs = sorted({f"{zlib.crc32(body):08x}" for _, body in results})
    print(f"fanout_s={fanout_s:.6f}")
    print(f"ok={ok} crc32={','.join(crcs)}")
    return 0 if ok == n else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
