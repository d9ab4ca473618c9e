"""GET URL with aiohttp, reading resp.content in 1 MiB chunks, write to OUT (or /dev/null), print bytes and CRC-32."""
import asyncio
import sys
import zlib

import aiohttp


async def main(url: str, dest: str) -> None:
    n, crc = 0, 0
    timeout = aiohttp.ClientTimeout(total=None, sock_read=60)
    async with aiohttp.ClientSession(timeout=timeout) as session:
        async with session.get(url) as r:
            r.raise_for_status()
            # A blocking write is what most scripts do; the disk is the page cache here.
            with open(dest, "wb") as f:
                async for chunk in r.content.iter_chunked(1 << 20):
                    f.write(chunk)
                    crc = zlib.crc32(chunk, crc)
                    n += len(chunk)
    print(f"bytes={n} crc32={crc:08x}")


url, out, sink = sys.argv[1], sys.argv[2], sys.argv[3]
asyncio.run(main(url, out if sink == "file" else "/dev/null"))
