#!/usr/bin/env python3
"""A loopback WebSocket server (RFC 6455) for the libcurl WebSocket tests: python3 websocket_server.py [CERT KEY].

With CERT and KEY it speaks TLS with that certificate. It listens on 127.0.0.1 on a free port, prints "PORT <n>" on
its first line, and exits as soon as its standard input closes. Standard library only; one thread per connection.

Scenarios, chosen by the request path (query parameters after `?`):
  /echo                 echoes every text and binary message; answers pings; echoes a close and closes.
  /close?code=&reason=  sends a close frame with that code and reason, waits for the client's close, and closes.
  /drop                 closes the socket right after the handshake, without a close frame.
  /ping                 pings with payload "are you there", waits for the pong, and sends its payload back as a
                        text message "pong:<payload>"; then echoes.
  /status/<n>           answers <n> with a JSON body (?chunked=1: chunked).
  /bad-accept           answers 101 with a wrong Sec-WebSocket-Accept.
  /silent               reads the handshake and never answers (until the client goes away).
  /deaf                 completes the handshake, then reads and ignores everything (a close included).
  /raw?hex=             sends the bytes given in hex after the handshake, then reads what the client sends.
  /flood?id=            sends binary messages of 64 KiB, up to 100 MiB, until the client has read nothing for
                        0.5 s; records the bytes it sent (as [n]).
  /report?id=           sends, as one text message of JSON, what the connection opened with ?id=<id> recorded:
                        {"report": [code, reason]} for the client's close ([] for an empty one), {"report": null}
                        for none (after waiting up to 5 s for it), and closes.
  /ping-flood?count=    stops reading, sends <count> pings of 125 bytes (each payload different), then a text
                        message "done", and keeps reading nothing for 30 s: the client's writes block.
  /count                sends the number of connections open right now (this one excluded) as a text message.
Any scenario that completes the handshake answers it with a Sec-WebSocket-Protocol field for each ?protocol=, and
a Sec-WebSocket-Extensions field for each ?extensions= (whatever the client offered: this server never compresses,
so /raw sends compressed frames as given).
Every scenario but /report and /count records the client's close frame under its ?id=.
"""

import base64
import hashlib
import json
import os
import socket
import ssl
import struct
import sys
import threading
import time
from urllib.parse import parse_qs, urlsplit

from inherited import close_inherited_sockets

GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
REPORTS = {}
LOCK = threading.Condition()
OPEN = [0]


def read_exactly(conn, count):
    data = b""
    while len(data) < count:
        chunk = conn.recv(count - len(data))
        if not chunk:
            raise EOFError()
        data += chunk
    return data


