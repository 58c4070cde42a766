"""Routes for the libcurl transport's tests: a streamed-upload digest and a compressed body."""

import gzip
import hashlib
import time

from test_server import HITS, HITS_LOCK, route


def body_pieces(exchange):
    """The request body a piece at a time, whether it came with a Content-Length or chunked."""
    if "chunked" not in exchange.headers.get("Transfer-Encoding", "").lower():
        body = exchange.read_body()
        if body:
            yield body
        return
    while True:
        size = int(exchange.rfile.readline().split(b";")[0].strip(), 16)
        if size == 0:
            while exchange.rfile.readline() not in (b"\r\n", b"\n", b""):
                pass
            return
        yield exchange.rfile.read(size)
        exchange.rfile.readline()


@route(r"/curl/upload-digest/[^/]+", methods=["POST", "PUT"])
def upload_digest(exchange, match):
    """The size and SHA-256 of the request body, and how it was framed."""
    digest = hashlib.sha256()
    size = 0
    for piece in body_pieces(exchange):
        size += len(piece)
        digest.update(piece)
    exchange.send_json(200, {
        "size": size,
        "sha256": digest.hexdigest(),
        "contentLength": exchange.headers.get("Content-Length"),
        "transferEncoding": exchange.headers.get("Transfer-Encoding"),
        "contentType": exchange.headers.get("Content-Type"),
    })


@route(r"/curl/gzip")
def gzipped(exchange, match):
    """A text body, gzip-compressed when the request accepts gzip."""
    text = ("compressed " * 200).encode()
    if "gzip" in exchange.headers.get("Accept-Encoding", ""):
        return exchange.send(200, gzip.compress(text), content_type="text/plain",
                             headers={"Content-Encoding": "gzip"})
    exchange.send(200, text, content_type="text/plain")


@route(r"/curl/drip/(\d+)")
def drip(exchange, match):
    """?count= chunked pieces of the given size, byte i of piece i, written one after the other."""
    size = int(match.group(1))
    count = int(exchange.query.get("count", ["4"])[0])
    exchange.send_response(200)
    exchange.send_header("Content-Type", "application/octet-stream")
    exchange.send_header("Transfer-Encoding", "chunked")
    exchange.end_headers()
    for index in range(count):
        piece = bytes([index % 256]) * size
        exchange.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
        exchange.wfile.flush()
    exchange.wfile.write(b"0\r\n\r\n")


@route(r"/curl/first-piece-then-wait/([^/]+)")
def first_piece_then_wait(exchange, match):
    """Sends a first chunk, then the rest only once /curl/release/<name> has been requested (or after 10 s)."""
    exchange.send_response(200)
    exchange.send_header("Content-Type", "text/plain")
    exchange.send_header("Transfer-Encoding", "chunked")
    exchange.end_headers()
    exchange.wfile.write(b"5\r\nfirst\r\n")
    exchange.wfile.flush()
    release = f"/curl/release/{match.group(1)}"
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        with HITS_LOCK:
            if HITS.get(release, 0):
                break
        time.sleep(0.01)
    exchange.wfile.write(b"4\r\nrest\r\n0\r\n\r\n")


@route(r"/curl/release/[^/]+")
def release(exchange, match):
    exchange.send_json(200, {"released": True})
