"""Drives barrage serve's /ws/echo with Python's `websockets` (an independent client) and
prints what it saw, one JSON object per case, for crates/server/tests/ws_conformance.rs, which
holds the expected answers. Usage: echo_client.py ws://HOST:PORT (or wss://, certificate not
checked). Frames `websockets` will not send (bad ones) go through the connection's socket
after the handshake, masked as a client's are."""
import json
import os
import ssl
import sys
import time

from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

BASE = sys.argv[1]
CTX = None
if BASE.startswith("wss:"):
    CTX = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    CTX.check_hostname = False
    CTX.verify_mode = ssl.CERT_NONE
    # TLS 1.2: over TLS 1.3 the library's reader thread takes the server's session tickets
    # (sent after the handshake) while the main thread writes the upgrade request on the same
    # OpenSSL connection, and now and then the request never reaches the socket (the server's
    # TCP counters show only the handshake's bytes received, the client waits 10 s for a 101;
    # 3 of 900 upgrades with TLS 1.3, none of 900 with 1.2). barrage serve's TLS 1.3 is
    # tested with rustls clients (tls.rs).
    CTX.maximum_version = ssl.TLSVersion.TLSv1_2


def open_ws(path="/ws/echo", close_timeout=5):
    kw = dict(max_size=None, compression=None, proxy=None, ping_interval=None,
              open_timeout=10, close_timeout=close_timeout)
    if CTX:
        kw["ssl"] = CTX
    return connect(BASE + path, **kw)


def report(case, **kw):
    print(json.dumps({"case": case, **kw}), flush=True)


def masked(b0, payload, length=None):
    """A client frame by hand: first byte b0, the payload masked with a fixed key."""
    key = b"\x11\x22\x33\x44"
    n = len(payload) if length is None else length
    if n < 126:
        head = bytes([b0, 0x80 | n])
    elif n < 65536:
        head = bytes([b0, 0x80 | 126]) + n.to_bytes(2, "big")
    else:
        head = bytes([b0, 0x80 | 127]) + n.to_bytes(8, "big")
    return head + key + bytes(b ^ key[i % 4] for i, b in enumerate(payload))


def close_code(ws, send):
    """Does `send`, then reads until the connection closes: the code of the server's Close
    (-1 when it closed without one, None when it did not close)."""
    try:
        try:
            send()
        except ssl.SSLError:
            # Over TLS, a frame written by hand on the connection's socket races the
            # library's reader thread on one OpenSSL object, and the write fails now and then
            # on this side (SSLZeroReturnError) although it went out; the reader still has the
            # server's answer, which is what the case checks.
            pass
        for _ in range(10):
            ws.recv(timeout=10)
        return None
    except ConnectionClosed as e:
        return e.rcvd.code if e.rcvd is not None else -1
    except TimeoutError:
        return None


# Echo of every length form (7-bit, 16-bit, 64-bit), text and binary.
with open_ws() as ws:
    for size in [0, 125, 126, 65535, 65536, 1 << 20]:
        ws.send("x" * size)
        report("text", size=size, ok=ws.recv(timeout=30) == "x" * size)
        data = os.urandom(size)
        ws.send(data)
        report("binary", size=size, ok=ws.recv(timeout=30) == data)
    s = "κόσμε ✓ 😀 " * 3000
    ws.send(s)
    report("unicode", ok=ws.recv(timeout=10) == s)
    ws.send(["frag", "men", "ted"])
    report("fragmented text", ok=ws.recv(timeout=10) == "fragmented")
    ws.send([b"\x00" * 70000, b"\x01" * 3, b""])
    report("fragmented binary", ok=ws.recv(timeout=10) == b"\x00" * 70000 + b"\x01" * 3)
    # A ping between the fragments of a message.
    ws.socket.sendall(masked(0x01, b"in ") + masked(0x89, b"between") + masked(0x80, b"pieces"))
    report("ping between fragments", ok=ws.recv(timeout=10) == "in pieces")
    report("ping", ok=ws.ping(b"are you there").wait(10))
    report("ping empty", ok=ws.ping(b"").wait(10))
    ws.close(4000, "bye")
    rcvd = ws.protocol.close_rcvd
    report("close 4000", code=rcvd and rcvd.code)

