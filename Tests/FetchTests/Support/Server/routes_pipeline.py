"""Routes for the pipeline's tests: large JSON bodies to decode in parallel."""

import json

from test_server import route

ARRAYS = {}  # count -> encoded body, made once


@route(r"/json-array/(\d+)")
def json_array(exchange, match):
    """A JSON array of the given number of integers (at most 1,000,000)."""
    count = min(int(match.group(1)), 1_000_000)
    body = ARRAYS.get(count)
    if body is None:
        body = ARRAYS[count] = json.dumps(list(range(count))).encode()
    exchange.send_response(200)
    exchange.send_header("Content-Type", "application/json")
    exchange.send_header("Content-Length", str(len(body)))
    exchange.end_headers()
    exchange.wfile.write(body)
