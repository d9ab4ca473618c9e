"""gRPC's own Python client (grpcio) against `barrage serve`: each call of docs/grpc/barrage.proto
and the health service, with raw protobuf bytes (no generated code), one JSON line per case
with the status code, the details and the reply messages in hex. Usage: client.py HOST:PORT"""
import json
import sys

import grpc


def report(case, code, details="", replies=()):
    print(json.dumps({"case": case, "code": code, "details": details,
                      "replies": [r.hex() for r in replies]}), flush=True)


def frame(tag, payload):
    """A length-delimited protobuf field (payloads under 128 bytes)."""
    return bytes([tag << 3 | 2, len(payload)]) + payload


def varint(tag, n):
    out = bytes([tag << 3])
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])


def main():
    target = sys.argv[1]
    raw = dict(request_serializer=None, response_deserializer=None)
    with grpc.insecure_channel(target) as ch:
        echo = ch.unary_unary("/barrage.test.v1.Test/Echo", **raw)
        reply, call = echo.with_call(frame(1, b"hello") + frame(3, b"t"), timeout=10)
        report("echo", call.code().value[0], call.details() or "", [reply])

        reply = echo(varint(2, 1000), timeout=10)
        report("echo size", 0, "", [reply])

        stream = ch.unary_stream("/barrage.test.v1.Test/Stream", **raw)
        it = stream(varint(1, 5) + varint(2, 3), timeout=10)
        replies = list(it)
        report("stream", it.code().value[0], it.details() or "", replies)

        total = ch.stream_unary("/barrage.test.v1.Test/Sum", **raw)
        reply = total(iter([varint(1, n) for n in range(1, 101)]), timeout=10)
        report("sum", 0, "", [reply])

        chat = ch.stream_stream("/barrage.test.v1.Test/Chat", **raw)
        it = chat(iter([frame(1, bytes([i])) for i in range(10)]), timeout=10)
        replies = list(it)
        report("chat", it.code().value[0], it.details() or "", replies)

        health = ch.unary_unary("/grpc.health.v1.Health/Check", **raw)
        reply = health(b"", timeout=10)
        report("health", 0, "", [reply])

        for case, path, body in [
            ("unimplemented", "/barrage.test.v1.Test/Nope", b""),
            ("unknown service", "/grpc.health.v1.Health/Check", frame(1, b"nope")),
            ("too large", "/barrage.test.v1.Test/Echo", varint(2, 5 << 20)),
        ]:
            try:
                ch.unary_unary(path, **raw)(body, timeout=10)
                report(case, 0)
            except grpc.RpcError as e:
                report(case, e.code().value[0], e.details() or "")
    report("done", 0)


if __name__ == "__main__":
    main()
