"""Routes for the resilience tests: redirects, flaky endpoints, Retry-After, token refresh."""

import threading
import time

from test_server import route

LOCK = threading.Lock()
SERVED = {}  # path -> answers given so far, for routes that fail their first N requests
TOKENS = {}  # realm -> current token
REFRESHES = {}  # realm -> count


def next_count(path):
    with LOCK:
        SERVED[path] = SERVED.get(path, 0) + 1
        return SERVED[path]


@route(r"/redirect")
def redirect(exchange, match):
    """302 (or ?status=) to ?to=. A request body is read to its end first, then the connection closes after the
    answer: closing on an unread body resets the connection, and a client still sending it (an upload that the
    server's automatic 100 Continue let start) would fail with a broken pipe instead of following the redirect."""
    status = int(exchange.query.get("status", ["302"])[0])
    headers = {"Location": exchange.query["to"][0]}
    if exchange.headers.get("Content-Length", "0") != "0" or exchange.headers.get("Transfer-Encoding"):
        exchange.read_whole_body()
        headers["Connection"] = "close"
        exchange.close_connection = True
    exchange.send(status, b"", headers=headers)


@route(r"/flaky/.+")
def flaky(exchange, match):
    """Fails the first ?fail= requests to this path with ?status= (503), with ?retry_after= if given."""
    count = next_count(exchange.url.path)
    failures = int(exchange.query.get("fail", ["1"])[0])
    if count <= failures:
        status = int(exchange.query.get("status", ["503"])[0])
        headers = {}
        if "retry_after" in exchange.query:
            headers["Retry-After"] = exchange.query["retry_after"][0]
        return exchange.send_json(status, {"error": True, "reason": f"failure {count} of {failures}"}, headers)
    exchange.send_json(200, {"attempt": count})


@route(r"/drop/.+")
def drop(exchange, match):
    """Closes the connection without answering the first ?times= requests to this path, then answers 200."""
    count = next_count(exchange.url.path)
    if count <= int(exchange.query.get("times", ["1"])[0]):
        exchange.close_connection = True
        exchange.connection.shutdown(2)
        return
    exchange.send_json(200, {"attempt": count})


@route(r"/auth/([^/]+)/token", methods=["POST"])
def token(exchange, match):
    """Issues a new token for the realm (after ?delay= ms), counting refreshes; ?fail=1 answers 500 instead."""
    realm = match.group(1)
    time.sleep(int(exchange.query.get("delay", ["0"])[0]) / 1000)
    if exchange.query.get("fail", ["0"])[0] == "1":
        return exchange.send_json(500, {"error": True, "reason": "the token service is down"})
    with LOCK:
        REFRESHES[realm] = REFRESHES.get(realm, 0) + 1
        TOKENS[realm] = f"token-{REFRESHES[realm]}"
        issued = TOKENS[realm]
    exchange.send_json(200, {"token": issued})


@route(r"/auth/([^/]+)/protected")
def protected(exchange, match):
    """200 for `Authorization: Bearer <the realm's current token>`, else 401."""
    realm = match.group(1)
    with LOCK:
        current = TOKENS.get(realm)
    if current is not None and exchange.headers.get("Authorization") == f"Bearer {current}":
        return exchange.send_json(200, {"ok": True, "token": current})
    exchange.send_json(401, {"error": True, "reason": "token expired"}, {"WWW-Authenticate": "Bearer"})


TRACES = {}  # path -> the trace fields of each request to it


@route(r"/traced/.+")
def traced(exchange, match):
    """Records each request's traceparent and tracestate fields; fails the first ?fail= requests to this path with
    503, then answers 200 with every request's fields so far: {"seen": [{"traceparent": …, "tracestate": …}, …]}."""
    path = exchange.url.path
    with LOCK:
        seen = TRACES.setdefault(path, [])
        seen.append(
            {"traceparent": exchange.headers.get("traceparent"), "tracestate": exchange.headers.get("tracestate")}
        )
        count = len(seen)
        answer = list(seen)
    if count <= int(exchange.query.get("fail", ["0"])[0]):
        return exchange.send_json(503, {"error": True, "reason": f"failure {count}"})
    exchange.send_json(200, {"seen": answer})