def read_frame(conn):
    """One frame from the client: (fin, opcode, payload); the client must mask."""
    first, second = read_exactly(conn, 2)
    length = second & 0x7F
    if length == 126:
        length = struct.unpack("!H", read_exactly(conn, 2))[0]
    elif length == 127:
        length = struct.unpack("!Q", read_exactly(conn, 8))[0]
    if not second & 0x80:
        raise ValueError("an unmasked client frame")
    mask = read_exactly(conn, 4)
    masked = read_exactly(conn, length)
    keys = (mask * (length // 4 + 1))[:length]
    payload = (int.from_bytes(masked, "big") ^ int.from_bytes(keys, "big")).to_bytes(length, "big")
    return bool(first & 0x80), first & 0x0F, payload


def frame(opcode, payload=b""):
    length = len(payload)
    if length < 126:
        head = struct.pack("!BB", 0x80 | opcode, length)
    elif length < 65536:
        head = struct.pack("!BBH", 0x80 | opcode, 126, length)
    else:
        head = struct.pack("!BBQ", 0x80 | opcode, 127, length)
    return head + payload


def close_payload(code, reason=""):
    return struct.pack("!H", code) + reason.encode()


def read_message(conn):
    """The next data message (opcode, payload), answering pings; ("close", payload) for a close."""
    opcode, parts = None, []
    while True:
        fin, op, payload = read_frame(conn)
        if op == 9:
            conn.sendall(frame(10, payload))
            continue
        if op == 10:
            continue
        if op == 8:
            return "close", payload
        if op != 0:
            opcode = op
        parts.append(payload)
        if fin:
            return opcode, b"".join(parts)


def record_close(run_id, payload):
    if run_id is None:
        return
    value = None
    if len(payload) >= 2:
        value = [struct.unpack("!H", payload[:2])[0], payload[2:].decode("utf-8", "replace")]
    elif payload == b"":
        value = []
    with LOCK:
        REPORTS[run_id] = value
        LOCK.notify_all()


def echo(conn, run_id):
    while True:
        opcode, payload = read_message(conn)
        if opcode == "close":
            record_close(run_id, payload)
            conn.sendall(frame(8, payload[:2]))
            return
        conn.sendall(frame(opcode, payload))


def await_close(conn, run_id):
    """Reads frames until the client's close, and records it."""
    while True:
        opcode, payload = read_message(conn)
        if opcode == "close":
            record_close(run_id, payload)
            return


def read_head(conn):
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(4096)
        if not chunk or len(data) > 65536:
            raise EOFError()
        data += chunk
    head = data.split(b"\r\n\r\n", 1)[0].decode("latin-1")
    lines = head.split("\r\n")
    target = lines[0].split(" ")[1]
    fields = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        fields[name.strip().lower()] = value.strip()
    return target, fields


def handle(conn):
    with LOCK:
        OPEN[0] += 1
    try:
        serve(conn)
    except (EOFError, OSError, ValueError):
        pass
    finally:
        with LOCK:
            OPEN[0] -= 1
        try:
            conn.close()
        except OSError:
            pass


def serve(conn):
    target, fields = read_head(conn)
    url = urlsplit(target)
    query = {name: values[0] for name, values in parse_qs(url.query).items()}
    path = url.path
    run_id = query.get("id")
    if path.startswith("/status/"):
        status = int(path.split("/")[2])
        body = json.dumps({"error": "refused", "status": status}).encode()
        if query.get("chunked"):
            half = len(body) // 2
            chunks = b"%x\r\n%s\r\n%x\r\n%s\r\n0\r\n\r\n" % (half, body[:half], len(body) - half, body[half:])
            conn.sendall(
                b"HTTP/1.1 %d Refused\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n%s"
                % (status, chunks))
        else:
            conn.sendall(
                b"HTTP/1.1 %d Refused\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s"
                % (status, len(body), body))
        return
    if path == "/silent":
        while conn.recv(4096):
            pass
        return
    key = fields.get("sec-websocket-key", "").encode()
    accept = base64.b64encode(hashlib.sha1(key + GUID).digest())
    if path == "/bad-accept":
        accept = base64.b64encode(hashlib.sha1(b"wrong" + GUID).digest())
    chosen = b"".join(b"Sec-WebSocket-Protocol: %s\r\n" % name.encode() for name in parse_qs(url.query).get("protocol", []))
    chosen += b"".join(
        b"Sec-WebSocket-Extensions: %s\r\n" % value.encode() for value in parse_qs(url.query).get("extensions", []))
    conn.sendall(
        b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        b"Sec-WebSocket-Accept: %s\r\n%s\r\n" % (accept, chosen))
    if path == "/bad-accept":
        return
    if path == "/echo":
        echo(conn, run_id)
    elif path == "/close":
        conn.sendall(frame(8, close_payload(int(query.get("code", "1000")), query.get("reason", ""))))
        await_close(conn, run_id)
    elif path == "/deaf":
        while conn.recv(4096):
            pass
    elif path == "/drop":
        conn.shutdown(socket.SHUT_RDWR)
    elif path == "/ping":
        conn.sendall(frame(9, b"are you there"))
        while True:
            _, op, payload = read_frame(conn)
            if op == 10:
                break
        conn.sendall(frame(1, b"pong:" + payload))
        echo(conn, run_id)
    elif path == "/flood":
        message = frame(2, b"f" * 65536)
        sent = 0
        conn.settimeout(0.5)
        try:
            while sent < 100 * 1024 * 1024:
                sent += conn.send(message[sent % len(message):])
        except socket.timeout:
            pass
        with LOCK:
            REPORTS[run_id] = [sent]
            LOCK.notify_all()
        conn.settimeout(None)
        await_close(conn, None)
    elif path == "/ping-flood":
        count = int(query.get("count", "1000"))
        conn.sendall(b"".join(frame(9, b"%0125d" % index) for index in range(count)))
        conn.sendall(frame(1, b"done"))
        time.sleep(30)
    elif path == "/raw":
        conn.sendall(bytes.fromhex(query.get("hex", "")))
        await_close(conn, run_id)
    elif path == "/report":
        with LOCK:  # the client may still be closing the connection it asks about: wait a little for it
            LOCK.wait_for(lambda: run_id in REPORTS, timeout=5)
            report = {"report": REPORTS.get(run_id)}
        conn.sendall(frame(1, json.dumps(report).encode()))
        await_close(conn, None)
    elif path == "/count":
        with LOCK:
            count = OPEN[0] - 1
        conn.sendall(frame(1, str(count).encode()))
        await_close(conn, None)


def main():
    context = None
    if len(sys.argv) == 3:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(sys.argv[1], sys.argv[2])
    threading.Thread(target=lambda: (sys.stdin.buffer.read(), os._exit(0)), daemon=True).start()
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(256)
    print(f"PORT {listener.getsockname()[1]}", flush=True)
    while True:
        conn, _ = listener.accept()
        threading.Thread(target=accept, args=(conn, context), daemon=True).start()


def accept(conn, context):
    if context is not None:
        try:
            conn = context.wrap_socket(conn, server_side=True)
        except (ssl.SSLError, OSError):
            conn.close()
            return
    handle(conn)


if __name__ == "__main__":
    close_inherited_sockets()
    main()
