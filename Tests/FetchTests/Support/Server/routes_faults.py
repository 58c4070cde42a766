"""Routes for the fault tests: an authentication challenge, a trickling body, a reset, a body cut midway, a chunked
body of any size, and a counted body that records how much of it the socket took."""

import select
import socket
import struct
import threading
import time

from test_server import route


@route(r"/faults/basic")
def basic(exchange, match):
    """401 with WWW-Authenticate: Basic realm="x", whatever Authorization the request carries.

    ?body=0 answers without a body (Content-Length: 0); ?close=1 closes the connection after the answer.
    """
    headers = {"WWW-Authenticate": 'Basic realm="x"'}
    if exchange.query.get("close", ["0"])[0] == "1":
        headers["Connection"] = "close"
        exchange.close_connection = True
    body = b"" if exchange.query.get("body", ["1"])[0] == "0" else b'{"error":true,"reason":"wrong password"}'
    exchange.send(401, body, headers=headers)


@route(r"/faults/trickle/(\d+)")
def trickle(exchange, match):
    """200 with a Content-Length of the given number of bytes, sent one byte every ?every= seconds (0.2)."""
    total = min(int(match.group(1)), 10_000)
    every = min(float(exchange.query.get("every", ["0.2"])[0]), 5.0)
    exchange.send_response(200)
    exchange.send_header("Content-Type", "application/octet-stream")
    exchange.send_header("Content-Length", str(total))
    exchange.end_headers()
    exchange.wfile.flush()
    for _ in range(total):
        time.sleep(every)
        exchange.wfile.write(b"x")
        exchange.wfile.flush()


@route(r"/faults/silent")
def silent(exchange, match):
    """200 with a Content-Length of 1, then nothing until the client goes (30 s at most), then the byte."""
    exchange.send_response(200)
    exchange.send_header("Content-Type", "application/octet-stream")
    exchange.send_header("Content-Length", "1")
    exchange.end_headers()
    exchange.wfile.flush()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        readable, _, _ = select.select([exchange.connection], [], [], 0.1)
        if readable and not exchange.connection.recv(1, socket.MSG_PEEK):
            return  # the client closed the connection: it timed out
    exchange.wfile.write(b"x")
    exchange.wfile.flush()


@route(r"/faults/reset")
def reset(exchange, match):
    """Resets the connection (SO_LINGER 0, then close: the kernel sends RST) without answering."""
    exchange.close_connection = True
    exchange.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    exchange.connection.close()


@route(r"/faults/cut")
def cut(exchange, match):
    """200 announcing ?length= bytes (1000), then closes the connection after ?sent= of them (500)."""
    length = int(exchange.query.get("length", ["1000"])[0])
    sent = min(int(exchange.query.get("sent", ["500"])[0]), length)
    exchange.close_connection = True
    exchange.send_response(200)
    exchange.send_header("Content-Type", "application/octet-stream")
    exchange.send_header("Content-Length", str(length))
    exchange.send_header("Connection", "close")
    exchange.end_headers()
    exchange.wfile.write(b"c" * sent)
    exchange.wfile.flush()
    exchange.connection.shutdown(socket.SHUT_RDWR)


@route(r"/faults/chunked/(\d+)")
def chunked(exchange, match):
    """200 with a chunked body (no Content-Length) of the given number of bytes, 1 MiB a chunk, never held whole."""
    total = int(match.group(1))
    block = b"z" * (1 << 20)
    exchange.send_response(200)
    exchange.send_header("Content-Type", "application/octet-stream")
    exchange.send_header("Transfer-Encoding", "chunked")
    exchange.end_headers()
    sent = 0
    while sent < total:
        part = block[: min(len(block), total - sent)]
        exchange.wfile.write(b"%x\r\n" % len(part) + part + b"\r\n")
        sent += len(part)
    exchange.wfile.write(b"0\r\n\r\n")


# Each counted body's hold (set to let it go on), and how many of its bytes the socket took once its handler is done.
COUNTED = {}
COUNTED_LOCK = threading.Lock()


def counted_state(identifier):
    with COUNTED_LOCK:
        return COUNTED.setdefault(identifier, {"release": threading.Event(), "done": threading.Event(), "sent": 0})


@route(r"/faults/counted/([\w-]+)/(\d+)")
def counted(exchange, match):
    """200 with a chunked body of the given number of bytes, 64 KiB a chunk, counting what the socket took until the
    client stops reading or closes. ?hold=<bytes> pauses after that many bytes until /faults/counted-sent/<id> (or
    30 s), so that a test can tell whether the client gave up before the rest was sent."""
    identifier, total = match.group(1), int(match.group(2))
    hold = int(exchange.query.get("hold", [str(total)])[0])
    state = counted_state(identifier)
    block = b"z" * (64 << 10)
    exchange.send_response(200)
    exchange.send_header("Content-Type", "application/octet-stream")
    exchange.send_header("Transfer-Encoding", "chunked")
    exchange.end_headers()
    sent = 0
    try:
        while sent < total:
            if sent >= hold:
                state["release"].wait(30)
                hold = total
            part = block[: min(len(block), total - sent)]
            exchange.wfile.write(b"%x\r\n" % len(part) + part + b"\r\n")
            exchange.wfile.flush()
            sent += len(part)
        exchange.wfile.write(b"0\r\n\r\n")
    except OSError:
        exchange.close_connection = True
    finally:
        state["sent"] = sent
        state["done"].set()


@route(r"/faults/counted-sent/([\w-]+)")
def counted_sent(exchange, match):
    """Lets the counted body go on, then {"sent": n, "done": true} once its handler is done (waiting up to 30 s for
    it), else "done": false."""
    state = counted_state(match.group(1))
    state["release"].set()
    done = state["done"].wait(30)
    exchange.send_json(200, {"sent": state["sent"], "done": done})


@route(r"/faults/one-per-connection")
def one_per_connection(exchange, match):
    """200 to a connection's first request; a second request on the same connection is read and the connection
    closed without an answer, as a server does that timed a kept-alive connection out while the request was on its
    way. A client sends such a request again on a new connection (RFC 9112 §9.3.1, for an idempotent one)."""
    served = getattr(exchange, "served_on_connection", 0)
    exchange.served_on_connection = served + 1
    if served > 0:
        exchange.close_connection = True
        return  # nothing sent: the connection closes
    exchange.send_json(200, {"served": served + 1})
