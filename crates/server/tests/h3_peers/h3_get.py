"""An independent HTTP/3 client (aioquic) for barrage serve's tests: one connection, the requests
given as arguments, one after another, each printed as one line on stdout:

    STATUS LENGTH SHA256-OF-BODY

Arguments: HOST PORT then requests, each `METHOD PATH` or `METHOD PATH BODYSIZE` (a body of
BODYSIZE bytes, byte i being i % 251) or `METHOD PATH =TEXT` (the body TEXT). H3_HEADER="name:
value" adds a header field to every request. The certificate is not verified (the server's is
self-signed). Exits 1 if the connection fails.

A request that gets no response prints instead `reset CODE` (the server reset its stream),
`closed CODE` (the connection ended; the requests after it are not sent) or `timeout` (nothing
within H3_TIMEOUT seconds, 30 by default). With H3_BODIES=DIR, each response's body is also
written to DIR/N (N counting the requests from 0).
"""

import asyncio
import hashlib
import sys

from aioquic.asyncio.client import connect
from aioquic.asyncio.protocol import QuicConnectionProtocol
from aioquic.h3.connection import H3_ALPN, H3Connection
from aioquic.h3.events import DataReceived, HeadersReceived
from aioquic.quic.configuration import QuicConfiguration
from aioquic.quic.events import ConnectionTerminated, StreamReset
import os
import ssl

TIMEOUT = float(os.environ.get("H3_TIMEOUT", "30"))
BODIES = os.environ.get("H3_BODIES")


class Client(QuicConnectionProtocol):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.h3 = H3Connection(self._quic)
        self.waiting = {}

    def quic_event_received(self, event):
        if isinstance(event, StreamReset) and event.stream_id in self.waiting:
            st = self.waiting[event.stream_id]
            if not st["done"].done():
                st["done"].set_result(("reset", event.error_code))
        if isinstance(event, ConnectionTerminated):
            for st in self.waiting.values():
                if not st["done"].done():
                    st["done"].set_result(("closed", event.error_code))
        for ev in self.h3.handle_event(event):
            if isinstance(ev, (HeadersReceived, DataReceived)) and ev.stream_id in self.waiting:
                st = self.waiting[ev.stream_id]
                if isinstance(ev, HeadersReceived):
                    for k, v in ev.headers:
                        if k == b":status":
                            st["status"] = int(v)
                else:
                    st["body"] += ev.data
                if ev.stream_ended and not st["done"].done():
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
        if os.environ.get("H3_HEADER"):
            name, value = os.environ["H3_HEADER"].split(":", 1)
            headers.append((name.strip().encode(), value.strip().encode()))
        if body is not None:
            headers.append((b"content-length", str(len(body)).encode()))
        self.h3.send_headers(sid, headers, end_stream=body is None)
        if body is not None:
            self.h3.send_data(sid, body, end_stream=True)
        self.transmit()
        try:
            end = await asyncio.wait_for(fut, TIMEOUT)
        except asyncio.TimeoutError:
            end = ("timeout", None)
        st = self.waiting.pop(sid)
        return end, st["status"], st["body"]


async def main():
    host, port = sys.argv[1], int(sys.argv[2])
    cfg = QuicConfiguration(is_client=True, alpn_protocols=H3_ALPN)
    cfg.verify_mode = ssl.CERT_NONE
    async with connect(host, port, configuration=cfg, create_protocol=Client) as c:
        for n, spec in enumerate(sys.argv[3:]):
            parts = spec.split(" ")
            body = None
            if len(parts) == 3 and parts[2].startswith("="):
                body = parts[2][1:].encode()
            elif len(parts) == 3:
                body = bytes(i % 251 for i in range(int(parts[2])))
            end, status, got = await c.request(host, parts[0], parts[1], body)
            if end is None:
                if BODIES:
                    with open(os.path.join(BODIES, str(n)), "wb") as f:
                        f.write(got)
                print(status, len(got), hashlib.sha256(got).hexdigest(), flush=True)
            elif end[0] == "timeout":
                print("timeout", flush=True)
            else:
                print(end[0], end[1], flush=True)
                if end[0] == "closed":
                    break


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except Exception as e:  # noqa: BLE001
        print("error", repr(e), file=sys.stderr)
        sys.exit(1)
