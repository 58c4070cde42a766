"""Routes for the request-building tests: they decode what the client sent with Python's own parsers
(urllib.parse for paths, queries and forms, email.parser for multipart bodies) and echo what they saw as JSON."""

import base64
import hashlib
import json
from email import policy
from email.parser import BytesHeaderParser, BytesParser
from urllib.parse import parse_qsl, unquote

from test_server import route

CHUNK = 1 << 20


def body_chunks(exchange):
    """The request body a piece at a time, whether it came with a Content-Length or chunked."""
    if "chunked" not in exchange.headers.get("Transfer-Encoding", "").lower():
        body = exchange.read_body()  # the server has already read a Content-Length body
        if body:
            yield body
        return
    while True:
        size_line = exchange.rfile.readline()
        size = int(size_line.split(b";")[0].strip(), 16)
        if size == 0:
            while exchange.rfile.readline() not in (b"\r\n", b"\n", b""):
                pass  # trailer fields
            return
        remaining = size
        while remaining:
            data = exchange.rfile.read(min(remaining, CHUNK))
            if not data:
                raise ValueError("the body ended inside a chunk")
            remaining -= len(data)
            yield data
        if exchange.rfile.readline() != b"\r\n":
            raise ValueError("a chunk did not end with CRLF")


def decode_utf8(text):
    """Header parameters the email parser read as ASCII with surrogates, back to the UTF-8 the client sent."""
    if text is None:
        return None
    return text.encode("utf-8", "surrogateescape").decode("utf-8")


def part_content_type(part):
    return part.get_content_type() if "content-type" in part else None


def parse_multipart(content_type, body):
    message = BytesParser(policy=policy.HTTP).parsebytes(
        b"Content-Type: " + content_type.encode("latin-1") + b"\r\n\r\n" + body
    )
    boundary = message.get_param("boundary").encode("latin-1")
    parts = []
    for part in message.iter_parts():
        payload = part.get_payload(decode=True) or b""
        parts.append({
            "name": decode_utf8(part.get_param("name", header="content-disposition")),
            "filename": decode_utf8(part.get_filename()),
            "contentType": part_content_type(part),
            "size": len(payload),
            "sha256": hashlib.sha256(payload).hexdigest(),
            "base64": base64.b64encode(payload).decode("ascii"),
            "defects": [type(defect).__name__ for defect in part.defects],
        })
    return {
        "boundary": boundary.decode("latin-1"),
        "parts": parts,
        "defects": [type(defect).__name__ for defect in message.defects],
        "startsWithDelimiter": body.startswith(b"--" + boundary + b"\r\n"),
        "endsWithCloseDelimiter": body.endswith(b"\r\n--" + boundary + b"--\r\n"),
    }


@route(r"/requests/echo(/.*)?")
def echo(exchange, match):
    """The method, path segments, query pairs, headers and decoded body (JSON, form or multipart) of the request."""
    target = exchange.url
    body = b"".join(body_chunks(exchange))
    content_type = exchange.headers.get("Content-Type", "")
    media_type = content_type.split(";")[0].strip().lower()
    seen = {
        "method": exchange.command,
        "target": exchange.path,
        "segments": [unquote(segment, errors="strict") for segment in target.path.split("/")[1:]],
        "query": [list(pair) for pair in parse_qsl(target.query, keep_blank_values=True, strict_parsing=False)],
        "rawQuery": target.query,
        "headers": {name.lower(): value for name, value in exchange.headers.items()},
        "bodySize": len(body),
        "body": body.decode("utf-8", errors="replace"),
    }
    if media_type == "application/json":
        seen["json"] = json.loads(body)
    elif media_type == "application/x-www-form-urlencoded":
        seen["form"] = [list(pair) for pair in parse_qsl(body.decode("ascii"), keep_blank_values=True)]
    elif media_type == "multipart/form-data":
        seen["multipart"] = parse_multipart(content_type, body)
    exchange.send_json(200, seen)


