#!/usr/bin/env python3
"""The HTTP server that Fetch's tests talk to, on loopback only.

Started by the Swift tests (Tests/FetchTests/Support/TestServer.swift): it listens on 127.0.0.1, and on the same
free port of ::1 where the machine has IPv6 loopback, so that http://127.0.0.1:<port> and http://localhost:<port> are
two origins of one server (for redirect tests) whichever address localhost resolves to first. It prints "PORT <n>" on its first line, and exits as soon as its
standard input closes, which happens when the test process ends, however it ends. Standard library only.

Routes live in the modules routes_*.py beside this file, one per feature; each registers handlers with @route.
Every request is counted per path; GET /_hits?path=/x answers {"path": "/x", "hits": n}, so tests can check how
many requests reached the server (use a unique path per test).
"""

import errno
import importlib.util
import json
import os
import re
import socket
import socketserver
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from inherited import close_inherited_sockets

ROUTES = []  # (compiled pattern, set of methods or None, handler)
HITS = {}
HITS_LOCK = threading.Lock()


def route(pattern, methods=None):
    """Registers handler(exchange, match) for paths that fully match the regular expression `pattern`."""

    def register(handler):
        ROUTES.append((re.compile(pattern), set(methods) if methods else None, handler))
        return handler

    return register


class Exchange(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "FetchTestServer/1"

    def log_message(self, format, *args):  # keep test output quiet
        pass

    # What the handlers read.
    @property
    def url(self):
        return urlsplit(self.path)

    @property
    def query(self):
        return parse_qs(self.url.query, keep_blank_values=True)

    def read_body(self):
        if not hasattr(self, "_body"):
            length = int(self.headers.get("Content-Length") or 0)
            self._body = self.rfile.read(length) if length else b""
        return self._body

    def read_whole_body(self):
        """The request body, whether it came with a Content-Length (read already) or chunked (a streamed upload on
        Linux), for routes that answer with what they received."""
        if "chunked" not in self.headers.get("Transfer-Encoding", "").lower():
            return self.read_body()
        pieces = []
        while True:
            size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
            if size == 0:
                while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                    pass
                break
            pieces.append(self.rfile.read(size))
            self.rfile.readline()
        self._body = b"".join(pieces)
        return self._body

    # What the handlers answer with.
    def send(self, status, body=b"", content_type="application/json", headers=None):
        self.send_response(status)
        no_body = status in (204, 304) or 100 <= status < 200
        if not no_body:
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD" and not no_body:
            self.wfile.write(body)

    def send_json(self, status, value, headers=None):
        self.send(status, json.dumps(value).encode(), headers=headers)

    def handle_any(self):
        # One handler serves every request of a keep-alive connection: forget the previous request's body.
        self.__dict__.pop("_body", None)
        path = self.url.path
        try:
            self.read_body()
            if path == "/_hits":
                asked = self.query.get("path", [""])[0]
                with HITS_LOCK:
                    return self.send_json(200, {"path": asked, "hits": HITS.get(asked, 0)})
            with HITS_LOCK:
                HITS[path] = HITS.get(path, 0) + 1
            for pattern, methods, handler in ROUTES:
                match = pattern.fullmatch(path)
                if match and (methods is None or self.command in methods):
                    return handler(self, match)
            return self.send_json(404, {"error": True, "reason": f"no route for {self.command} {path}"})
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a timeout or cancellation test): nothing to answer

    def __getattr__(self, name):
        # do_GET, do_POST, do_PURGE, ...: every method goes through the routes.
        if name.startswith("do_"):
            return self.handle_any
        raise AttributeError(name)


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256

    def handle_error(self, request, client_address):
        error = sys.exc_info()[1]
        if not isinstance(error, (BrokenPipeError, ConnectionResetError)):
            super().handle_error(request, client_address)


def load_routes():
    for module_path in sorted(Path(__file__).parent.glob("routes_*.py")):
        spec = importlib.util.spec_from_file_location(module_path.stem, module_path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)


def exit_when_stdin_closes():
    sys.stdin.buffer.read()
    os._exit(0)


class Server6(Server):
    address_family = socket.AF_INET6

    def server_bind(self):
        # HTTPServer.server_bind looks up the host's name, which can wait on DNS; nothing here uses it.
        socketserver.TCPServer.server_bind(self)
        self.server_name, self.server_port = "localhost", self.server_address[1]


def serve():
    first = Server(("127.0.0.1", 0), Exchange)
    port = first.server_address[1]
    servers = [first]
    try:
        servers.append(Server6(("::1", port), Exchange))
    except OSError as error:
        if error.errno == errno.EADDRINUSE:
            first.server_close()
            raise
        # No IPv6 loopback on this machine (EADDRNOTAVAIL, EAFNOSUPPORT): localhost is 127.0.0.1 alone.
    for server in servers[1:]:
        threading.Thread(target=server.serve_forever, daemon=True).start()
    print(f"PORT {port}", flush=True)
    first.serve_forever()


def main():
    sys.modules.setdefault("test_server", sys.modules[__name__])
    load_routes()
    threading.Thread(target=exit_when_stdin_closes, daemon=True).start()
    for attempt in range(20):
        try:
            return serve()
        except OSError as error:  # the port was free on 127.0.0.1 but taken on ::1: pick another
            if error.errno != errno.EADDRINUSE:
                raise
    raise SystemExit("no port is free on both 127.0.0.1 and ::1")


if __name__ == "__main__":
    close_inherited_sockets()
    main()
