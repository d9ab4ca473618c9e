"""Ping-pong ASGI app on Starlette, served by uvicorn: POST / with body "ping" answers "pong",
anything else 400."""
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route


async def ping(request: Request) -> PlainTextResponse:
    if await request.body() != b"ping":
        return PlainTextResponse("bad request", status_code=400)
    return PlainTextResponse("pong")


app = Starlette(routes=[Route("/", ping, methods=["POST"])])
