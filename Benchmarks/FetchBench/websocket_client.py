"""fetch-bench's reference WebSocket client: the Python `websockets` package (asyncio client), at its best.

Run by fetch-bench as a child process that stays for a whole row, so that Python's start-up is never timed:

    python3 websocket_client.py ws://127.0.0.1:PORT/echo 32
    python3 websocket_client.py ws://127.0.0.1:PORT/flood/32 32

It opens one connection (no compression, as fetch-bench's server offers none), prints `ready`, then reads commands
from standard input, one a line, and answers each with one line:

    echo N    N round trips of a text message of the given size, one after the other -> seconds taken
    flood N   asks a /flood/<bytes> server for N messages and reads them             -> seconds taken

An empty line or end of input closes the connection and exits. Any failure prints `error: <what>` and exits 1.
"""

import asyncio
import sys
import time

try:
    from websockets.asyncio.client import connect
except ImportError:  # websockets before 13: the same client under its older name
    try:
        from websockets import connect
    except ImportError:
        print("error: the websockets package is not installed (python3 -m pip install websockets)", flush=True)
        sys.exit(1)


async def main(url, size):
    message = "x" * size
    loop = asyncio.get_running_loop()
    async with connect(url, compression=None, max_size=None, ping_interval=None) as socket:
        print("ready", flush=True)
        while True:
            line = await loop.run_in_executor(None, sys.stdin.readline)
            parts = line.split()
            if len(parts) != 2:
                return
            count = int(parts[1])
            if parts[0] == "echo":
                start = time.perf_counter()
                for _ in range(count):
                    await socket.send(message)
                    await socket.recv()
            else:
                start = time.perf_counter()
                await socket.send(str(count))
                for _ in range(count):
                    await socket.recv()
            print(f"{time.perf_counter() - start:.9f}", flush=True)


if __name__ == "__main__":
    try:
        asyncio.run(main(sys.argv[1], int(sys.argv[2])))
    except Exception as error:  # the row says what failed instead of failing the run
        print(f"error: {type(error).__name__}: {error}", flush=True)
        sys.exit(1)
