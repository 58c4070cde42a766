"""Routes for the libcurl transport's tests: a streamed-upload digest and a compressed body."""

import gzip
import hashlib

from test_server import route


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
