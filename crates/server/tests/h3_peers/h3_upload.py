"""An HTTP/3 client (aioquic) that uploads one large request body made lazily, for the test that
`barrage serve --http3` receives a body in constant memory (crates/engine/tests/h3_memory.rs):

  h3_upload.py HOST PORT PATH BYTES

POSTs BYTES bytes (byte i is i % 251) to PATH in 64 KiB chunks, never more than 1 MiB queued in
aioquic's send buffer (it has no bound of its own), then prints "STATUS BODY-LENGTH SECONDS".
The certificate is not verified (the server's is self-signed). Exits 1 if anything fails.
"""

import asyncio
import ssl
import sys
import time

from aioquic.asyncio.client import connect
from aioquic.asyncio.protocol import QuicConnectionProtocol
from aioquic.h3.connection import H3_ALPN, H3Connection
from aioquic.h3.events import DataReceived, HeadersReceived
from aioquic.quic.configuration import QuicConfiguration

CHUNK = 64 * 1024
# 251 * 262 = 65,762 bytes: any 64 KiB window of the pattern, starting at i % 251, is a slice.
PATTERN = bytes(i % 251 for i in range(251 * 262 + 251))


class Client(QuicConnectionProtocol):
    def __init__(self, *a, **k):
        super().__init__(*a, **k)
        self.h3 = H3Connection(self._quic)
        self.status = 0
        self.body = 0
        self.done = asyncio.get_event_loop().create_future()

    def quic_event_received(self, event):
        for ev in self.h3.handle_event(event):
            if isinstance(ev, HeadersReceived):
                for k, v in ev.headers:
                    if k == b":status":
                        self.status = int(v)
            elif isinstance(ev, DataReceived):
                self.body += len(ev.data)
            else:
                continue
            if ev.stream_ended and not self.done.done():
                self.done.set_result(None)

    def queued(self, sid):
        s = self._quic._streams.get(sid)
        if s is None:
            return 0
        # Bytes written and not yet acknowledged (aioquic 1.x keeps them in one bytearray).
        return len(s.sender._buffer)

    async def upload(self, host, path, n):
        sid = self._quic.get_next_available_stream_id()
        self.h3.send_headers(
            sid,
            [
                (b":method", b"POST"),
                (b":scheme", b"https"),
                (b":authority", host.encode()),
                (b":path", path.encode()),
                (b"content-length", str(n).encode()),
            ],
        )
        at = 0
        while at < n:
            size = min(CHUNK, n - at)
            start = at % 251
            self.h3.send_data(sid, PATTERN[start : start + size], end_stream=at + size == n)
            at += size
            self.transmit()
            while self.queued(sid) > 1 << 20:
                await asyncio.sleep(0.001)
        await asyncio.wait_for(self.done, 600)


async def main():
    host, port, path, n = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
    cfg = QuicConfiguration(is_client=True, alpn_protocols=H3_ALPN)
    cfg.verify_mode = ssl.CERT_NONE
    # Loopback's MTU is 64 KiB: datagrams of 16 KiB take aioquic a tenth of the packets (and of
    # the Python per packet) that 1,200 bytes would; 1 GiB then goes in seconds, not a minute.
    cfg.max_datagram_size = 16384
    started = time.monotonic()
    async with connect(host, port, configuration=cfg, create_protocol=Client) as c:
        await c.upload(host, path, n)
        print(c.status, c.body, round(time.monotonic() - started, 1), flush=True)


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except Exception as e:  # noqa: BLE001
        print("error", repr(e), file=sys.stderr)
        sys.exit(1)
