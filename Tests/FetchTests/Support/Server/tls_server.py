#!/usr/bin/env python3
"""A loopback HTTPS server for the libcurl transport's TLS tests: python3 tls_server.py CERT KEY [DELAY_MS].

With DELAY_MS, it waits that long after accepting each connection before it reads the client's TLS handshake. It serves the certificate CERT (with its key KEY) on 127.0.0.1 on a free port, prints
"PORT <n>" on its first line, answers every GET with {"tls": true, "path": ...}, and exits as soon as its standard
input closes. Standard library only.
"""

import json
import os
import ssl
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from inherited import close_inherited_sockets


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):
        pass

    def do_GET(self):
        body = json.dumps({"tls": True, "path": self.path}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        pass  # failed handshakes are what some tests expect


class SlowHandshakeServer(Server):
    """Accepts plain connections and does each TLS handshake in the connection's own thread, after a delay."""

    context = None
    delay = 0.0

    def finish_request(self, request, client_address):
        time.sleep(self.delay)
        tls = self.context.wrap_socket(request, server_side=True)
        try:
            self.RequestHandlerClass(tls, client_address, self)
        finally:
            tls.close()


def main():
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(sys.argv[1], sys.argv[2])
    threading.Thread(target=lambda: (sys.stdin.buffer.read(), os._exit(0)), daemon=True).start()
    if len(sys.argv) > 3:
        server = SlowHandshakeServer(("127.0.0.1", 0), Handler)
        server.context = context
        server.delay = int(sys.argv[3]) / 1000
    else:
        server = Server(("127.0.0.1", 0), Handler)
        server.socket = context.wrap_socket(server.socket, server_side=True)
    print(f"PORT {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    close_inherited_sockets()
    main()
