"""Routes for resumable downloads: a large body generated on the fly, whose connection the server drops.

GET /resume/<id>?size=<bytes> serves <size> bytes generated from the resource's version (never stored), and
honours `Range: bytes=N-` with `If-Range`. The query shapes the server:

- drop=<bytes>: close each connection after sending that many body bytes (0, the default: never);
- drops=<n>: drop only the first n connections of this id;
- ranges=0: ignore Range and send no Accept-Ranges;
- validator=etag (default), lm (Last-Modified only), none, or weak: a weak ETag and a Last-Modified equal to the
  response's Date, the same for every version (the resource changes within the second it names), with If-Range
  compared to that Last-Modified, as a server that has no strong validator does;
- change_at=<bytes>: the resource changes (version 2) once this id has sent that many bytes in all;
- stall_at=<bytes>&stall_ms=<ms>: the first request of this id pauses that long after that many bytes.

Hostile servers, for the checks a resumed 206 must pass:

- ignore_if_range=1: honour Range even when If-Range names another version (the body is the current version);
- range_shift=<n>: a 206's Content-Range says it starts n bytes after where its body starts;
- content_range=<template>: a 206's Content-Range is this text, with {start}, {end} and {size} filled in;
- always_206=1: answer 206 even to a request without Range;
- overlong=<n>: a 206 has no Content-Length, and n more bytes than its Content-Range says follow its body before the
  server closes the connection;
- overlong_cl=<n>: a 206 announces and sends n more bytes than its Content-Range says (its Content-Length is the
  range's length plus n), and is not dropped.

GET /resume-stats/<id> says how many body bytes the id has sent and what each request asked for.
GET /resume-digest?size=<bytes>&version=<n> is the SHA-256 of a version's body, computed by Python's hashlib.
"""

import email.utils
import hashlib
import socket
import threading
import time

from test_server import route

CHUNK = 1 << 20
STATE = {}  # id -> {"sent": bytes, "requests": [...]}
STATE_LOCK = threading.Lock()


BLOCKS = {}  # version -> the last CHUNK - 16 bytes of each of its MiB blocks


