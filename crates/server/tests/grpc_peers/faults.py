"""gRPC's own Python client (grpcio) asking `barrage serve` for faults by metadata
(`x-barrage-fault`), one JSON line per case: the status code and details the client saw, the
reply messages in hex, and the call's wall time in ms (monotonic clock).
Usage: faults.py HOST:PORT"""
import json
import sys
import time

import grpc

FAULT = "x-barrage-fault"


def report(case, code, details, replies, started):
    ms = (time.monotonic() - started) * 1000
    print(json.dumps({"case": case, "code": code, "details": details or "",
                      "replies": [r.hex() for r in replies], "ms": ms}), flush=True)


def varint(tag, n):
    out = bytes([tag << 3])
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])


def frame(tag, payload):
    return bytes([tag << 3 | 2, len(payload)]) + payload


def main():
    target = sys.argv[1]
    raw = dict(request_serializer=None, response_deserializer=None)
    with grpc.insecure_channel(target) as ch:
        echo = ch.unary_unary("/barrage.test.v1.Test/Echo", **raw)
        stream = ch.unary_stream("/barrage.test.v1.Test/Stream", **raw)
        chat = ch.stream_stream("/barrage.test.v1.Test/Chat", **raw)
        hello = frame(1, b"hello")

        def unary(case, fault, timeout=10):
            started = time.monotonic()
            try:
                reply, call = echo.with_call(hello, timeout=timeout,
                                             metadata=((FAULT, fault),) if fault else None)
                report(case, call.code().value[0], call.details(),
                       [] if reply is None else [reply], started)
            except grpc.RpcError as e:
                report(case, e.code().value[0], e.details(), [], started)

        def streamed(case, call_of, fault):
            started = time.monotonic()
            it = call_of(((FAULT, fault),))
            replies = []
            try:
                for r in it:
                    replies.append(r)
            except grpc.RpcError:
                pass
            report(case, it.code().value[0], it.details(), replies, started)

        unary("status", "status=14&message=try later")
        unary("status ok", "status=0")
        unary("trailers-only", "trailers-only=7")
        unary("delay", "delay=300")
        unary("reset", "reset")
        unary("stall", "stall", timeout=0.5)
        unary("bad", "status=99")
        streamed("stream delay",
                 lambda md: stream(varint(1, 3) + varint(2, 2), timeout=10, metadata=md),
                 "delay=200")
        streamed("chat status",
                 lambda md: chat(iter([frame(1, bytes([i])) for i in range(3)]),
                                 timeout=10, metadata=md),
                 "status=8&message=slow down")
        # The connection serves on after the reset and the stall.
        unary("after", None)
    print(json.dumps({"case": "done"}), flush=True)


if __name__ == "__main__":
    main()
