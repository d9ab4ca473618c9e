"""50 GETs per iteration, repeated for a fixed time, one of six ways.

Usage: python keepalive.py URL SECONDS MODE CONCURRENCY
  URL is .../bytes/{size}: every odd request of an iteration adds ?chunked=1, and every body is
  checked against the server's pattern (byte i = i % 251), so a client that skipped chunked
  decoding would fail; or .../sleep/{ms} (the latency-bound variant): every body must be
  "slept {ms} ms\n". MODE: seq-close, seq-keepalive (requests), threads-close,
  threads-keepalive (ThreadPoolExecutor + requests), async-close, async-keepalive (aiohttp).
Prints "iterations=N requests=M bad=B seconds=S iterations_per_s=X requests_per_s=Y".
"""
import asyncio
import re
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

PER_ITERATION = 50


def expectation(url: str) -> tuple[bytes, bool]:
    """The body every response must have, and whether odd requests ask for chunked framing."""
    path = url.split("://", 1)[-1].partition("/")[2]
    if m := re.fullmatch(r"bytes/(\d+)", path):
        return bytes(i % 251 for i in range(int(m[1]))), True
    if m := re.fullmatch(r"sleep/(\d+)", path):
        return f"slept {int(m[1])} ms\n".encode(), False
    raise SystemExit(f"unsupported URL {url}: .../bytes/{{size}} or .../sleep/{{ms}}")


def targets(url: str) -> list[str]:
    chunk_odd = expectation(url)[1]
    return [url + ("?chunked=1" if chunk_odd and i % 2 else "") for i in range(PER_ITERATION)]


def run_sync(url, seconds, mode, conc, expected):
    import requests

    local = threading.local()

    def get(u: str) -> bool:
        if mode.endswith("keepalive"):
            if not hasattr(local, "session"):  # one Session (and connection) per thread
                local.session = requests.Session()
            r = local.session.get(u)
        else:
            r = requests.get(u, headers={"Connection": "close"})
        return r.status_code == 200 and r.content == expected

    pool = ThreadPoolExecutor(conc) if mode.startswith("threads") else None
    urls = targets(url)
    iterations = bad = 0
    start = time.monotonic()
    while time.monotonic() - start < seconds:
        oks = pool.map(get, urls) if pool else map(get, urls)
        bad += sum(1 for ok in oks if not ok)
        iterations += 1
    return iterations, bad, time.monotonic() - start


async def run_async(url, seconds, mode, conc, expected):
    import aiohttp

    connector = aiohttp.TCPConnector(limit=conc, force_close=mode == "async-close")
    sem = asyncio.Semaphore(conc)
    urls = targets(url)
    iterations = bad = 0
    async with aiohttp.ClientSession(connector=connector) as session:

        async def get(u: str) -> bool:
            async with sem, session.get(u) as r:
                return r.status == 200 and await r.read() == expected

        start = time.monotonic()
        while time.monotonic() - start < seconds:
            oks = await asyncio.gather(*(get(u) for u in urls))
            bad += sum(1 for ok in oks if not ok)
            iterations += 1
        return iterations, bad, time.monotonic() - start


def main() -> int:
    url, seconds, mode, conc = sys.argv[1], float(sys.argv[2]), sys.argv[3], int(sys.argv[4])
    expected = expectation(url)[0]
    if mode.startswith("async"):
        iterations, bad, elapsed = asyncio.run(run_async(url, seconds, mode, conc, expected))
    elif mode in ("seq-close", "seq-keepalive", "threads-close", "threads-keepalive"):
        iterations, bad, elapsed = run_sync(url, seconds, mode, conc, expected)
    else:
        print(f"unknown mode {mode}", file=sys.stderr)
        return 2
    n = iterations * PER_ITERATION
    print(
        f"iterations={iterations} requests={n} bad={bad} seconds={elapsed:.3f} "
        f"iterations_per_s={iterations / elapsed:.2f} requests_per_s={n / elapsed:.1f}"
    )
    return 0 if bad == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
