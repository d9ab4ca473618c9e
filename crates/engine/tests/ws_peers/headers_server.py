"""A WebSocket server made with Python's `websockets` (an independent implementation), for
crates/engine/tests/ws_headers.rs: answers every message with what it saw of the upgrade
request, `Host|Authorization|X-Trace|subprotocol|hosts`, so the load's --expect-body checks
that the client's headers arrived. Offers the subprotocol "chat" (chosen when the client
offers it). Prints its port, then serves until killed."""
from websockets.exceptions import ConnectionClosed
from websockets.sync.server import serve


def choose(ws, offered):
    """"chat" when offered, else none (websockets refuses a client offering none otherwise)."""
    return "chat" if "chat" in offered else None


def handler(ws):
    h = ws.request.headers
    seen = "|".join([
        h.get("Host", "-"),
        h.get("Authorization", "-"),
        h.get("X-Trace", "-"),
        ws.subprotocol or "-",
        str(len(h.get_all("Host"))),
    ])
    try:
        for _ in ws:
            ws.send(seen)
    except ConnectionClosed:
        # The load ends its connections with the run, without a close handshake.
        pass


with serve(handler, "127.0.0.1", 0, compression=None, select_subprotocol=choose,
           ping_interval=None, close_timeout=5) as server:
    print(server.socket.getsockname()[1], flush=True)
    server.serve_forever()
