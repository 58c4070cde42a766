"""Routes for the streaming tests: Server-Sent Events, JSON Lines, large generated bodies, held connections.

Every streamed answer is written as it is produced and flushed at once. Bodies without a Content-Length end when
the server closes the connection (Connection: close). GET /stream/log/<id> answers what the routes with that id saw:
each connection's Last-Event-ID and arrival time, and when the client closed a held connection.
"""

import json
import select
import socket
import threading
import time

from test_server import route

LOG = {}  # id -> {"connections": [{"lastEventID": str or None, "at": seconds}], "closedAt": seconds or None}
LOG_LOCK = threading.Lock()


def log_connection(key, exchange):
    with LOG_LOCK:
        entry = LOG.setdefault(key, {"connections": [], "closedAt": None})
        entry["connections"].append({"lastEventID": exchange.headers.get("Last-Event-ID"), "at": time.time(),
                                     "accept": exchange.headers.get("Accept"),
                                     "cacheControl": exchange.headers.get("Cache-Control")})
        return len(entry["connections"])


def start_stream(exchange, content_type="text/event-stream"):
    exchange.send_response(200)
    exchange.send_header("Content-Type", content_type)
    exchange.send_header("Cache-Control", "no-cache")
    exchange.send_header("Connection", "close")
    exchange.end_headers()
    exchange.close_connection = True
    exchange.wfile.flush()


def write(exchange, text):
    exchange.wfile.write(text.encode() if isinstance(text, str) else text)
    exchange.wfile.flush()


@route(r"/stream/log/([^/]+)")
def stream_log(exchange, match):
    with LOG_LOCK:
        exchange.send_json(200, LOG.get(match.group(1), {"connections": [], "closedAt": None}))


@route(r"/stream/ticks")
def ticks(exchange, match):
    """?count= events (default 10), one every ?interval= ms (default 100), each {"n": i, "sent": <time.time()>}."""
    count = int(exchange.query.get("count", ["10"])[0])
    interval = int(exchange.query.get("interval", ["100"])[0]) / 1000
    start_stream(exchange)
    for n in range(count):
        time.sleep(interval)
        write(exchange, f"id: {n}\ndata: {json.dumps({'n': n, 'sent': time.time()})}\n\n")


@route(r"/stream/reconnect/([^/]+)")
def reconnect(exchange, match):
    """Connection 1: retry: ?retry= ms, events 1 and 2, an unterminated event, then the connection drops.
    Connection 2: one event that quotes the Last-Event-ID it received, then the connection ends. Then 204."""
    key = match.group(1)
    number = log_connection(key, exchange)
    if number == 1:
        start_stream(exchange)
        write(exchange, f"retry: {exchange.query.get('retry', ['400'])[0]}\n\n")
        write(exchange, "id: 1\ndata: one\n\n")
        write(exchange, "id: 2\ndata: two\n\nid: 3\ndata: never dispatched")
        exchange.connection.shutdown(socket.SHUT_RDWR)
    elif number == 2:
        start_stream(exchange)
        write(exchange, f"id: 4\ndata: after {exchange.headers.get('Last-Event-ID')}\n\n")
    else:
        exchange.send(204)


@route(r"/stream/hold/([^/]+)")
def hold(exchange, match):
    """One event, then holds the connection open (for up to ?seconds=, default 10) and logs when the client closes
    it."""
    key = match.group(1)
    log_connection(key, exchange)
    start_stream(exchange)
    write(exchange, "data: open\n\n")
    sock = exchange.connection
    deadline = time.time() + float(exchange.query.get("seconds", ["10"])[0])
    while time.time() < deadline:
        readable, _, _ = select.select([sock], [], [], 0.01)
        if readable:
            try:
                if sock.recv(1, socket.MSG_PEEK) == b"":
                    break
            except OSError:
                break
    with LOG_LOCK:
        LOG[key]["closedAt"] = time.time()


@route(r"/stream/wrong-type")
def wrong_type(exchange, match):
    start_stream(exchange, content_type="application/json")
    write(exchange, "{}")


@route(r"/stream/jsonl")
def json_lines(exchange, match):
    """?count= JSON Lines (default 5), CRLF-ended when ?crlf=1, then ?bad=1 adds a line that is not JSON."""
    count = int(exchange.query.get("count", ["5"])[0])
    ending = "\r\n" if exchange.query.get("crlf", ["0"])[0] == "1" else "\n"
    start_stream(exchange, content_type="application/x-ndjson")
    for n in range(count):
        write(exchange, json.dumps({"n": n, "name": f"item {n}"}) + ending)
    if exchange.query.get("bad", ["0"])[0] == "1":
        write(exchange, "not json" + ending)


@route(r"/stream/large-error")
def large_error(exchange, match):
    """500 with a 200 KB text body."""
    exchange.send(500, b"e" * 200_000, content_type="text/plain")


@route(r"/stream/generated/(\d+)")
def generated(exchange, match):
    """A body of the given number of bytes, generated 1 MiB at a time, byte i being i % 251, never held whole."""
    total = int(match.group(1))
    chunk = bytes(i % 251 for i in range(251 * 4177))  # 1,048,427 bytes: a whole number of 251-byte periods
    exchange.send_response(200)
    exchange.send_header("Content-Type", "application/octet-stream")
    exchange.send_header("Content-Length", str(total))
    exchange.end_headers()
    sent = 0
    while sent < total:
        part = chunk[: min(len(chunk), total - sent)]
        exchange.wfile.write(part)
        sent += len(part)


@route(r"/stream/retry/([^/]+)")
def retry_then_close(exchange, match):
    """The first ?connections= connections (default 3) each send `retry: ?retry=` (default 0) and ?events= events
    (default 0), then close at once; the next one answers 204."""
    key = match.group(1)
    number = log_connection(key, exchange)
    if number > int(exchange.query.get("connections", ["3"])[0]):
        exchange.send(204)
        return
    start_stream(exchange)
    write(exchange, f"retry: {exchange.query.get('retry', ['0'])[0]}\n\n")
    for n in range(int(exchange.query.get("events", ["0"])[0])):
        write(exchange, f"id: {number}.{n}\ndata: connection {number}\n\n")


@route(r"/stream/endless-line")
def endless_line(exchange, match):
    """?prefix= (default empty), then a line that never ends: 64 KiB of `x` at a time, up to ?bytes= (default
    64 MiB), as an event stream (or text/plain with ?type=text), until the client closes the connection."""
    content_type = "text/plain" if exchange.query.get("type", ["sse"])[0] == "text" else "text/event-stream"
    total = int(exchange.query.get("bytes", [str(64 * 1024 * 1024)])[0])
    start_stream(exchange, content_type=content_type)
    write(exchange, exchange.query.get("prefix", [""])[0])
    block = b"x" * 65536
    sent = 0
    try:
        while sent < total:
            write(exchange, block)
            sent += len(block)
    except OSError:
        pass
