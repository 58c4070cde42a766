#!/usr/bin/env python3
"""A hostile HTTP server for Fetch's hostile-server suite (Tests/FetchTests/Hostile), on loopback only.

It speaks raw sockets, not http.server, so that it can send what no well-behaved server would: status lines that
overflow, heads that never end, chunk sizes past 2^64, gzip bombs, resets. Each behaviour is one path,
GET /hostile/<name>; the list is BEHAVIOURS below, and the Swift suite holds the same names with what it expects.

Started by the tests like test_server.py: it listens on 127.0.0.1 only, prints "PORT <n>" on its first line, and
exits as soon as its standard input closes (when the test process ends, however it ends). Standard library only.

Bounded: every behaviour ends by itself. An "endless" head or body stops after ENDLESS_SECONDS or as soon as the
client goes away (a send fails or the client closes); a body "of 400 MB" is generated as it is sent, never stored;
the gzip bomb (1 GiB of zeros, about 1 MB compressed) is made once, when first asked for.

Every request is counted by its `run` query parameter: GET /_count?run=<id> answers {"run": id, "count": n}, so a
test can tell how often a client reconnected (Server-Sent Events with `retry: 0`).
"""

import json
import os
import select
import socket
import struct
import sys
import threading
import time
import zlib
from urllib.parse import parse_qs, urlsplit

from inherited import close_inherited_sockets

ENDLESS_SECONDS = 20  # the longest any behaviour keeps a connection
LARGE_BODY = 400_000_000  # "a body of 400 MB"
CHUNK = b"a" * 65536
HEAD_LIMIT = 65536  # the most bytes of a request head read

COUNTS = {}
COUNTS_LOCK = threading.Lock()
BOMB = []
BOMB_LOCK = threading.Lock()
BEHAVIOURS = {}


def behaviour(name):
    def register(handler):
        BEHAVIOURS[name] = handler
        return handler

    return register


class Gone(Exception):
    """The client went away, or the behaviour's time is up: the handler stops."""


class Exchange:
    def __init__(self, conn, method, target, headers, leftover):
        self.conn = conn
        self.method = method
        self.target = target
        self.url = urlsplit(target)
        self.query = parse_qs(self.url.query, keep_blank_values=True)
        self.headers = headers
        self.leftover = leftover
        self.deadline = time.monotonic() + ENDLESS_SECONDS

    def send(self, data):
        if time.monotonic() > self.deadline:
            raise Gone()
        try:
            self.conn.sendall(data)
        except OSError:
            raise Gone()

    def client_closed(self):
        """Whether the client has closed its end (without waiting)."""
        try:
            readable, _, _ = select.select([self.conn], [], [], 0)
            if not readable:
                return False
            return self.conn.recv(65536) == b""
        except OSError:
            return True

    def hold(self, seconds=ENDLESS_SECONDS):
        """Keeps the connection open, sending nothing, until the client closes it or `seconds` pass."""
        end = min(self.deadline, time.monotonic() + seconds)
        while time.monotonic() < end:
            try:
                readable, _, _ = select.select([self.conn], [], [], max(0.0, end - time.monotonic()))
                if readable and self.conn.recv(65536) == b"":
                    return
            except OSError:
                return

    def endless(self, piece, total=None):
        """Sends `piece` again and again: until the client goes away, ENDLESS_SECONDS pass, or `total` bytes."""
        sent = 0
        while total is None or sent < total:
            data = piece if total is None else piece[: total - sent]
            self.send(data)
            sent += len(data)

    def trickle(self, data, interval):
        for index in range(len(data)):
            self.send(data[index : index + 1])
            if self.client_closed():
                raise Gone()
            time.sleep(interval)

    def reset(self):
        """Closes with a TCP reset (SO_LINGER 0) instead of a FIN."""
        self.conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.conn.close()


