"""An independent HTTP/3 client (aioquic) for barrage serve's tests: one connection, the requests
given as arguments, one after another, each printed as one line on stdout:

    STATUS LENGTH SHA256-OF-BODY

Arguments: HOST PORT then requests, each `METHOD PATH` or `METHOD PATH BODYSIZE` (a body of
BODYSIZE bytes, byte i being i % 251). The certificate is not verified (the server's is
self-signed). Exits 1 if the connection fails.
"""

import asyncio
import hashlib
import sys

from aioquic.asyncio.client import connect
from aioquic.asyncio.protocol import QuicConnectionProtocol
from aioquic.h3.connection import H3_ALPN, H3Connection
from aioquic.h3.events import DataReceived, HeadersReceived
from aioquic.quic.configuration import QuicConfiguration
import ssl


class Client(QuicConnectionProtocol):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.h3 = H3Connection(self._quic)
        self.waiting = {}

    def quic_event_received(self, event):
        for ev in self.h3.handle_event(event):
            if isinstance(ev, (HeadersReceived, DataReceived)) and ev.stream_id in self.waiting:
                st = self.waiting[ev.stream_id]
                if isinstance(ev, HeadersReceived):
                    for k, v in ev.headers:
                        if k == b":status":
                            st["status"] = int(v)
                else:
                    st["body"] += ev.data
                if ev.stream_ended:
                    st["done"].set_result(None)

    async def request(self, host, method, path, body):
        sid = self._quic.get_next_available_stream_id()
        fut = asyncio.get_event_loop().create_future()
        self.waiting[sid] = {"status": 0, "body": b"", "done": fut}
        headers = [
            (b":method", method.encode()),
            (b":scheme", b"https"),
            (b":authority", host.encode()),
            (b":path", path.encode()),
        ]
        if body is not None:
            headers.append((b"content-length", str(len(body)).encode()))
        self.h3.send_headers(sid, headers, end_stream=body is None)
        if body is not None:
            self.h3.send_data(sid, body, end_stream=True)
        self.transmit()
        await asyncio.wait_for(fut, 30)
        st = self.waiting.pop(sid)
        return st["status"], st["body"]


async def main():
    host, port = sys.argv[1], int(sys.argv[2])
    cfg = QuicConfiguration(is_client=True, alpn_protocols=H3_ALPN)
    cfg.verify_mode = ssl.CERT_NONE
    async with connect(host, port, configuration=cfg, create_protocol=Client) as c:
        for spec in sys.argv[3:]:
            parts = spec.split(" ")
            body = None
            if len(parts) == 3:
                body = bytes(i % 251 for i in range(int(parts[2])))
            status, got = await c.request(host, parts[0], parts[1], body)
            print(status, len(got), hashlib.sha256(got).hexdigest(), flush=True)


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except Exception as e:  # noqa: BLE001
        print("error", repr(e), file=sys.stderr)
        sys.exit(1)