with open_ws() as ws:
    ws.send("last")
    ws.recv(timeout=10)
    ws.close()
    rcvd = ws.protocol.close_rcvd
    report("close 1000", code=rcvd and rcvd.code)

# Frames the server must refuse, each failing the connection with its code.
bad = [
    ("invalid utf-8", lambda ws: ws.send(b"\xce\xba\xff", text=True)),
    ("invalid utf-8 in fragments",
     lambda ws: ws.socket.sendall(masked(0x01, b"\xce") + masked(0x80, b"\xba\xed\xa0\x80"))),
    ("invalid utf-8 in close reason",
     lambda ws: ws.socket.sendall(masked(0x88, b"\x03\xe8\xff"))),
    ("unmasked frame", lambda ws: ws.socket.sendall(b"\x81\x02hi")),
    ("reserved bits", lambda ws: ws.socket.sendall(masked(0xC1, b"x"))),
    ("reserved opcode 3", lambda ws: ws.socket.sendall(masked(0x83, b""))),
    ("reserved opcode 11", lambda ws: ws.socket.sendall(masked(0x8B, b""))),
    ("continuation first", lambda ws: ws.socket.sendall(masked(0x80, b"x"))),
    ("text inside a message",
     lambda ws: ws.socket.sendall(masked(0x01, b"a") + masked(0x81, b"b"))),
    ("ping of 126 bytes", lambda ws: ws.socket.sendall(masked(0x89, b"p" * 126))),
    ("fragmented ping", lambda ws: ws.socket.sendall(masked(0x09, b"p"))),
    ("close of one byte", lambda ws: ws.socket.sendall(masked(0x88, b"\x03"))),
    ("close code 1005", lambda ws: ws.socket.sendall(masked(0x88, b"\x03\xed"))),
    ("close code 1006", lambda ws: ws.socket.sendall(masked(0x88, b"\x03\xee"))),
    ("close code 1015", lambda ws: ws.socket.sendall(masked(0x88, b"\x03\xf7"))),
    ("close code 999", lambda ws: ws.socket.sendall(masked(0x88, b"\x03\xe7"))),
    ("close code 5000", lambda ws: ws.socket.sendall(masked(0x88, b"\x13\x88"))),
    ("too big", lambda ws: ws.send(b"\x00" * (3 << 20))),
    ("too big in fragments", lambda ws: ws.send([b"\x00" * (1 << 20)] * 3)),
]
for case, send in bad:
    with open_ws() as ws:
        report(case, code=close_code(ws, lambda: send(ws)))

# Close codes the server must accept (and echo).
for code in [1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1012, 3000, 3999, 4000, 4999]:
    with open_ws() as ws:
        ws.close(code, "ok")
        rcvd = ws.protocol.close_rcvd
        report("close accepted", sent=code, code=rcvd and rcvd.code)

# ?delay=MS: each echo comes at least that late, in order.
with open_ws("/ws/echo?delay=200") as ws:
    t0 = time.monotonic()
    for m in ["one", "two", "three"]:
        ws.send(m)
    got = [ws.recv(timeout=10) for _ in range(3)]
    report("delay", got=got, elapsed_ms=int((time.monotonic() - t0) * 1000))

# Message-level faults.
with open_ws("/ws/echo?fault=close&code=4001&after=1") as ws:
    ws.send("first")
    first = ws.recv(timeout=10)
    report("fault close", first=first, code=close_code(ws, lambda: ws.send("second")))
with open_ws("/ws/echo?fault=drop") as ws:
    report("fault drop", code=close_code(ws, lambda: ws.send("x")))
with open_ws("/ws/echo?fault=reset") as ws:
    report("fault reset", code=close_code(ws, lambda: ws.send("x")))
with open_ws("/ws/echo?fault=stall", close_timeout=1) as ws:
    ws.send("x")
    try:
        ws.recv(timeout=0.5)
        report("fault stall", stalled=False)
    except TimeoutError:
        report("fault stall", stalled=True)
report("done")
