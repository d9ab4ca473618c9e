"""What both grpcio contenders answer, as barrage serve does (crates/server/src/grpc.rs): the
reply to an EchoRequest (Echo and Chat) and Stream's reply, with the message classes grpcio-tools
generates from docs/grpc/barrage.proto (barrage_pb2, made by ../../setup.sh)."""
import grpc

import barrage_pb2 as pb

# The largest reply payload made, as barrage serve's.
MAX_REPLY = 4 << 20


def pattern(n):
    """n bytes of barrage's pattern: byte i is i mod 251."""
    period = bytes(range(251))
    return (period * (n // 251 + 1))[:n]


def too_large(size):
    return f"size {size} is over the {MAX_REPLY} bytes a reply may have"


def echo(request):
    """Echo's and Chat's reply, or None when `size` asks for too much."""
    if request.size > MAX_REPLY:
        return None
    payload = pattern(request.size) if request.size > 0 else request.payload
    return pb.EchoReply(payload=payload, text=request.text)


def address(argv):
    if len(argv) != 2:
        raise SystemExit(f"usage: {argv[0]} HOST:PORT")
    return argv[1]


INVALID = grpc.StatusCode.INVALID_ARGUMENT