class StreamingParts:
    """Reads a multipart/form-data body as it arrives, hashing each part, so that a large upload is never held in
    memory. Part headers are parsed with email's BytesHeaderParser."""

    def __init__(self, boundary):
        self.delimiter = b"--" + boundary
        self.buffer = b""
        self.state = "delimiter"
        self.parts = []
        self.current = None
        self.closed = False
        self.epilogue = 0

    def feed(self, data):
        self.buffer += data
        while self.step():
            pass

    def step(self):
        if self.state == "delimiter":
            if len(self.buffer) < len(self.delimiter) + 2:
                return False
            if not self.buffer.startswith(self.delimiter):
                raise ValueError(f"expected the delimiter, found {self.buffer[:80]!r}")
            after = self.buffer[len(self.delimiter):len(self.delimiter) + 2]
            self.buffer = self.buffer[len(self.delimiter) + 2:]
            if after == b"--":
                self.state = "close"
            elif after == b"\r\n":
                self.state = "headers"
            else:
                raise ValueError(f"the delimiter is followed by {after!r}")
            return True
        if self.state == "headers":
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                return False
            headers = BytesHeaderParser(policy=policy.HTTP).parsebytes(self.buffer[:end + 4])
            self.current = {
                "name": decode_utf8(headers.get_param("name", header="content-disposition")),
                "filename": decode_utf8(headers.get_filename()),
                "contentType": part_content_type(headers),
                "size": 0,
                "hash": hashlib.sha256(),
            }
            self.buffer = self.buffer[end + 4:]
            self.state = "content"
            return True
        if self.state == "content":
            marker = b"\r\n" + self.delimiter
            end = self.buffer.find(marker)
            if end < 0:
                keep = len(marker) - 1
                if len(self.buffer) > keep:
                    self.take(self.buffer[:-keep])
                    self.buffer = self.buffer[-keep:]
                return False
            self.take(self.buffer[:end])
            part = self.current
            self.parts.append({
                "name": part["name"],
                "filename": part["filename"],
                "contentType": part["contentType"],
                "size": part["size"],
                "sha256": part["hash"].hexdigest(),
            })
            self.buffer = self.buffer[end + 2:]
            self.state = "delimiter"
            return True
        if self.state == "close":
            if len(self.buffer) < 2:
                return False
            if not self.buffer.startswith(b"\r\n"):
                raise ValueError(f"the close delimiter is followed by {self.buffer[:2]!r}")
            self.buffer = self.buffer[2:]
            self.closed = True
            self.state = "epilogue"
            return True
        # epilogue: anything after the close delimiter's CRLF
        self.epilogue += len(self.buffer)
        self.buffer = b""
        return False

    def take(self, data):
        self.current["size"] += len(data)
        self.current["hash"].update(data)


@route(r"/requests/upload-digest", methods=["POST"])
def upload_digest(exchange, match):
    """A multipart upload parsed as it streams in: each part's name, filename, content type, size and SHA-256."""
    message = BytesHeaderParser(policy=policy.HTTP).parsebytes(
        b"Content-Type: " + exchange.headers.get("Content-Type", "").encode("latin-1") + b"\r\n\r\n"
    )
    boundary = message.get_param("boundary")
    if message.get_content_type() != "multipart/form-data" or not boundary:
        return exchange.send_json(400, {"error": True, "reason": "expected multipart/form-data with a boundary"})
    parser = StreamingParts(boundary.encode("latin-1"))
    received = 0
    for chunk in body_chunks(exchange):
        received += len(chunk)
        parser.feed(chunk)
    exchange.send_json(200, {
        "contentLength": exchange.headers.get("Content-Length"),
        "transferEncoding": exchange.headers.get("Transfer-Encoding"),
        "bytesReceived": received,
        "parts": parser.parts,
        "closed": parser.closed,
        "epilogue": parser.epilogue,
    })


@route(r"/requests/file-digest")
def file_digest(exchange, match):
    """The size and SHA-256 of a file on this machine, so a test can compare an upload with its source."""
    path = exchange.query.get("path", [""])[0]
    digest = hashlib.sha256()
    size = 0
    with open(path, "rb") as file:
        while data := file.read(CHUNK):
            size += len(data)
            digest.update(data)
    exchange.send_json(200, {"size": size, "sha256": digest.hexdigest()})


@route(r"/requests/cookies/([\w-]+)/set")
def set_cookie(exchange, match):
    """200 with Set-Cookie: user=<?user>, scoped to /requests/cookies/<id>, so that no other test's request gets it."""
    user = exchange.query.get("user", ["A"])[0]
    cookie = f"user={user}; Path=/requests/cookies/{match.group(1)}"
    exchange.send_json(200, {"set": cookie}, headers={"Set-Cookie": cookie})


@route(r"/requests/cookies/([\w-]+)/seen")
def seen_cookies(exchange, match):
    """Every Cookie field of the request as it arrived, each apart and in order: {"cookies": ["user=B"]}."""
    exchange.send_json(200, {"cookies": exchange.headers.get_all("Cookie") or []})


@route(r"/requests/cookies/([\w-]+)/guarded")
def guarded_by_cookie(exchange, match):
    """200 for Authorization: Bearer good, or for a request that carries the set route's cookie (a login cookie, as
    Jupyter Server's); 403 for any other: {"cookies": [...]} either way."""
    cookies = exchange.headers.get_all("Cookie") or []
    if exchange.headers.get("Authorization") == "Bearer good" or any("user=" in c for c in cookies):
        return exchange.send_json(200, {"cookies": cookies})
    exchange.send_json(403, {"error": True, "reason": "a wrong token and no login cookie", "cookies": cookies})