def head(status_line, *headers):
    """A response head: the status line (bytes), then each header line, then the empty line."""
    lines = [status_line] + [line if isinstance(line, bytes) else line.encode() for line in headers]
    return b"\r\n".join(lines) + b"\r\n\r\n"


def simple(status_line, *headers, body=b"ok"):
    """A whole response with a Content-Length, closing after it."""
    return head(status_line, *headers, "Content-Length: %d" % len(body), "Connection: close") + body


def constant(name, data):
    BEHAVIOURS[name] = lambda exchange: exchange.send(data)


# MARK: - Status lines

constant("status-overflow", simple(b"HTTP/1.1 99999999999999999999999 x"))
constant("status-later-http-line", simple(b"HTTP/1.1 500 Internal Server Error", "X-Before: 1", "HTTP/1.1 200 OK"))
constant("status-garbage", b"GARBAGE GARBAGE GARBAGE\r\n\r\n")
constant("status-missing", b"Content-Length: 2\r\nConnection: close\r\n\r\nok")
constant("http09", b"hello from HTTP/0.9, no status line and no head\n")
constant("status-empty-reason", simple(b"HTTP/1.1 200 "))
constant("status-no-reason", simple(b"HTTP/1.1 200"))
constant("status-000", simple(b"HTTP/1.1 000 Zero"))
constant("status-1000", simple(b"HTTP/1.1 1000 Thousand"))
constant("status-negative", simple(b"HTTP/1.1 -200 Negative"))
constant("status-line-then-close", b"HTTP/1.1 200 OK\r\n")
constant("version-unknown", simple(b"HTTP/9.9 200 OK"))

# MARK: - Header lines

constant("header-no-colon", simple(b"HTTP/1.1 200 OK", "ThisLineHasNoColon"))
constant("header-nul", simple(b"HTTP/1.1 200 OK", b"X-Nul: before\x00after"))
constant("header-non-utf8", simple(b"HTTP/1.1 200 OK", b"X-Bytes: \xff\xfe\x80\xc3"))


@behaviour("header-10mb")
def header_10mb(exchange):
    exchange.send(b"HTTP/1.1 200 OK\r\nX-Big: ")
    exchange.endless(CHUNK, total=10 * 1024 * 1024)
    exchange.send(b"\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")


@behaviour("headers-100k")
def headers_100k(exchange):
    exchange.send(b"HTTP/1.1 200 OK\r\n")
    for batch in range(100):
        exchange.send(b"".join(b"X-H%d: v\r\n" % (batch * 1000 + index) for index in range(1000)))
    exchange.send(b"Content-Length: 2\r\nConnection: close\r\n\r\nok")


@behaviour("head-endless")
def head_endless(exchange):
    exchange.send(b"HTTP/1.1 200 OK\r\n")
    exchange.endless(b"".join(b"X-Endless-%d: v\r\n" % index for index in range(1000)))


@behaviour("head-trickle")
def head_trickle(exchange):
    # About 100 bytes at 1 byte per 100 ms: 10 s for a head, against a 3 s timeout.
    exchange.trickle(simple(b"HTTP/1.1 200 OK", "X-Trickle: " + "t" * 50), 0.1)


# MARK: - Content-Length

constant("cl-negative", head(b"HTTP/1.1 200 OK", "Content-Length: -1", "Connection: close") + b"ok")
constant("cl-overflow", head(b"HTTP/1.1 200 OK", "Content-Length: 18446744073709551616", "Connection: close") + b"ok")
constant("cl-garbage", head(b"HTTP/1.1 200 OK", "Content-Length: 12abc", "Connection: close") + b"ok")
constant(
    "cl-conflict", head(b"HTTP/1.1 200 OK", "Content-Length: 2", "Content-Length: 5", "Connection: close") + b"hello"
)
constant("cl-smaller", head(b"HTTP/1.1 200 OK", "Content-Length: 5", "Connection: close") + b"hello, and more")


