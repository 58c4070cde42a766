#!/usr/bin/env python3
"""The demo company API that `fetch-example --server` talks to. Python 3 standard library only.

    python3 Examples/FetchExample/demo_server.py --port 8080
    swift run fetch-example --server http://127.0.0.1:8080/

It listens on 127.0.0.1 only and serves the data of demo_data.json beside this file, the same file that the
example's embedded backend (DemoBackend.swift) reads, with the same routes and rules:

    POST /api/users/login        HTTP Basic auth -> {"token": "...", "user": {"id": "<uuid>"}}
    GET  /api/announcements      \
    GET  /api/employees           |
    GET  /api/events              |  need "Authorization: Bearer <token>", else 401
    GET  /api/products            |
    GET  /api/purchases           |
    GET  /api/users/<uuid>        |
    POST /api/purchases          |   a purchase order: validated, then 201 with the new purchase
    GET  /api/notifications      /   Server-Sent Events: "retry:", then one event every intervalMs, then the end;
                                     with Last-Event-ID, the events after it, or 204 when none are left

Errors answer {"error": true, "reason": "..."}. The first line printed is "Serving the demo API on http://...",
with the actual port (pass --port 0 for a free one). With --exit-with-stdin the server also stops when its standard
input closes, so a test that started it cannot leave it behind.
"""

import argparse
import base64
import binascii
import json
import os
import re
import secrets
import sys
import threading
import time
import uuid
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

DATA_FILE = Path(__file__).resolve().parent / "demo_data.json"
LISTS = ("announcements", "employees", "events", "products", "purchases")


class APIError(Exception):
    def __init__(self, status, reason):
        super().__init__(reason)
        self.status = status
        self.reason = reason


class EventStream:
    """A text/event-stream answer: `first` at once, then each of `parts` `interval` seconds after the one before."""

    def __init__(self, first, parts, interval):
        self.first = first
        self.parts = parts
        self.interval = interval


def cents(amount):
    return round(amount * 100)


def parse_date(value, field):
    if not isinstance(value, str):
        raise APIError(422, f"{field} must be an ISO-8601 date such as 2026-12-01T09:00:00Z")
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise APIError(422, f"{field} is not an ISO-8601 date: {json.dumps(value)}") from None


