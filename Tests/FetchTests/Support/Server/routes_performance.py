"""Routes for the performance features' tests: slow responses to share, cacheable responses, large bodies."""

import email.utils
import json
import time

from test_server import HITS, HITS_LOCK, route


CLOCK_OFFSETS = {}  # path of a /cacheable route -> seconds its clock is ahead of real time


def hits_of(exchange):
    with HITS_LOCK:
        return HITS.get(exchange.url.path, 0)


@route(r"/slow/[^/]+")
def slow(exchange, match):
    """Answers after ?ms= milliseconds (default 300) with the number of requests this path has had."""
    milliseconds = min(int(exchange.query.get("ms", ["300"])[0]), 10_000)
    time.sleep(milliseconds / 1000)
    exchange.send_json(200, {"hit": hits_of(exchange)})


@route(r"/cacheable/[^/]+")
def cacheable(exchange, match):
    """A response with the caching headers the query asks for.

    ?cc= sets Cache-Control, ?etag= sets ETag, ?lm=<seconds ago> sets Last-Modified, ?expires=<seconds from now>
    sets Expires, ?age= sets Age, ?vary= sets Vary, ?cookie= sets Set-Cookie. A request whose If-None-Match or If-Modified-Since matches gets
    304 Not Modified. The body is {"hit": n}: the number of requests this path has had, so a test can tell a stored
    body from a new one. Its Date (and the other dates) follow the path's own clock, which a test moves forward
    with POST /cacheable-clock/<same id>?advance=<seconds> in step with the clock it gives the cache.
    """
    query = {name: values[0] for name, values in exchange.query.items()}
    now = time.time() + CLOCK_OFFSETS.get(exchange.url.path, 0)
    headers = {"Date": email.utils.formatdate(now, usegmt=True)}
    if "cc" in query:
        headers["Cache-Control"] = query["cc"]
    if "etag" in query:
        headers["ETag"] = f'"{query["etag"]}"'
    if "lm" in query:
        headers["Last-Modified"] = email.utils.formatdate(now - int(query["lm"]), usegmt=True)
    if "expires" in query:
        headers["Expires"] = email.utils.formatdate(now + int(query["expires"]), usegmt=True)
    if "age" in query:
        headers["Age"] = query["age"]
    if "vary" in query:
        headers["Vary"] = query["vary"]
    if "cookie" in query:
        headers["Set-Cookie"] = query["cookie"]
    etag_matches = "ETag" in headers and exchange.headers.get("If-None-Match") == headers["ETag"]
    modified_matches = (
        "Last-Modified" in headers
        and "If-None-Match" not in exchange.headers
        and exchange.headers.get("If-Modified-Since") is not None
    )
    status = 304 if etag_matches or modified_matches else 200
    body = b"" if status == 304 else json.dumps({"hit": hits_of(exchange)}).encode()
    exchange.send_response_only(status)
    if status == 200:
        headers["Content-Type"] = "application/json"
        headers["Content-Length"] = str(len(body))
    for name, value in headers.items():
        exchange.send_header(name, value)
    exchange.end_headers()
    exchange.wfile.write(body)


@route(r"/cacheable-clock/([^/]+)", methods=["POST"])
def cacheable_clock(exchange, match):
    path = f"/cacheable/{match.group(1)}"
    CLOCK_OFFSETS[path] = CLOCK_OFFSETS.get(path, 0) + float(exchange.query.get("advance", ["0"])[0])
    exchange.send_json(200, {"path": path, "offset": CLOCK_OFFSETS[path]})


@route(r"/large/(\d+)(/[^/]+)?")
def large(exchange, match):
    """A body of the given number of bytes, generated in 1 MiB chunks with a Content-Length, never held whole.

    With ?stall=<ms> it waits that long after the first chunk, so that a test can cancel a transfer midway. With
    ?rate=<MiB/s> it sends no faster than that, as a fast network would (loopback runs at over 1 GiB/s).
    """
    total = int(match.group(1))
    stall = min(int(exchange.query.get("stall", ["0"])[0]), 10_000)
    rate = float(exchange.query.get("rate", ["0"])[0])
    started = time.monotonic()
    chunk = bytes(i % 251 for i in range(1 << 20))
    exchange.send_response(200)
    exchange.send_header("Content-Type", "application/octet-stream")
    exchange.send_header("Content-Length", str(total))
    exchange.end_headers()
    if exchange.command == "HEAD":
        return
    sent = 0
    while sent < total:
        part = chunk[: min(len(chunk), total - sent)]
        exchange.wfile.write(part)
        if sent == 0 and stall:
            exchange.wfile.flush()
            time.sleep(stall / 1000)
        sent += len(part)
        if rate:
            ahead = sent / (rate * (1 << 20)) - (time.monotonic() - started)
            if ahead > 0:
                time.sleep(ahead)


@route(r"/upload/[^/]+", methods=["POST", "PUT"])
def upload(exchange, match):
    """How many bytes the request body had."""
    exchange.send_json(200, {"received": len(exchange.read_whole_body())})
