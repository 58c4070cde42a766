#!/usr/bin/env python3
"""Checks a HAR file against the HAR 1.2 specification's required fields and types, independently of Fetch.

Usage: validate_har.py FILE. Prints one line per problem, each naming its JSON path, and exits 1 if there is any;
otherwise prints "valid HAR 1.2: <n> entries" and exits 0. Standard library only.

It also checks what Fetch promises of its recordings: the secrets redacted by default are written as REDACTED. Those
are the values of the headers Authorization, Proxy-Authorization, Cookie, Set-Cookie, X-API-Key, Api-Key and
X-Session-Id and of any header whose name contains token, secret, password, passwd, apikey, api-key, api_key or
signature (in any case); of query parameters and keys of JSON bodies at any depth (whatever their mimeType says,
if the text parses as JSON) with those names or pwd, key, code, sig, session_id, sessionid; and of every cookie.

The specification: http://www.softwareishard.com/blog/har-12-spec/ (also w3c.github.io/web-performance/specs/HAR).
"""

import base64
import binascii
import json
import re
import sys
from datetime import datetime
from urllib.parse import urlsplit

# Fetch's one list (Sources/Fetch/Requests/Redaction.swift), kept here independently of it.
SECRET_NAMES = {"authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key", "api-key", "x-session-id"}
SECRET_PARAMETERS = {"pwd", "key", "code", "sig", "session_id", "sessionid"}
SECRET_PARTS = ("token", "secret", "password", "passwd", "apikey", "api-key", "api_key", "signature")
PLACEHOLDER = "REDACTED"


def names_secret(name, parameter=False):
    """Whether `name` is a secret's: as a header field, or as a query parameter or JSON key (`parameter`)."""
    lowered = name.lower()
    if parameter and lowered in SECRET_PARAMETERS:
        return True
    return lowered in SECRET_NAMES or any(part in lowered for part in SECRET_PARTS)


ISO_8601 = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$")