class Backend:
    """The demo API's data and rules; thread-safe."""

    def __init__(self, data):
        self.lock = threading.Lock()
        self.users = data["users"]
        self.lists = {name: list(data[name]) for name in LISTS}
        self.rules = data["rules"]
        self.next_number = self.rules["firstPurchaseNumber"]
        self.tokens = {}  # token -> user id
        notifications = data["notifications"]
        self.notification_interval = notifications["intervalMs"] / 1000
        self.notification_retry = notifications["retryMs"]
        # Each event as it is written; the JSON exactly as DemoBackend.swift writes it (sorted keys, no spaces).
        self.notifications = [
            (
                event["id"],
                f"id: {event['id']}\nevent: {event['event']}\ndata: "
                f"{json.dumps(event['data'], sort_keys=True, separators=(',', ':'), ensure_ascii=False)}\n\n",
            )
            for event in notifications["events"]
        ]

    def handle(self, method, path, headers, body):
        """(status, JSON value) for a request; path without the leading slash."""
        try:
            return self.route(method, path, headers, body)
        except APIError as error:
            return error.status, {"error": True, "reason": error.reason}

    def route(self, method, path, headers, body):
        if path == "api/users/login":
            self.require_method(method, "POST", path)
            return 200, self.log_in(headers.get("Authorization"))
        user_id = self.authorized_user(headers.get("Authorization"))
        if path == "api/notifications":
            self.require_method(method, "GET", path)
            return self.notifications_after(headers.get("Last-Event-ID"))
        if path in (f"api/{name}" for name in LISTS):
            if path == "api/purchases" and method == "POST":
                return 201, self.place_order(user_id, body)
            self.require_method(method, "GET", path)
            with self.lock:
                return 200, list(self.lists[path[len("api/"):]])
        match = re.fullmatch(r"api/users/([^/]+)", path)
        if match:
            self.require_method(method, "GET", path)
            return 200, self.user(match.group(1))
        raise APIError(404, f"no route for {method} /{path}")

    @staticmethod
    def require_method(method, expected, path):
        if method != expected:
            raise APIError(405, f"/{path} answers {expected}, not {method}")

    def log_in(self, authorization):
        scheme, _, credentials = (authorization or "").partition(" ")
        if scheme.lower() != "basic" or not credentials:
            raise APIError(401, "log in with HTTP Basic authentication: Authorization: Basic base64(username:password)")
        try:
            username, separator, password = base64.b64decode(credentials, validate=True).decode("utf-8").partition(":")
        except (binascii.Error, UnicodeDecodeError):
            raise APIError(401, "the Basic credentials are not base64 of UTF-8 username:password") from None
        user = next((user for user in self.users if user["username"] == username), None)
        if not separator or user is None or not secrets.compare_digest(user["password"], password):
            raise APIError(401, "wrong username or password")
        token = secrets.token_urlsafe(24)
        with self.lock:
            self.tokens[token] = user["id"]
        return {"token": token, "user": {"id": user["id"]}}

    def authorized_user(self, authorization):
        scheme, _, token = (authorization or "").partition(" ")
        if scheme.lower() != "bearer" or not token:
            raise APIError(401, "this call needs Authorization: Bearer <token>; log in first (POST api/users/login)")
        with self.lock:
            user_id = self.tokens.get(token)
        if user_id is None:
            raise APIError(401, "unknown or expired token; log in again")
        return user_id

    def notifications_after(self, last_event_id):
        """The notifications after the one with that id (all when None or unknown) as a stream; 204 when none are left."""
        ids = [event_id for event_id, _ in self.notifications]
        start = ids.index(last_event_id) + 1 if last_event_id in ids else 0
        if start >= len(self.notifications):
            return 204, None
        parts = [text.encode("utf-8") for _, text in self.notifications[start:]]
        return 200, EventStream(f"retry: {self.notification_retry}\n\n".encode("utf-8"), parts, self.notification_interval)

    def user(self, key):
        try:
            wanted = uuid.UUID(key)
        except ValueError:
            raise APIError(404, f"no user with id {key}") from None
        for user in self.users:
            if uuid.UUID(user["id"]) == wanted:
                return {name: value for name, value in user.items() if name != "password"}
        raise APIError(404, f"no user with id {key}")

    def place_order(self, user_id, body):
        try:
            order = json.loads(body.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            raise APIError(400, "the purchase order is not JSON") from None
        if not isinstance(order, dict):
            raise APIError(400, "the purchase order must be a JSON object")
        items = order.get("items")
        if not isinstance(items, list) or not items:
            raise APIError(422, "a purchase order needs at least one item")
        prices = {product["id"]: cents(product["price"]) for product in self.lists["products"]}
        total = 0
        for item in items:
            product_id = item.get("productID") if isinstance(item, dict) else None
            quantity = item.get("quantity") if isinstance(item, dict) else None
            if type(product_id) is not int or product_id not in prices:
                raise APIError(422, f"unknown product {product_id}")
            if type(quantity) is not int or not 1 <= quantity <= 999:
                raise APIError(422, f"the quantity of product {product_id} must be between 1 and 999")
            total += prices[product_id] * quantity
        ordered_at = parse_date(order.get("orderedAt"), "orderedAt")
        if order.get("deliverBy") is not None and parse_date(order["deliverBy"], "deliverBy") < ordered_at:
            raise APIError(422, "deliverBy is before orderedAt")
        limit = cents(self.rules["maxPOExpense"])
        if total > limit:
            raise APIError(422, f"the order's total {total / 100:.2f} is above the limit of {limit / 100:.2f}")
        with self.lock:
            purchase = {
                "id": f"PO-{self.next_number}",
                "requestedBy": user_id,
                "items": [{"productID": item["productID"], "quantity": item["quantity"]} for item in items],
                "total": total / 100,
                "orderedAt": order["orderedAt"],
                "deliverBy": order.get("deliverBy"),
                "status": "approved",
            }
            self.next_number += 1
            self.lists["purchases"].append(purchase)
        return purchase


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "FetchExampleDemo/1"
    backend = None  # set in main()
    quiet = False

    def log_message(self, format, *args):
        if not self.quiet:
            sys.stderr.write(f"{self.address_string()} {format % args}\n")

    def handle_any(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        path = urlsplit(self.path).path.lstrip("/")
        status, value = self.backend.handle(self.command, path, self.headers, body)
        if isinstance(value, EventStream):
            self.stream(status, value)
            return
        if value is None:
            self.send_response(status)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        payload = json.dumps(value).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(payload)

    def stream(self, status, answer):
        """Writes an event stream part by part, flushing each, and closes the connection after the last part."""
        self.send_response(status)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        try:
            self.wfile.write(answer.first)
            self.wfile.flush()
            for part in answer.parts:
                time.sleep(answer.interval)
                self.wfile.write(part)
                self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client stopped reading: nothing more to send

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = handle_any


def main():
    parser = argparse.ArgumentParser(description="The demo company API of fetch-example, on 127.0.0.1.")
    parser.add_argument("--port", type=int, default=8080, help="the port to listen on; 0 picks a free one (8080)")
    parser.add_argument("--quiet", action="store_true", help="do not log each request to standard error")
    parser.add_argument("--exit-with-stdin", action="store_true", help="stop when standard input closes")
    arguments = parser.parse_args()

    with DATA_FILE.open(encoding="utf-8") as file:
        Handler.backend = Backend(json.load(file))
    Handler.quiet = arguments.quiet
    server = ThreadingHTTPServer(("127.0.0.1", arguments.port), Handler)
    server.daemon_threads = True
    if arguments.exit_with_stdin:
        threading.Thread(target=lambda: (sys.stdin.buffer.read(), os._exit(0)), daemon=True).start()
    print(f"Serving the demo API on http://127.0.0.1:{server.server_address[1]}/ (Ctrl-C to stop)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
