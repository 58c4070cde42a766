#!/usr/bin/env python3
"""The HTTP server that Fetch's tests talk to, on loopback only.

Started by the Swift tests (Tests/FetchTests/Support/TestServer.swift): it binds 127.0.0.1 on a free port, prints
"PORT <n>" on its first line, and exits as soon as its standard input closes, which happens when the test process
ends, however it ends. Standard library only.

Routes (any method unless noted):
  GET  /users                a JSON array of users
  GET  /users/<id>           a user, or 404 {"error": true, "reason": "..."}
       /echo                 what the server received: method, path, query, headers (lowercased names), body
       /status/<code>        that status, with a JSON error body (none for 204, 304 and HEAD)
       /delay/<ms>           answers after <ms> milliseconds (at most 10 s)
       /text?charset=&text=  the text, encoded in the charset, with that charset in Content-Type
       /bytes/<n>            n bytes of binary data
       /closed-port          {"port": n}: a port on 127.0.0.1 that nothing listens on
"""

import json
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

USERS = {
    1: {"id": 1, "name": "Ada Lovelace", "createdAt": "2026-11-30T08:42:12.345Z"},
    2: {"id": 2, "name": "Grace Hopper", "createdAt": "2026-11-30T08:42:12Z"},
}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "FetchTestServer/1"

    def log_message(self, format, *args):  # keep test output quiet
        pass

    def send(self, status, body=b"", content_type="application/json", headers=None):
        self.send_response(status)
        if status not in (204, 304):
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD" and status not in (204, 304):
            self.wfile.write(body)

    def send_json(self, status, value, headers=None):
        self.send(status, json.dumps(value).encode(), headers=headers)

    def read_body(self):
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def handle_any(self):
        url = urlsplit(self.path)
        parts = [p for p in url.path.split("/") if p]
        query = parse_qs(url.query, keep_blank_values=True)
        body = self.read_body()
        route = parts[0] if parts else ""
        try:
            if route == "users" and len(parts) == 1:
                return self.send_json(200, list(USERS.values()))
            if route == "users" and len(parts) == 2:
                user = USERS.get(int(parts[1])) if parts[1].isdigit() else None
                if user is None:
                    return self.send_json(404, {"error": True, "reason": f"no user with id {parts[1]}"})
                return self.send_json(200, user)
            if route == "echo":
                return self.send_json(200, {
                    "method": self.command,
                    "path": url.path,
                    "query": {k: v for k, v in query.items()},
                    "headers": {k.lower(): v for k, v in self.headers.items()},
                    "body": body.decode("utf-8", errors="replace"),
                })
            if route == "status" and len(parts) == 2:
                code = int(parts[1])
                if code in (204, 304):
                    return self.send(code)
                return self.send_json(code, {"error": True, "reason": f"status {code} as asked"})
            if route == "delay" and len(parts) == 2:
                milliseconds = min(int(parts[1]), 10_000)
                time.sleep(milliseconds / 1000)
                return self.send_json(200, {"delayed": milliseconds})
            if route == "text":
                charset = query.get("charset", ["utf-8"])[0]
                text = query.get("text", [""])[0]
                return self.send(200, text.encode(charset), content_type=f"text/plain; charset={charset}")
            if route == "bytes" and len(parts) == 2:
                count = int(parts[1])
                return self.send(200, bytes(i % 256 for i in range(count)), content_type="application/octet-stream")
            if route == "closed-port":
                with socket.socket() as probe:
                    probe.bind(("127.0.0.1", 0))
                    port = probe.getsockname()[1]
                return self.send_json(200, {"port": port})
            return self.send_json(404, {"error": True, "reason": f"no route for {self.command} {url.path}"})
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a timeout or cancellation test): nothing to answer

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = do_PURGE = handle_any


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128

    def handle_error(self, request, client_address):
        error = sys.exc_info()[1]
        if not isinstance(error, (BrokenPipeError, ConnectionResetError)):
            super().handle_error(request, client_address)


def exit_when_stdin_closes():
    sys.stdin.buffer.read()
    import os
    os._exit(0)


def main():
    server = Server(("127.0.0.1", 0), Handler)
    threading.Thread(target=exit_when_stdin_closes, daemon=True).start()
    print(f"PORT {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
