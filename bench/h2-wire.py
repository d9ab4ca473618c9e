#!/usr/bin/env python3
"""bench/h2-wire.py: what an HTTP/2 load tool sends a server, per request, counted on the wire.

A relay between the tool and the server (127.0.0.1 only) that parses both directions' HTTP/2
frames and counts them by type and bytes, plus the reads the relay made of each side (how the tool's
writes arrive in segments: more, smaller reads cost the server more). Run by
bench/h2-wire.sh for each tool against the same nginx; prints one JSON line per run.

Usage: h2-wire.py LISTEN_PORT UPSTREAM_PORT OUT_JSON   (stops on SIGTERM, writes OUT_JSON)
"""
import json
import selectors
import signal
import socket
import sys

NAMES = {0: "DATA", 1: "HEADERS", 2: "PRIORITY", 3: "RST_STREAM", 4: "SETTINGS", 5: "PUSH_PROMISE",
         6: "PING", 7: "GOAWAY", 8: "WINDOW_UPDATE", 9: "CONTINUATION"}
PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"


class Side:
    """One connection's one direction: a frame parser feeding shared counters."""

    def __init__(self, client, totals):
        self.buf = b""
        self.skip_preface = client
        self.t = totals

    def feed(self, data):
        t = self.t
        t["reads"] += 1
        t["read_bytes"] += len(data)
        self.buf += data
        if self.skip_preface:
            if len(self.buf) < len(PREFACE):
                return
            self.buf = self.buf[len(PREFACE):]
            self.skip_preface = False
        at = 0
        while len(self.buf) - at >= 9:
            n = int.from_bytes(self.buf[at:at + 3], "big")
            if len(self.buf) - at < 9 + n:
                break
            kind = NAMES.get(self.buf[at + 3], str(self.buf[at + 3]))
            t["frames"][kind] = t["frames"].get(kind, 0) + 1
            t["bytes"][kind] = t["bytes"].get(kind, 0) + 9 + n
            at += 9 + n
        self.buf = self.buf[at:]


def totals():
    return {"frames": {}, "bytes": {}, "reads": 0, "read_bytes": 0}


def main():
    listen_port, upstream_port, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    lsock = socket.socket()
    lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    lsock.bind(("127.0.0.1", listen_port))
    lsock.listen(1024)
    lsock.setblocking(False)
    sel = selectors.DefaultSelector()
    sel.register(lsock, selectors.EVENT_READ, None)
    up, down = totals(), totals()  # tool -> server, server -> tool
    conns = [0]
    stop = [False]
    signal.signal(signal.SIGTERM, lambda *_: stop.__setitem__(0, True))
    while not stop[0]:
        for key, _ in sel.select(timeout=0.2):
            if key.data is None:
                c, _ = lsock.accept()
                s = socket.create_connection(("127.0.0.1", upstream_port))
                c.setblocking(False)
                s.setblocking(False)
                c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                conns[0] += 1
                sel.register(c, selectors.EVENT_READ, (s, Side(True, up)))
                sel.register(s, selectors.EVENT_READ, (c, Side(False, down)))
                continue
            peer, side = key.data
            try:
                data = key.fileobj.recv(1 << 20)
            except OSError:
                data = b""
            if not data:
                for f in (key.fileobj, peer):
                    try:
                        sel.unregister(f)
                    except (KeyError, ValueError):
                        pass
                    f.close()
                continue
            side.feed(data)
            peer.setblocking(True)
            peer.sendall(data)
            peer.setblocking(False)
    json.dump({"connections": conns[0], "to_server": up, "to_client": down}, open(out, "w"))


if __name__ == "__main__":
    main()
