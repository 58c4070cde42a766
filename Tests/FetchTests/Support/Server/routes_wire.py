"""Routes for the wire tests: hostile response heads written as raw bytes on the socket, and a barrier that shows
whether requests run at the same time.

The raw routes bypass BaseHTTPRequestHandler's send_response, so that the bytes on the wire are exactly the ones the
test names, and close the connection after them (nothing after a broken head can be trusted)."""

import threading
import time

from test_server import route

# Each raw answer, by name: a whole response, head and body.
RAW = {
    # 23 digits of status (libcurl 7.88 refuses it itself; Fetch's own reader must too, whatever libcurl passes on).
    "status-overflow": b"HTTP/1.1 99999999999999999999999 x\r\nContent-Length: 2\r\n\r\nok",
    # A 500 whose head holds a line that looks like a status line (a field line without a colon).
    "status-line-in-headers": b"HTTP/1.1 500 Internal Server Error\r\nX-Before: kept\r\nHTTP/1.1 200 OK\r\n"
    b"X-After: kept too\r\nContent-Length: 4\r\n\r\nfail",
    # Four digits of status.
    "status-four-digits": b"HTTP/1.1 2000 OK\r\nContent-Length: 2\r\n\r\nok",
    # Letters where the status goes.
    "status-letters": b"HTTP/1.1 abc OK\r\nContent-Length: 2\r\n\r\nok",
    # A status out of 100...599, which libcurl 7.88 passes on.
    "status-out-of-range": b"HTTP/1.1 999 Beyond\r\nContent-Length: 2\r\n\r\nok",
    # Not HTTP at all.
    "garbage": b"\x00\xffgarbage that is no status line\r\n\r\n",
    # A 103 Early Hints head, then the final head: only the final head's fields are the response's.
    "early-hints": b"HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n"
    b"HTTP/1.1 201 Created\r\nX-Final: yes\r\nContent-Length: 2\r\n\r\nok",
    # A field folded onto a second line (obs-fold) and a field sent twice.
    "folded": b"HTTP/1.1 200 OK\r\nX-Folded: first\r\n  second\r\nX-Twice: a\r\nX-Twice: b\r\n"
    b"Content-Length: 2\r\n\r\nok",
    # A negative and an overflowing Content-Length.
    "negative-length": b"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\nok",
    "overflowing-length": b"HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999999\r\n\r\nok",
    "conflicting-lengths": b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 5\r\n\r\nok",
    "repeated-length": b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nok",
    "status-line-only": b"HTTP/1.1 200 OK\r\n",
}


@route(r"/wire/raw/([a-z0-9-]+)")
def raw(exchange, match):
    """The raw answer RAW names."""
    exchange.close_connection = True
    exchange.wfile.write(RAW[match.group(1)])


def write_head_then(exchange, lines):
    """A 200 status line, then each line of the iterable `lines`, until the client stops reading."""
    exchange.close_connection = True
    try:
        exchange.wfile.write(b"HTTP/1.1 200 OK\r\n")
        for line in lines:
            exchange.wfile.write(line)
        exchange.wfile.write(b"Content-Length: 2\r\n\r\nok")
    except (BrokenPipeError, ConnectionResetError):
        pass  # the client gave up on the head, as it should


@route(r"/wire/huge-header/(\d+)")
def huge_header(exchange, match):
    """One header field whose value is the given number of bytes, written 64 KiB at a time."""
    size = int(match.group(1))

    def pieces():
        yield b"X-Huge: "
        left = size
        while left > 0:
            piece = min(left, 65536)
            yield b"a" * piece
            left -= piece
        yield b"\r\n"

    write_head_then(exchange, pieces())


@route(r"/wire/many-headers/(\d+)")
def many_headers(exchange, match):
    """The given number of short header fields, X-N: N."""
    count = int(match.group(1))
    write_head_then(exchange, (b"X-%d: %d\r\n" % (index, index) for index in range(count)))


@route(r"/wire/endless-head")
def endless_head(exchange, match):
    """Header fields without end, until the client closes the connection (or 1 GiB, should it never)."""
    line = b"X-Endless: " + b"e" * 1000 + b"\r\n"
    write_head_then(exchange, (line for _ in range(1 << 20)))


BARRIERS = {}  # name -> [arrived count, condition]
BARRIERS_LOCK = threading.Lock()


@route(r"/wire/barrier/([^/]+)")
def barrier(exchange, match):
    """Waits until ?count= requests for this name have arrived (at most ?wait= seconds), then answers whether they
    all did, with Connection: close: an HTTP/1.1 server that takes one request per connection."""
    count = int(exchange.query.get("count", ["4"])[0])
    wait = float(exchange.query.get("wait", ["5"])[0])
    with BARRIERS_LOCK:
        entry = BARRIERS.setdefault(match.group(1), [0, threading.Condition(BARRIERS_LOCK)])
        entry[0] += 1
        entry[1].notify_all()
        deadline = time.monotonic() + wait
        while entry[0] < count and time.monotonic() < deadline:
            entry[1].wait(deadline - time.monotonic())
        arrived = entry[0]
    exchange.close_connection = True
    exchange.send_json(200, {"arrived": arrived, "count": count}, headers={"Connection": "close"})