class Checker:
    def __init__(self):
        self.problems = []

    def fail(self, path, message):
        self.problems.append(f"{path}: {message}")

    def field(self, obj, key, path, kind, required=True):
        """The value of obj[key] if it has the kind asked for; records a problem and returns None otherwise."""
        where = f"{path}.{key}" if path else key
        if key not in obj:
            if required:
                self.fail(where, "missing")
            return None
        value = obj[key]
        ok = {
            "string": isinstance(value, str),
            # bool is an int in Python, but not in JSON.
            "integer": isinstance(value, int) and not isinstance(value, bool),
            "number": isinstance(value, (int, float)) and not isinstance(value, bool),
            "boolean": isinstance(value, bool),
            "object": isinstance(value, dict),
            "array": isinstance(value, list),
        }[kind]
        if not ok:
            self.fail(where, f"must be a JSON {kind}, found {type(value).__name__}: {value!r:.60}")
            return None
        return value

    def date_time(self, obj, key, path):
        text = self.field(obj, key, path, "string")
        if text is None:
            return
        if not ISO_8601.match(text):
            self.fail(f"{path}.{key}", f"{text!r} is not ISO 8601 with a time zone (YYYY-MM-DDThh:mm:ss.sssZ)")
            return
        try:
            datetime.fromisoformat(text.replace("Z", "+00:00"))
        except ValueError as error:
            self.fail(f"{path}.{key}", f"{text!r} is not a real date and time: {error}")

    def pairs(self, obj, key, path, cookie=False, parameter=False):
        items = self.field(obj, key, path, "array")
        for index, item in enumerate(items or []):
            where = f"{path}.{key}[{index}]"
            if not isinstance(item, dict):
                self.fail(where, "must be an object")
                continue
            name = self.field(item, "name", where, "string")
            value = self.field(item, "value", where, "string")
            if isinstance(name, str) and isinstance(value, str) and value != PLACEHOLDER:
                if cookie:
                    self.fail(f"{where}.value", f"the cookie {name!r} is not {PLACEHOLDER}")
                elif names_secret(name, parameter):
                    self.fail(f"{where}.value", f"{name!r} names a secret, and its value is not {PLACEHOLDER}")
            if cookie:
                for optional in ("path", "domain", "expires"):
                    self.field(item, optional, where, "string", required=False)
                for optional in ("httpOnly", "secure"):
                    self.field(item, optional, where, "boolean", required=False)

    def request(self, request, path):
        self.field(request, "method", path, "string")
        url = self.field(request, "url", path, "string")
        if url is not None:
            parts = urlsplit(url)
            if not parts.scheme or not parts.netloc:
                self.fail(f"{path}.url", f"{url!r} is not an absolute URL")
        self.field(request, "httpVersion", path, "string")
        self.pairs(request, "cookies", path, cookie=True)
        self.pairs(request, "headers", path)
        self.pairs(request, "queryString", path, parameter=True)
        post = self.field(request, "postData", path, "object", required=False)
        if post is not None:
            where = f"{path}.postData"
            mime = self.field(post, "mimeType", where, "string")
            text = self.field(post, "text", where, "string", required=False)
            self.json_secrets(mime, text, None, f"{where}.text")
            params = self.field(post, "params", where, "array", required=False)
            for index, param in enumerate(params or []):
                if not isinstance(param, dict):
                    self.fail(f"{where}.params[{index}]", "must be an object")
                else:
                    self.field(param, "name", f"{where}.params[{index}]", "string")
        self.field(request, "headersSize", path, "integer")
        self.field(request, "bodySize", path, "integer")

    def response(self, response, path):
        self.field(response, "status", path, "integer")
        self.field(response, "statusText", path, "string")
        self.field(response, "httpVersion", path, "string")
        self.pairs(response, "cookies", path, cookie=True)
        self.pairs(response, "headers", path)
        content = self.field(response, "content", path, "object")
        if content is not None:
            where = f"{path}.content"
            size = self.field(content, "size", where, "integer")
            self.field(content, "mimeType", where, "string")
            text = self.field(content, "text", where, "string", required=False)
            encoding = self.field(content, "encoding", where, "string", required=False)
            if encoding is not None and text is not None:
                if encoding != "base64":
                    self.fail(f"{where}.encoding", f"{encoding!r}: only base64 is defined")
                else:
                    try:
                        decoded = base64.b64decode(text, validate=True)
                        if size is not None and len(decoded) != size:
                            self.fail(f"{where}.size", f"{size}, but the base64 text holds {len(decoded)} bytes")
                    except binascii.Error as error:
                        self.fail(f"{where}.text", f"is not base64: {error}")
            elif text is not None and size is not None and len(text.encode("utf-8")) != size:
                self.fail(f"{where}.size", f"{size}, but the text is {len(text.encode('utf-8'))} bytes")
            self.json_secrets(content.get("mimeType"), text, encoding, f"{where}.text")
        self.field(response, "redirectURL", path, "string")
        self.field(response, "headersSize", path, "integer")
        self.field(response, "bodySize", path, "integer")

    def json_secrets(self, mime, text, encoding, where):
        """A body that parses as JSON, whatever its mimeType, holds REDACTED under every key that names a secret, at
        any depth (walked without recursion)."""
        if not isinstance(text, str) or encoding is not None:
            return
        try:
            body = json.loads(text)
        except (ValueError, RecursionError):
            return
        pending = [body]
        while pending:
            value = pending.pop()
            if isinstance(value, dict):
                for key, member in value.items():
                    if names_secret(key, parameter=True) and member != PLACEHOLDER:
                        self.fail(where, f"the JSON key {key!r} names a secret, and its value is not {PLACEHOLDER}")
                    else:
                        pending.append(member)
            elif isinstance(value, list):
                pending.extend(value)

    def timings(self, timings, path):
        total = 0
        for key in ("send", "wait", "receive"):
            value = self.field(timings, key, path, "number")
            if value is not None:
                if value < 0:
                    self.fail(f"{path}.{key}", f"{value}: send, wait and receive cannot be negative")
                total += value
        for key in ("blocked", "dns", "connect", "ssl"):
            value = self.field(timings, key, path, "number", required=False)
            if value is not None:
                if value < -1:
                    self.fail(f"{path}.{key}", f"{value}: -1 means not applicable, lower is not allowed")
                elif key != "ssl" and value > 0:
                    total += value
        return total

    def archive(self, root):
        if not isinstance(root, dict):
            self.fail("(top level)", f"must be an object, found {type(root).__name__}")
            return 0
        log = self.field(root, "log", "", "object")
        if log is None:
            return 0
        version = self.field(log, "version", "log", "string")
        if version is not None and version != "1.2":
            self.fail("log.version", f"{version!r}, expected '1.2'")
        creator = self.field(log, "creator", "log", "object")
        if creator is not None:
            self.field(creator, "name", "log.creator", "string")
            self.field(creator, "version", "log.creator", "string")
        entries = self.field(log, "entries", "log", "array") or []
        for index, entry in enumerate(entries):
            path = f"log.entries[{index}]"
            if not isinstance(entry, dict):
                self.fail(path, "must be an object")
                continue
            self.date_time(entry, "startedDateTime", path)
            time = self.field(entry, "time", path, "number")
            request = self.field(entry, "request", path, "object")
            if request is not None:
                self.request(request, f"{path}.request")
            response = self.field(entry, "response", path, "object")
            if response is not None:
                self.response(response, f"{path}.response")
            self.field(entry, "cache", path, "object")
            timings = self.field(entry, "timings", path, "object")
            if timings is not None:
                total = self.timings(timings, f"{path}.timings")
                if time is not None and abs(time - total) > 0.001:
                    self.fail(f"{path}.time", f"{time}, but the timings add up to {total}")
        return len(entries)


def main():
    if len(sys.argv) != 2:
        print("usage: validate_har.py FILE", file=sys.stderr)
        return 2
    try:
        with open(sys.argv[1], "rb") as file:
            root = json.load(file)
    except (OSError, ValueError) as error:
        print(f"(file): cannot be read as JSON: {error}")
        return 1
    checker = Checker()
    count = checker.archive(root)
    for problem in checker.problems:
        print(problem)
    if checker.problems:
        return 1
    print(f"valid HAR 1.2: {count} entries")
    return 0


if __name__ == "__main__":
    sys.exit(main())