@behaviour("cl-larger-then-close")
def cl_larger_then_close(exchange):
    exchange.send(head(b"HTTP/1.1 200 OK", "Content-Length: 100000") + b"x" * 1000)


@behaviour("cl-huge-declared")
def cl_huge_declared(exchange):
    exchange.send(head(b"HTTP/1.1 200 OK", "Content-Length: %d" % LARGE_BODY, "Connection: close"))
    exchange.endless(CHUNK, total=LARGE_BODY)


@behaviour("body-no-cl-400mb")
def body_no_cl_400mb(exchange):
    exchange.send(head(b"HTTP/1.1 200 OK", "Connection: close"))
    exchange.endless(CHUNK, total=LARGE_BODY)


@behaviour("body-stall-cl")
def body_stall_cl(exchange):
    exchange.send(head(b"HTTP/1.1 200 OK", "Content-Length: 1000") + b"x" * 10)
    exchange.hold()


@behaviour("body-stall-no-cl")
def body_stall_no_cl(exchange):
    exchange.send(head(b"HTTP/1.1 200 OK", "Connection: close") + b"x" * 10)
    exchange.hold()


@behaviour("body-trickle")
def body_trickle(exchange):
    # 100 bytes at 1 byte per 200 ms: 20 s for a body, against a 3 s timeout that an idle timer never sees.
    exchange.send(head(b"HTTP/1.1 200 OK", "Content-Length: 100"))
    exchange.trickle(b"x" * 100, 0.2)


@behaviour("http10-no-cl-close")
def http10_no_cl_close(exchange):
    exchange.send(head(b"HTTP/1.0 200 OK", "Content-Type: text/plain") + b"hello")


# MARK: - Chunked bodies

CHUNKED = "Transfer-Encoding: chunked"

constant("chunk-size-overflow", head(b"HTTP/1.1 200 OK", CHUNKED) + b"ffffffffffffffffff\r\nhello\r\n0\r\n\r\n")
constant("chunk-size-negative", head(b"HTTP/1.1 200 OK", CHUNKED) + b"-1\r\nhello\r\n0\r\n\r\n")
constant("chunk-size-nonhex", head(b"HTTP/1.1 200 OK", CHUNKED) + b"zz\r\nhello\r\n0\r\n\r\n")
constant("chunked-with-cl", head(b"HTTP/1.1 200 OK", CHUNKED, "Content-Length: 3") + b"5\r\nhello\r\n0\r\n\r\n")


@behaviour("chunk-missing-final")
def chunk_missing_final(exchange):
    exchange.send(head(b"HTTP/1.1 200 OK", CHUNKED) + b"5\r\nhello\r\n")


@behaviour("chunk-ext-1mb")
def chunk_ext_1mb(exchange):
    exchange.send(head(b"HTTP/1.1 200 OK", CHUNKED, "Connection: close") + b"5;ext=")
    exchange.endless(CHUNK, total=1024 * 1024)
    exchange.send(b"\r\nhello\r\n0\r\n\r\n")


@behaviour("chunk-trailers-endless")
def chunk_trailers_endless(exchange):
    exchange.send(head(b"HTTP/1.1 200 OK", CHUNKED) + b"5\r\nhello\r\n0\r\n")
    exchange.endless(b"".join(b"X-Trailer-%d: v\r\n" % index for index in range(1000)))


@behaviour("chunk-size-huge")
def chunk_size_huge(exchange):
    exchange.send(head(b"HTTP/1.1 200 OK", CHUNKED) + b"7fffffffffffffff\r\n")
    exchange.endless(CHUNK, total=LARGE_BODY)


# MARK: - Content-Encoding


