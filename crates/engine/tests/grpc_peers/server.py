"""A gRPC server in grpcio, gRPC's own Python implementation, for `barrage load --grpc`: the
methods of docs/grpc/barrage.proto with raw protobuf bytes (no generated code), counting the
calls it answers. Prints `port=N` once serving; on stdin's end (or SIGTERM) prints
`calls=N messages=M` (request messages read) and exits. Usage: server.py"""
import sys
import threading
from concurrent import futures

import grpc

lock = threading.Lock()
calls = 0
messages = 0


def count(n_messages):
    global calls, messages
    with lock:
        calls += 1
        messages += n_messages


def echo(request, context):
    count(1)
    return request  # EchoRequest's payload (1) and text (3): the reply's fields 1 and 3 too


def stream(request, context):
    count(1)
    # StreamRequest { count = 1 (varint) }: that many empty EchoReply messages.
    n = 0
    if request[:1] == b"\x08":
        shift, i = 0, 1
        while i < len(request):
            b = request[i]
            n |= (b & 0x7F) << shift
            shift += 7
            i += 1
            if not b & 0x80:
                break
    for _ in range(n):
        yield b""


def total(request_iterator, context):
    n = sum(1 for _ in request_iterator)
    count(n)
    return bytes([0x08, n]) if n < 128 else b""


def chat(request_iterator, context):
    # Each EchoRequest back as it comes (the reply's bytes are the request's: barrage counts
    # the messages).
    n = 0
    for request in request_iterator:
        n += 1
        yield request
    count(n)


def unavailable(request, context):
    count(1)
    context.abort(grpc.StatusCode.UNAVAILABLE, "asked to fail")


def main():
    raw = dict(request_deserializer=None, response_serializer=None)
    handler = grpc.method_handlers_generic_handler("barrage.test.v1.Test", {
        "Echo": grpc.unary_unary_rpc_method_handler(echo, **raw),
        "Stream": grpc.unary_stream_rpc_method_handler(stream, **raw),
        "Sum": grpc.stream_unary_rpc_method_handler(total, **raw),
        "Chat": grpc.stream_stream_rpc_method_handler(chat, **raw),
    })
    failing = grpc.method_handlers_generic_handler("barrage.test.v1.Failing", {
        "Echo": grpc.unary_unary_rpc_method_handler(unavailable, **raw),
    })
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    server.add_generic_rpc_handlers((handler, failing))
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    print(f"port={port}", flush=True)
    sys.stdin.read()
    server.stop(0)
    print(f"calls={calls} messages={messages}", flush=True)


if __name__ == "__main__":
    main()
