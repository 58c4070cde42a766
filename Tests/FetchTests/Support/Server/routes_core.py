"""Routes for the core library's tests: models, echo, statuses, delays, charsets."""

import socket
import threading
import time

from test_server import route

USERS = {
    1: {"id": 1, "name": "Ada Lovelace", "createdAt": "2026-11-30T08:42:12.345Z"},
    2: {"id": 2, "name": "Grace Hopper", "createdAt": "2026-11-30T08:42:12Z"},
}


@route(r"/users")
def users(exchange, match):
    exchange.send_json(200, list(USERS.values()))


@route(r"/users/([^/]+)")
def user(exchange, match):
    key = match.group(1)
    found = USERS.get(int(key)) if key.isdigit() else None
    if found is None:
        return exchange.send_json(404, {"error": True, "reason": f"no user with id {key}"})
    exchange.send_json(200, found)


@route(r"/echo(/.*)?")
def echo(exchange, match):
    """What the server received: method, path, query, headers (lowercased names) and body."""
    exchange.send_json(200, {
        "method": exchange.command,
        "path": exchange.url.path,
        "query": exchange.query,
        "headers": {name.lower(): value for name, value in exchange.headers.items()},
        "body": exchange.read_whole_body().decode("utf-8", errors="replace"),
    })


@route(r"/headers/received")
def received_headers(exchange, match):
    """The request's X- and Cookie field lines as the server read them: in order, repeated ones apart."""
    exchange.send_json(200, [[name, value] for name, value in exchange.headers.items()
                             if name.lower().startswith("x-") or name.lower() == "cookie"])


@route(r"/status/(\d+)/(\d+)")
def status_with_body(exchange, match):
    """A status with a body of that many bytes (at most 8 MiB): for error bodies larger than a client keeps."""
    exchange.send(int(match.group(1)), b"e" * min(int(match.group(2)), 8 << 20), content_type="text/plain")


@route(r"/status/(\d+)")
def status(exchange, match):
    code = int(match.group(1))
    if code in (204, 304):
        return exchange.send(code)
    exchange.send_json(code, {"error": True, "reason": f"status {code} as asked"})


@route(r"/xml/(\d+)")
def xml(exchange, match):
    """An XML API: a feed for 200, an error document with a request id and Retry-After otherwise."""
    code = int(match.group(1))
    if code == 200:
        body = b"<feed><title>Ada</title></feed>"
        return exchange.send(200, body, content_type="application/xml")
    body = f"<error><code>{code}</code><message>no such feed</message></error>".encode()
    exchange.send(code, body, content_type="application/xml",
                  headers={"X-Request-Id": "req-8f2c", "Retry-After": "120"})


@route(r"/delay/(\d+)")
def delay(exchange, match):
    milliseconds = min(int(match.group(1)), 10_000)
    time.sleep(milliseconds / 1000)
    exchange.send_json(200, {"delayed": milliseconds})


@route(r"/text")
def text(exchange, match):
    charset = exchange.query.get("charset", ["utf-8"])[0]
    body = exchange.query.get("text", [""])[0]
    exchange.send(200, body.encode(charset), content_type=f"text/plain; charset={charset}")


@route(r"/bytes/(\d+)")
def some_bytes(exchange, match):
    count = int(match.group(1))
    exchange.send(200, bytes(i % 256 for i in range(count)), content_type="application/octet-stream")


@route(r"/free-port")
def free_port(exchange, match):
    """A port on 127.0.0.1 that was free a moment ago, for a server a test starts (nginx)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    exchange.send_json(200, {"port": port})


_closed_port_holder = []
_closed_port_lock = threading.Lock()


@route(r"/closed-port")
def closed_port(exchange, match):
    """A port on 127.0.0.1 that nothing listens on, and nothing can: a socket of the server's own stays bound to it,
    without listening, for the server's life. A port freed at once could be given to a server another test starts,
    which would answer the connection meant to be refused."""
    with _closed_port_lock:
        if not _closed_port_holder:
            holder = socket.socket()
            holder.bind(("127.0.0.1", 0))
            _closed_port_holder.append(holder)
        port = _closed_port_holder[0].getsockname()[1]
    exchange.send_json(200, {"port": port})


@route(r"/headers/repeated")
def repeated_headers(exchange, match):
    """Two Set-Cookie fields whose Expires dates hold commas, a lowercase name, and a repeated Link, in this order."""
    body = b"{}"
    exchange.send_response(200)
    exchange.send_header("Content-Type", "application/json")
    exchange.send_header("Content-Length", str(len(body)))
    exchange.send_header("Set-Cookie", "a=1; Expires=Wed, 21 Oct 2037 07:28:00 GMT; Path=/")
    exchange.send_header("x-amz-date", "20370101T000000Z")
    exchange.send_header("Link", "</one>; rel=next")
    exchange.send_header("Set-Cookie", "b=2; Expires=Thu, 22 Oct 2037 07:28:00 GMT")
    exchange.send_header("Link", "</two>; rel=last")
    exchange.end_headers()
    exchange.wfile.write(body)


@route(r"/closing(/.*)?")
def closing(exchange, match):
    """Answers and closes the connection (Connection: close), so that no call can reuse it."""
    exchange.send_json(200, {"closing": True}, headers={"Connection": "close"})