def gzip_bomb():
    """1 GiB of zeros, gzip-compressed (about 1 MB), made once in milliseconds.

    Compressing 1 GiB takes a minute on a busy machine, so the deflate stream is assembled: after a full flush the
    compressor's state is what it was after the previous one, so each further MiB of zeros compresses to the same
    bytes, and the stream is the first MiB's bytes, then the repeated block, then the end. CRC32_OF_ZEROS is the
    CRC-32 of 2^30 zero bytes (zlib.crc32 over them, computed once)."""
    with BOMB_LOCK:
        if not BOMB:
            zeros = bytes(1 << 20)
            compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
            first = compressor.compress(zeros) + compressor.flush(zlib.Z_FULL_FLUSH)
            repeated = compressor.compress(zeros) + compressor.flush(zlib.Z_FULL_FLUSH)
            end = compressor.flush()
            header = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"
            trailer = struct.pack("<II", CRC32_OF_ZEROS, (1 << 30) & 0xFFFFFFFF)
            BOMB.append(header + first + repeated * 1023 + end + trailer)
        return BOMB[0]


CRC32_OF_ZEROS = 0x5B64C2B0


@behaviour("gzip-bomb")
def gzip_bomb_behaviour(exchange):
    bomb = gzip_bomb()
    exchange.send(
        head(b"HTTP/1.1 200 OK", "Content-Encoding: gzip", "Content-Length: %d" % len(bomb), "Connection: close")
    )
    exchange.send(bomb)


constant("gzip-garbage", simple(b"HTTP/1.1 200 OK", "Content-Encoding: gzip", body=b"this is not gzip at all"))

# MARK: - Connections


@behaviour("close-before-any-byte")
def close_before_any_byte(exchange):
    pass


@behaviour("reset-before-any-byte")
def reset_before_any_byte(exchange):
    exchange.reset()


@behaviour("reset-mid-body")
def reset_mid_body(exchange):
    exchange.send(head(b"HTTP/1.1 200 OK", "Content-Length: 100000") + b"x" * 1000)
    time.sleep(0.05)
    exchange.reset()


@behaviour("early-response")
def early_response(exchange):
    # Answers a POST before reading its body, and closes.
    exchange.send(simple(b"HTTP/1.1 413 Content Too Large", body=b"too large, not read"))


# MARK: - Redirects


@behaviour("redirect-loop")
def redirect_loop(exchange):
    exchange.send(simple(b"HTTP/1.1 302 Found", "Location: " + exchange.target, body=b""))


def redirect(name, location):
    constant(name, simple(b"HTTP/1.1 302 Found", b"Location: " + location, body=b""))


redirect("redirect-file", b"file:///etc/passwd")
redirect("redirect-ftp", b"ftp://127.0.0.1/pub/file")
redirect("redirect-gopher", b"gopher://127.0.0.1/1")
redirect("redirect-javascript", b"javascript:alert(1)")
redirect("redirect-location-garbage", b"http://[::1\x7f\xff/%zz")
redirect("redirect-port-overflow", b"http://127.0.0.1:99999999999999999999/x")
constant("redirect-no-location", simple(b"HTTP/1.1 302 Found", body=b""))

# MARK: - Informational and bodiless statuses


@behaviour("continue-forever")
def continue_forever(exchange):
    exchange.endless(b"HTTP/1.1 100 Continue\r\n\r\n" * 100)


@behaviour("switching-protocols")
def switching_protocols(exchange):
    exchange.send(head(b"HTTP/1.1 101 Switching Protocols", "Upgrade: websocket", "Connection: Upgrade"))
    exchange.hold()


constant("no-content-with-body", head(b"HTTP/1.1 204 No Content", "Content-Length: 5", "Connection: close") + b"hello")
constant(
    "not-modified-with-body", head(b"HTTP/1.1 304 Not Modified", "Content-Length: 5", "Connection: close") + b"hello"
)

# MARK: - Numbers in headers the middlewares read

constant("retry-after-huge", simple(b"HTTP/1.1 503 Service Unavailable", "Retry-After: 1e300", body=b"busy"))
constant(
    "retry-after-overflow",
    simple(b"HTTP/1.1 503 Service Unavailable", "Retry-After: 99999999999999999999999", body=b"busy"),
)


