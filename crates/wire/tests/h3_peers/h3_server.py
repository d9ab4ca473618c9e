"""An independent HTTP/3 server for crates/wire/tests/h3_client.rs: aioquic's QUIC and HTTP/3
(its QPACK is pylsqpack, ls-qpack's bindings, which uses the dynamic table the client allows).

  h3_server.py (--cert CERT --key KEY | --self-signed) [--body-size N] [--die-after N]

Binds UDP 127.0.0.1 port 0 and prints "port P". Answers every request (GET, POST, any path)
once its stream has ended, with status 200, a content-length and a body of N bytes (byte i is
i % 251), and prints "answered COUNT BODY-BYTES-RECEIVED" after each answer. With --die-after,
the process exits at once after that many answers (a server dying mid-run). --self-signed makes
a certificate for localhost itself (with `cryptography`, which aioquic depends on), for clients
that accept any (-k).
"""

import argparse
import asyncio
import datetime
import os
import sys
import tempfile

from aioquic.asyncio import QuicConnectionProtocol, serve
from aioquic.h3.connection import H3_ALPN, H3Connection
from aioquic.h3.events import DataReceived, HeadersReceived
from aioquic.quic.configuration import QuicConfiguration
from aioquic.quic.events import ProtocolNegotiated

args = None
body = b""
answered = 0


class Handler(QuicConnectionProtocol):
    def __init__(self, *a, **k):
        super().__init__(*a, **k)
        self.h3 = None
        self.received = {}

    def quic_event_received(self, event):
        if isinstance(event, ProtocolNegotiated):
            self.h3 = H3Connection(self._quic)
        if self.h3 is None:
            return
        for ev in self.h3.handle_event(event):
            if isinstance(ev, HeadersReceived):
                self.received.setdefault(ev.stream_id, 0)
            elif isinstance(ev, DataReceived):
                self.received[ev.stream_id] = self.received.get(ev.stream_id, 0) + len(ev.data)
            else:
                continue
            if ev.stream_ended:
                self.answer(ev.stream_id)

    def answer(self, stream_id):
        global answered
        got = self.received.pop(stream_id, 0)
        self.h3.send_headers(
            stream_id,
            [
                (b":status", b"200"),
                (b"content-length", str(len(body)).encode()),
                (b"x-served-by", b"aioquic-h3-test-server"),
            ],
        )
        self.h3.send_data(stream_id, body, end_stream=True)
        self.transmit()
        answered += 1
        print(f"answered {answered} {got}", flush=True)
        if args.die_after and answered >= args.die_after:
            os._exit(0)


def self_signed(config):
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=30))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost")]), critical=False)
        .sign(key, hashes.SHA256())
    )
    with tempfile.TemporaryDirectory() as d:
        c, k = os.path.join(d, "cert.pem"), os.path.join(d, "key.pem")
        with open(c, "wb") as f:
            f.write(cert.public_bytes(serialization.Encoding.PEM))
        with open(k, "wb") as f:
            f.write(
                key.private_bytes(
                    serialization.Encoding.PEM,
                    serialization.PrivateFormat.PKCS8,
                    serialization.NoEncryption(),
                )
            )
        config.load_cert_chain(c, k)


async def main():
    config = QuicConfiguration(is_client=False, alpn_protocols=H3_ALPN)
    if args.self_signed:
        self_signed(config)
    else:
        config.load_cert_chain(args.cert, args.key)
    server = await serve("127.0.0.1", 0, configuration=config, create_protocol=Handler)
    port = server._transport.get_extra_info("sockname")[1]
    print(f"port {port}", flush=True)
    await asyncio.Future()


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--cert")
    p.add_argument("--key")
    p.add_argument("--self-signed", action="store_true")
    p.add_argument("--body-size", type=int, default=1000)
    p.add_argument("--die-after", type=int, default=0)
    args = p.parse_args()
    body = bytes(i % 251 for i in range(args.body_size))
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        sys.exit(0)
