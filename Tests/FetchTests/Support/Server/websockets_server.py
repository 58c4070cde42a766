"""A strict RFC 6455 peer for Fetch's WebSocket tests: the Python `websockets` package (an independent
implementation), serving on 127.0.0.1 with scenarios chosen by the request path.

    python3 -u websockets_server.py       prints "PORT <n>", serves until its standard input closes

Scenarios:
    /echo            echoes every message, text as text and binary as binary
    /auth            like /echo, but only with "Authorization: Bearer good"; 401 with a JSON body otherwise
    /close/<code>    closes at once with <code> and the reason "bye"
    /ping            pings the client, waits for its pong, then sends "pong received" and closes with 1000
    /flood/<n>       sends <n> text messages "<i>" as fast as the connection takes them, then closes with 1000
    /subprotocol     agrees to the subprotocol "chat.v1" when asked, and sends the one agreed
    /connections     (plain HTTP) how many WebSocket connections are open, as the body
    /handshakes      (plain HTTP) how many opening handshakes this server has answered with 101
    /inspect         sends, as JSON, the client's Sec-WebSocket-Extensions offer and the server's answer; then
                     echoes, except that the text "stats?" is answered with, as JSON, how many data frames came
                     compressed (RSV1) and how many came in all
    /zeros/<n>       sends one binary message of <n> zero bytes (compressed, it is a few bytes per KiB), then echoes

Any path takes ?tag=<t>: /connections?tag=<t> and /handshakes?tag=<t> then count only the connections opened
with that tag, so that a test counts its own while other suites use the same server.

Any path takes ?deflate=<parameters> to choose how the server agrees to permessage-deflate for that connection:
"off" (no compression), or parameters joined with "," from server_no_context_takeover, client_no_context_takeover,
server_max_window_bits=<n>, client_max_window_bits=<n>; without it, websockets' defaults (windows of 2^12 both
ways, context kept).

The server's websockets checks what the client sends: unmasked frames, reserved bits, bad UTF-8 or a bad close
code fail the connection with a close frame, which the client's test sees.
"""
import asyncio
import http
import json
import sys
import threading
from urllib.parse import parse_qs, urlsplit

from websockets.extensions.permessage_deflate import ServerPerMessageDeflateFactory
from websockets.frames import Opcode

from websockets.asyncio.server import serve
from websockets.exceptions import ConnectionClosed

from inherited import close_inherited_sockets

open_connections = {}  # connection -> its ?tag=, or None
handshakes = {}  # tag (None for untagged) -> how many opening handshakes were answered with 101


def tag_of(path):
    """The ?tag= of a request path, or None."""
    return parse_qs(urlsplit(path).query).get("tag", [None])[0]


async def handler(connection):
    path = connection.request.path.split("?", 1)[0]
    open_connections[connection] = tag_of(connection.request.path)
    try:
        if path == "/inspect":
            await inspect(connection)
        elif path.startswith("/zeros/"):
            await connection.send(bytes(int(path.rsplit("/", 1)[1])))
            async for message in connection:
                await connection.send(message)
        elif path in ("/echo", "/auth", "/subprotocol"):
            if path == "/subprotocol":
                await connection.send(connection.subprotocol or "")
            async for message in connection:
                await connection.send(message)
        elif path.startswith("/close/"):
            await connection.close(code=int(path.rsplit("/", 1)[1]), reason="bye")
        elif path == "/ping":
            pong = await connection.ping(b"are you there")
            await asyncio.wait_for(pong, 10)
            await connection.send("pong received")
            await connection.close(code=1000)
        elif path.startswith("/flood/"):
            for index in range(int(path.rsplit("/", 1)[1])):
                await connection.send(str(index))
            await connection.close(code=1000)
        else:
            await connection.close(code=1008, reason=f"no scenario {path}")
    except ConnectionClosed:
        pass
    finally:
        open_connections.pop(connection, None)


async def inspect(connection):
    counts = {"compressed": 0, "frames": 0}
    for extension in connection.protocol.extensions:
        decode = extension.decode

        def counting(frame, *, max_size=None, decode=decode):
            if frame.opcode in (Opcode.TEXT, Opcode.BINARY):
                counts["frames"] += 1
                counts["compressed"] += 1 if frame.rsv1 else 0
            return decode(frame, max_size=max_size)

        extension.decode = counting
    await connection.send(json.dumps({
        "offer": connection.request.headers.get("Sec-WebSocket-Extensions"),
        "answer": connection.response.headers.get("Sec-WebSocket-Extensions"),
    }))
    async for message in connection:
        await connection.send(json.dumps(counts) if message == "stats?" else message)


def deflate_extensions(query):
    """The extension factories that ?deflate= asks for, or None for websockets' defaults."""
    values = parse_qs(query).get("deflate")
    if not values:
        return None
    if values[0] == "off":
        return []
    options = {}
    for parameter in values[0].split(","):
        name, _, value = parameter.partition("=")
        options[name] = int(value) if value else True
    return [ServerPerMessageDeflateFactory(**options)]


def process_request(connection, request):
    extensions = deflate_extensions(urlsplit(request.path).query)
    if extensions is not None:
        connection.protocol.available_extensions = extensions
    path = urlsplit(request.path).path
    tag = tag_of(request.path)
    if path == "/connections":
        count = sum(1 for each in open_connections.values() if tag is None or each == tag)
        return connection.respond(http.HTTPStatus.OK, f"{count}\n")
    if path == "/handshakes":
        count = sum(handshakes.values()) if tag is None else handshakes.get(tag, 0)
        return connection.respond(http.HTTPStatus.OK, f"{count}\n")
    if path == "/auth" and request.headers.get("Authorization") != "Bearer good":
        response = connection.respond(http.HTTPStatus.UNAUTHORIZED, '{"error":true,"reason":"bad token"}')
        response.headers["Content-Type"] = "application/json"
        return response
    handshakes[tag] = handshakes.get(tag, 0) + 1
    return None


async def main():
    stopped = asyncio.get_running_loop().create_future()

    def watch_stdin():
        sys.stdin.read()
        stopped.get_loop().call_soon_threadsafe(stopped.set_result, None)

    threading.Thread(target=watch_stdin, daemon=True).start()
    async with serve(
        # No keepalive pings: a client that is not iterating does not read, so does not answer them (by design), and
        # the tests are not about keepalive.
        handler, "127.0.0.1", 0, process_request=process_request, max_size=None, max_queue=16, ping_interval=None,
        subprotocols=["chat.v1"], select_subprotocol=lambda connection, offered: (
            "chat.v1" if "chat.v1" in offered else None),
    ) as server:
        port = server.sockets[0].getsockname()[1]
        print(f"PORT {port}", flush=True)
        await stopped


if __name__ == "__main__":
    close_inherited_sockets()
    asyncio.run(main())