def cached_once(age):
    """A cacheable response (already stale) on the first request of a run, then a dropped connection, so that a
    cache with `.serveStoredOnFailure` serves it stale."""

    def handler(exchange):
        if count_of(exchange) == 1:
            exchange.send(simple(b"HTTP/1.1 200 OK", "Cache-Control: max-age=1", "Age: " + age, body=b"cached"))

    return handler


BEHAVIOURS["cache-age-huge"] = cached_once("1e300")
BEHAVIOURS["cache-age-inf"] = cached_once("inf")
BEHAVIOURS["cache-age-nan"] = cached_once("nan")

BASIC = 'WWW-Authenticate: Basic realm="hostile"'
constant("auth-basic-wrong-header", simple(b"HTTP/1.1 401 Unauthorized", BASIC, body=b"wrong password"))
constant("auth-basic-url-credentials", simple(b"HTTP/1.1 401 Unauthorized", BASIC, body=b"wrong password"))

# MARK: - Streams


@behaviour("lines-no-newline")
def lines_no_newline(exchange):
    exchange.send(head(b"HTTP/1.1 200 OK", "Content-Type: text/plain", "Connection: close"))
    exchange.endless(CHUNK, total=LARGE_BODY)


@behaviour("sse-no-newline")
def sse_no_newline(exchange):
    exchange.send(head(b"HTTP/1.1 200 OK", "Content-Type: text/event-stream", "Connection: close") + b"data: ")
    exchange.endless(CHUNK, total=LARGE_BODY)


def sse_then_close(name, body):
    constant(name, head(b"HTTP/1.1 200 OK", "Content-Type: text/event-stream", "Connection: close") + body)


sse_then_close("sse-retry-huge", b"retry: 9999999999999\n\ndata: x\n\n")
sse_then_close("sse-retry-overflow", b"retry: 99999999999999999999999\n\ndata: x\n\n")
sse_then_close("sse-retry-zero", b"retry: 0\n\ndata: x\n\n")

# MARK: - Resumable downloads (a resumable download of DOWNLOAD_SIZE bytes, ranges and If-Range honoured)

DOWNLOAD_SIZE = 1_000_000
DOWNLOAD_DROP = 400_000  # each cut connection sends this many body bytes, then closes
WEAK_DATE = "Tue, 14 Nov 2023 22:13:20 GMT"  # the Last-Modified and the Date of both versions


def resumed_from(exchange, if_range):
    """The offset a `Range: bytes=N-` asks for when its If-Range is `if_range`, or None."""
    asked = exchange.headers.get("range", "")
    if not (asked.startswith("bytes=") and asked.endswith("-")) or exchange.headers.get("if-range") != if_range:
        return None
    start = asked[len("bytes=") : -1]
    return int(start) if start.isdigit() and int(start) < DOWNLOAD_SIZE else None


@behaviour("download-weak-validator-splice")
def download_weak_validator_splice(exchange):
    # Version 1 (all "a") is cut at 400 kB; then the resource changes to version 2 (all "b") within the second its
    # Last-Modified names, so its weak ETag and its Last-Modified (equal to Date) stay the same, and an If-Range of
    # that date is honoured with a 206 of version 2. A client that resumes on that weak validator splices the two.
    validators = ['ETag: W/"v"', "Last-Modified: " + WEAK_DATE, "Date: " + WEAK_DATE, "Accept-Ranges: bytes"]
    if count_of(exchange) == 1:
        status = head(b"HTTP/1.1 200 OK", "Content-Length: %d" % DOWNLOAD_SIZE, "Connection: close", *validators)
        exchange.send(status + b"a" * DOWNLOAD_DROP)
        return
    start = resumed_from(exchange, WEAK_DATE)
    if start is None:
        exchange.send(simple(b"HTTP/1.1 200 OK", *validators, body=b"b" * DOWNLOAD_SIZE))
        return
    content_range = "Content-Range: bytes %d-%d/%d" % (start, DOWNLOAD_SIZE - 1, DOWNLOAD_SIZE)
    exchange.send(simple(b"HTTP/1.1 206 Partial Content", content_range, *validators, body=b"b" * (DOWNLOAD_SIZE - start)))


