"""Ping-pong server on aiohttp: POST / with body "ping" answers "pong", anything else 400."""
import sys

from aiohttp import web


async def ping(request: web.Request) -> web.Response:
    if await request.read() != b"ping":
        return web.Response(status=400, text="bad request")
    return web.Response(text="pong")


def main() -> None:
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 8080
    app = web.Application()
    app.router.add_post("/", ping)
    # No access log: one log line per request would measure the logger. Backlog 1024 (aiohttp's
    # default is 128): the study opens up to 1000 connections at once.
    web.run_app(app, host="127.0.0.1", port=port, access_log=None, print=None, backlog=1024)


if __name__ == "__main__":
    main()