def cached_block(version):
    if version not in BLOCKS:
        pattern = bytes(((i * 7 + version * 13) ^ (i >> 8)) & 0xFF for i in range(256)) * (CHUNK // 256)
        BLOCKS[version] = pattern[16:]
    return BLOCKS[version]


def body_range(version, start, end):
    """The bytes [start, end) of a version's body, one MiB-aligned piece at a time.

    Each MiB block is its index and the version (8 bytes each, big-endian), then a pattern of the version.
    """
    tail = cached_block(version)
    position = start
    while position < end:
        index = position // CHUNK
        chunk_start = index * CHUNK
        whole = index.to_bytes(8, "big") + version.to_bytes(8, "big") + tail
        piece = whole[position - chunk_start : min(CHUNK, end - chunk_start)]
        yield piece
        position += len(piece)


WEAK_TIME = 1_700_000_000  # the Last-Modified and Date of every version of a validator=weak resource


def validators(version, kind, resource):
    if kind == "weak":
        return {"ETag": f'W/"v{version}-{resource}"', "Last-Modified": email.utils.formatdate(WEAK_TIME, usegmt=True)}
    if kind == "etag":
        return {"ETag": f'"v{version}-{resource}"'}
    if kind == "lm":
        return {"Last-Modified": email.utils.formatdate(1_700_000_000 + version * 1000, usegmt=True)}
    return {}


@route(r"/resume/([^/]+)")
def resume(exchange, match):
    resource = match.group(1)
    query = {name: values[0] for name, values in exchange.query.items()}
    size = int(query["size"])
    drop = int(query.get("drop", "0"))
    drops = int(query.get("drops", "-1"))
    ranges = query.get("ranges", "1") == "1"
    kind = query.get("validator", "etag")
    change_at = int(query.get("change_at", "-1"))
    with STATE_LOCK:
        state = STATE.setdefault(resource, {"sent": 0, "requests": []})
        first = not state["requests"]
        if 0 <= drops <= len(state["requests"]):
            drop = 0
        version = 2 if 0 <= change_at <= state["sent"] else 1
        asked = {
            "range": exchange.headers.get("Range"),
            "if_range": exchange.headers.get("If-Range"),
            "signature": exchange.headers.get("X-Signature"),
        }
        state["requests"].append(asked)
    headers = validators(version, kind, resource)
    if ranges:
        headers["Accept-Ranges"] = "bytes"
    start = 0
    status = 200
    requested = exchange.headers.get("Range", "")
    if ranges and requested.startswith("bytes=") and requested.endswith("-"):
        if_range = exchange.headers.get("If-Range")
        current = headers.get("Last-Modified") if kind == "weak" else headers.get("ETag") or headers.get("Last-Modified")
        if if_range is None or if_range == current or query.get("ignore_if_range") == "1":
            start = int(requested[len("bytes=") : -1])
            status = 206
    if query.get("always_206") == "1":
        status = 206
    with STATE_LOCK:
        asked["status"] = status if start < size else 416
    if status == 206 and start >= size:
        exchange.send_response(416)
        exchange.send_header("Content-Range", f"bytes */{size}")
        exchange.send_header("Content-Length", "0")
        for name, value in headers.items():
            exchange.send_header(name, value)
        exchange.end_headers()
        return
    overlong = int(query.get("overlong", "0")) if status == 206 else 0
    overlong_cl = int(query.get("overlong_cl", "0")) if status == 206 else 0
    if overlong_cl:
        drop = 0
    if kind == "weak":
        # The Date that send_response writes is the Last-Modified, to the second.
        exchange.date_time_string = lambda timestamp=None: headers["Last-Modified"]
    exchange.send_response(status)
    exchange.send_header("Content-Type", "application/octet-stream")
    if overlong:
        exchange.send_header("Connection", "close")
        exchange.close_connection = True
    else:
        exchange.send_header("Content-Length", str(size - start + overlong_cl))
    if status == 206:
        shown = start + int(query.get("range_shift", "0"))
        template = query.get("content_range", "bytes {start}-{end}/{size}")
        exchange.send_header("Content-Range", template.format(start=shown, end=size - 1, size=size))
    for name, value in headers.items():
        exchange.send_header(name, value)
    exchange.end_headers()
    stall_at = int(query.get("stall_at", "-1")) if first else -1
    stall_ms = min(int(query.get("stall_ms", "0")), 300_000)
    sent = 0
    for piece in body_range(version, start, size):
        if drop and sent + len(piece) > drop:
            piece = piece[: drop - sent]
        if 0 <= stall_at and sent <= stall_at < sent + len(piece):
            cut = stall_at - sent
            write(exchange, state, piece[:cut])
            exchange.wfile.flush()
            time.sleep(stall_ms / 1000)
            stall_at = -1
            piece = piece[cut:]
        write(exchange, state, piece)
        sent += len(piece)
        if drop and sent >= drop:
            exchange.wfile.flush()
            exchange.close_connection = True
            exchange.connection.shutdown(socket.SHUT_RDWR)
            return
    if overlong or overlong_cl:
        write(exchange, state, b"x" * (overlong or overlong_cl))
        exchange.wfile.flush()


def write(exchange, state, piece):
    exchange.wfile.write(piece)
    with STATE_LOCK:
        state["sent"] += len(piece)


@route(r"/resume-stats/([^/]+)")
def resume_stats(exchange, match):
    with STATE_LOCK:
        state = STATE.get(match.group(1), {"sent": 0, "requests": []})
        exchange.send_json(200, {"sent": state["sent"], "requests": list(state["requests"])})


@route(r"/resume-digest")
def resume_digest(exchange, match):
    size = int(exchange.query["size"][0])
    version = int(exchange.query.get("version", ["1"])[0])
    digest = hashlib.sha256()
    for piece in body_range(version, 0, size):
        digest.update(piece)
    exchange.send_json(200, {"sha256": digest.hexdigest()})


@route(r"/transfer-endless")
def transfer_endless(exchange, match):
    """A body that keeps coming: ?chunk= bytes (default 65536) every ?interval_ms= ms (default 20), with no length,
    for at most ?seconds= (default 10), then the connection closes. For POST, the request body is read first.

    The server never stays silent long enough for an idle timeout; only a deadline on the whole exchange ends it.
    """
    chunk = b"e" * min(int(exchange.query.get("chunk", ["65536"])[0]), 1 << 20)
    interval = int(exchange.query.get("interval_ms", ["20"])[0]) / 1000
    seconds = min(float(exchange.query.get("seconds", ["10"])[0]), 30)
    length = int(exchange.headers.get("Content-Length", "0"))
    if length:
        exchange.rfile.read(length)
    exchange.send_response(200)
    exchange.send_header("Content-Type", "application/octet-stream")
    exchange.send_header("Connection", "close")
    exchange.end_headers()
    exchange.close_connection = True
    end = time.monotonic() + seconds
    try:
        while time.monotonic() < end:
            exchange.wfile.write(chunk)
            exchange.wfile.flush()
            time.sleep(interval)
    except (BrokenPipeError, ConnectionResetError):
        pass