def cut_then_206(name, shift, extra):
    """Every request for the whole is a 200 cut at 400 kB; every resumption is a 206 whose Content-Range starts
    `shift` bytes late and that announces and sends `extra` bytes more than its range holds, then closes."""

    def handler(exchange):
        validators = ['ETag: "v1"', "Accept-Ranges: bytes"]
        start = resumed_from(exchange, '"v1"')
        if start is None:
            status = head(b"HTTP/1.1 200 OK", "Content-Length: %d" % DOWNLOAD_SIZE, "Connection: close", *validators)
            exchange.send(status + b"a" * DOWNLOAD_DROP)
            return
        length = DOWNLOAD_SIZE - start
        content_range = "Content-Range: bytes %d-%d/%d" % (start + shift, DOWNLOAD_SIZE - 1, DOWNLOAD_SIZE)
        exchange.send(
            head(b"HTTP/1.1 206 Partial Content", content_range, "Content-Length: %d" % (length + extra),
                 "Connection: close", *validators)
            + b"a" * (length + extra))

    BEHAVIOURS[name] = handler


cut_then_206("download-drop-then-overlong-206", 0, 200_000)
cut_then_206("download-drop-then-shifted-206", 1, 0)

# MARK: - The server


def count_of(exchange):
    run = exchange.query.get("run", [""])[0]
    with COUNTS_LOCK:
        return COUNTS.get(run, 0)


def read_head(conn):
    data = b""
    while b"\r\n\r\n" not in data:
        if len(data) > HEAD_LIMIT:
            return None, b""
        piece = conn.recv(65536)
        if not piece:
            return None, b""
        data += piece
    end = data.index(b"\r\n\r\n")
    return data[:end].decode("latin-1"), data[end + 4 :]


def serve(conn):
    try:
        conn.settimeout(10)
        request, leftover = read_head(conn)
        if request is None:
            return
        lines = request.split("\r\n")
        parts = lines[0].split(" ")
        if len(parts) != 3:
            return
        method, target, _ = parts
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        exchange = Exchange(conn, method, target, headers, leftover)
        run = exchange.query.get("run", [""])[0]
        if exchange.url.path == "/_count":
            with COUNTS_LOCK:
                count = COUNTS.get(run, 0)
            body = json.dumps({"run": run, "count": count}).encode()
            exchange.send(simple(b"HTTP/1.1 200 OK", "Content-Type: application/json", body=body))
            return
        with COUNTS_LOCK:
            COUNTS[run] = COUNTS.get(run, 0) + 1
        name = exchange.url.path[len("/hostile/") :] if exchange.url.path.startswith("/hostile/") else ""
        handler = BEHAVIOURS.get(name)
        if handler is None:
            exchange.send(simple(b"HTTP/1.1 404 Not Found", body=b"no such behaviour: " + name.encode()))
            return
        handler(exchange)
    except (Gone, OSError):
        pass
    finally:
        try:
            conn.close()
        except OSError:
            pass


def accept_forever(listener):
    while True:
        try:
            conn, _ = listener.accept()
        except OSError:  # a connection reset before it was accepted, or too many open files for a moment
            time.sleep(0.01)
            continue
        threading.Thread(target=serve, args=(conn,), daemon=True).start()


def main():
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(256)
    print("PORT %d" % listener.getsockname()[1], flush=True)
    threading.Thread(target=accept_forever, args=(listener,), daemon=True).start()
    sys.stdin.read()  # returns when the test process ends
    os._exit(0)


if __name__ == "__main__":
    close_inherited_sockets()
    main()
