"""The other side of crates/wire/tests/h3_codec.rs: aioquic's QPACK (pylsqpack, ls-qpack's
bindings) and its HTTP/3 frame writer, speaking a line protocol of hex on stdin and stdout.

  encode CAPACITY BLOCKED  encodes SECTIONS with a dynamic table, printing for each
                           "section STREAM ENCODER-STREAM-HEX BLOCK-HEX", its fields as
                           "field NAME-HEX VALUE-HEX" and "end"; then reads one line, the
                           decoder-stream bytes of the Rust decoder (after "done"), feeds them to the encoder
                           (which raises on a wrong instruction) and prints "ok".
  decode CAPACITY BLOCKED  reads "section STREAM BLOCK-HEX" lines until EOF and prints each
                           section's decoded fields as above, then "end".
  frames                   prints one line: a frame sequence aioquic wrote.

Empty hex is written "-".
"""

import sys

import pylsqpack
from aioquic.buffer import encode_uint_var
from aioquic.h3.connection import FrameType, encode_frame, encode_settings


def hx(b):
    return b.hex() or "-"


def unhx(s):
    return b"" if s == "-" else bytes.fromhex(s)


def sections():
    out = []
    for i in range(40):
        out.append(
            [
                (b":status", b"200" if i % 5 else b"404"),
                (b"server", b"nginx/1.25.3"),
                (b"date", b"Thu, 26 Nov 2026 12:00:%02d GMT" % (i % 60)),
                (b"content-type", b"application/json"),
                (b"x-request-id", b"%016x" % (i * 7919)),
                (b"cache-control", b"private, max-age=60"),
                (b"set-cookie", b"session=" + b"abc" * 20 + b"%d" % (i % 3)),
                (b"x-long", b"y" * (100 + i % 4)),
                (b"x-binary", bytes([0, 255, i % 256, 10])),
            ]
        )
        if i % 7 == 0:
            out.append(
                [
                    (b":method", b"GET"),
                    (b":scheme", b"https"),
                    (b":authority", b"example.com"),
                    (b":path", b"/item/%d" % i),
                    (b"user-agent", b"barrage"),
                ]
            )
    return out


def encode(capacity, blocked):
    enc = pylsqpack.Encoder()
    settings = enc.apply_settings(capacity, blocked)
    print("section", "-", hx(settings), "-")
    print("end")
    for i, headers in enumerate(sections()):
        stream = 4 * i
        es, block = enc.encode(stream, headers)
        print("section", stream, hx(es), hx(block))
        for n, v in headers:
            print("field", hx(n), hx(v))
        print("end")
    print("done")
    sys.stdout.flush()
    enc.feed_decoder(unhx(sys.stdin.readline().strip()))
    print("ok")


def decode(capacity, blocked):
    dec = pylsqpack.Decoder(capacity, blocked)
    for line in sys.stdin:
        _, stream, block = line.split()
        _, headers = dec.feed_header(int(stream), unhx(block))
        for n, v in headers:
            print("field", hx(n), hx(v))
        print("end")


def frames():
    b = encode_frame(FrameType.SETTINGS, encode_settings({0x1: 4096, 0x6: 16384, 0x7: 16, 0x21: 3}))
    b += encode_frame(FrameType.HEADERS, bytes.fromhex("0000d1c1"))
    b += encode_frame(FrameType.DATA, b"hello" * 100)
    b += encode_frame(FrameType.DATA, b"")
    b += encode_frame(FrameType.MAX_PUSH_ID, encode_uint_var(16384))
    b += encode_frame(FrameType.GOAWAY, encode_uint_var(1 << 40))
    print(hx(b))


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "encode":
        encode(int(sys.argv[2]), int(sys.argv[3]))
    elif mode == "decode":
        decode(int(sys.argv[2]), int(sys.argv[3]))
    else:
        frames()
