"""A second, independent RFC 6455 peer for Fetch's WebSocket tests: Autobahn|Python on asyncio, serving on
127.0.0.1 with scenarios chosen by the request path (a subset of websockets_server.py's).

    python3 -u autobahn_server.py       prints "PORT <n>", serves until its standard input closes

Scenarios:
    /echo            echoes every message, text as text and binary as binary
    /close/<code>    closes at once with <code> and the reason "bye"
    /fragments       sends "Hello, " "fragmented " "world" as one text message in three frames, with a ping between
                     the first two, then closes with 1000

Autobahn checks what the client sends as strictly as its test suite does (masking, UTF-8, close codes), and fails
the connection with a close frame when the client breaks RFC 6455.
"""
import asyncio
import sys
import threading

from autobahn.asyncio.websocket import WebSocketServerFactory, WebSocketServerProtocol

from inherited import close_inherited_sockets


class Scenario(WebSocketServerProtocol):
    def onConnect(self, request):
        self.scenario = request.path
        return None

    def onOpen(self):
        if self.scenario.startswith("/close/"):
            self.sendClose(code=int(self.scenario.rsplit("/", 1)[1]), reason="bye")
        elif self.scenario == "/fragments":
            self.beginMessage(isBinary=False)
            self.sendMessageFrame("Hello, ".encode())
            self.sendPing(b"between fragments")
            self.sendMessageFrame("fragmented ".encode())
            self.sendMessageFrame("world".encode())
            self.endMessage()
            self.sendClose(code=1000)
        elif self.scenario != "/echo":
            self.sendClose(code=1008, reason=f"no scenario {self.scenario}")

    def onMessage(self, payload, isBinary):
        if self.scenario == "/echo":
            self.sendMessage(payload, isBinary)


async def main():
    stopped = asyncio.get_running_loop().create_future()

    def watch_stdin():
        sys.stdin.read()
        stopped.get_loop().call_soon_threadsafe(stopped.set_result, None)

    threading.Thread(target=watch_stdin, daemon=True).start()
    factory = WebSocketServerFactory()
    factory.protocol = Scenario
    factory.setProtocolOptions(maxMessagePayloadSize=0, maxFramePayloadSize=0, autoPingInterval=0)
    server = await asyncio.get_running_loop().create_server(factory, "127.0.0.1", 0)
    print(f"PORT {server.sockets[0].getsockname()[1]}", flush=True)
    await stopped
    server.close()


if __name__ == "__main__":
    close_inherited_sockets()
    asyncio.run(main())
