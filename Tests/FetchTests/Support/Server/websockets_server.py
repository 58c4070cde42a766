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

The server's websockets checks what the client sends: unmasked frames, reserved bits, bad UTF-8 or a bad close
code fail the connection with a close frame, which the client's test sees.
"""
import asyncio
import http
import sys
import threading

from websockets.asyncio.server import serve
from websockets.exceptions import ConnectionClosed

open_connections = set()
handshakes = 0


async def handler(connection):
    path = connection.request.path
    open_connections.add(connection)
    try:
        if path in ("/echo", "/auth", "/subprotocol"):
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
        open_connections.discard(connection)


def process_request(connection, request):
    global handshakes
    if request.path == "/connections":
        return connection.respond(http.HTTPStatus.OK, f"{len(open_connections)}\n")
    if request.path == "/handshakes":
        return connection.respond(http.HTTPStatus.OK, f"{handshakes}\n")
    if request.path == "/auth" and request.headers.get("Authorization") != "Bearer good":
        response = connection.respond(http.HTTPStatus.UNAUTHORIZED, '{"error":true,"reason":"bad token"}')
        response.headers["Content-Type"] = "application/json"
        return response
    handshakes += 1
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
    asyncio.run(main())
