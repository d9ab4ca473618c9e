"""An echo server made with Python's `websockets` (an independent implementation), for the
wire codec's client role (crates/wire/tests/ws_python_server.rs). Prints its port, then serves
until killed. The message "close please" gets a close with 4002; "ping me" gets two pings of
its own (whose pongs the server's keepalive waits for) before the echo."""
import sys

from websockets.sync.server import serve


def handler(ws):
    for msg in ws:
        if msg == "close please":
            ws.close(4002, "as asked")
            return
        if msg == "ping me":
            for p in [b"one", b"two"]:
                if not ws.ping(p).wait(5):
                    ws.close(4003, "no pong")
                    return
        ws.send(msg)


with serve(handler, "127.0.0.1", 0, max_size=None, compression=None,
           ping_interval=None, close_timeout=5) as server:
    print(server.socket.getsockname()[1], flush=True)
    server.serve_forever()
