"""A deliberately misbehaving MCP *HTTP* server (stdlib only) for mcpdeck's integration tests.

    python3 tests/servers/fake_http.py MODE [--delay SECONDS]

Startup contract
  Binds 127.0.0.1 on a random free port, prints exactly `PORT <n>` as the first stdout line (flushed),
  then serves until SIGTERM/SIGINT (exit status 0). Nothing else is written to stdout; stderr stays quiet
  except for unexpected handler exceptions. HTTP/1.1 with keep-alive; JSON and empty bodies carry
  Content-Length. SSE bodies are `Content-Type: text/event-stream`, `Cache-Control: no-cache`,
  `Connection: close`, no Content-Length, flushed after every event, and the connection is closed when
  the stream ends. Handler threads are daemons, so sleeping/streaming handlers never delay exit.

Test hooks (every mode)
  GET  /_log    JSON list of every other request received, in arrival order: {"method", "path" (with
                query), "headers" (dict, lower-case names), "body" (text, invalid UTF-8 replaced),
                "time" (unix seconds)}; a resume GET in sse-drop mode also has "resume_delay_ms".
                Requests are logged as soon as their body has been read (before any deliberate delay).
  POST /_reset  clears the log (sessions and other state are kept).

Base behaviour (initialize era, streamable HTTP at /mcp; /real/mcp in `redirect` mode)
  POST server/discover    400 application/json {"jsonrpc":"2.0","id":"server-error","error":{"code":-32600,
                          "message":"Bad Request: Missing session ID"}} (what the Python SDK 1.x does),
                          with or without a session.
  POST initialize         200 JSON; protocolVersion echoes the request's if it is 2025-11-25, 2025-06-18,
                          2025-03-26 or 2024-11-05, else 2025-11-25; capabilities {"tools": {}};
                          serverInfo fake-http 1.0; response header Mcp-Session-Id: s1, s2, ...
  other POSTs             need a live Mcp-Session-Id, else 400 {"jsonrpc":"2.0","id":null,"error":{"code":
                          -32600,"message":"Bad Request: missing or unknown session"}}; an *expired* session
                          (session-expiry mode) gets 404 {"jsonrpc":"2.0","id":null,"error":{"code":-32001,
                          "message":"Session not found"}}.
                          Notifications and client responses: 202, empty body.
                          ping -> {}; tools/list -> echo {text: string}, add {a, b: integer} (one page);
                          tools/call echo -> "echo: <text>", add -> "<a+b>"; unknown tool or bad
                          arguments -> -32602; unknown method -> -32601. Unparseable JSON -> 400 (-32700),
                          a non-object (e.g. a batch) -> 400 (-32600).
  GET  /mcp               without Last-Event-ID: 405 (no standalone stream). With Last-Event-ID: session
                          checked as above, then an unknown/consumed event id -> 400 (only sse-drop ever
                          issues resumable ids).
  DELETE /mcp             live session: 200 empty body, session forgotten (later use -> 400 "unknown");
                          missing/unknown session -> 400; expired -> 404.
  anything else           404 text/plain "Not Found".

Modes
  basic           the base behaviour.
  session-expiry  a session expires once it has served 2 tools/call requests (the 2nd is still answered);
                  every later request with that id (POST, GET, DELETE) gets 404. A new initialize gets a
                  new session (s2, ...) with a fresh budget of 2 calls.
  sse-drop        tools/call -> 200 text/event-stream with ONE event: `id: ev-1`, `retry: 300`,
                  `event: message`, data = notifications/message {"level":"info","data":"working"}; then
                  the connection is closed without the response. `GET /mcp` with `Last-Event-ID: ev-1` and
                  the same Mcp-Session-Id -> text/event-stream with the response as `id: ev-2`,
                  `event: message`, then close; its log entry gets "resume_delay_ms" (time since the drop).
                  Each event id can be resumed once; the k-th tools/call uses ev-(2k-1)/ev-(2k).
  garbage-sse     tools/call -> text/event-stream: `this is not a field`, `: keepalive`, (blank),
                  `data: not json at all`, `event: weird` + a notifications/message, a data line with raw
                  bytes FF FE, `data: [1,2,3]`, then `event: message` with the real response; then close.
  html-500        every POST (except /_reset) -> 500 text/html, a ~3 KB error page with a <pre> traceback.
  slow-headers    every /mcp request is read and logged, then the handler sleeps --delay seconds
                  (default 30) before answering like basic.
  redirect        /mcp (any method) -> 307, `Location: /real/mcp`, empty body; /real/mcp is the base.
  unauthorized    /mcp without `Authorization: Bearer good-token` -> 401, `WWW-Authenticate: Bearer
                  realm="fake", resource_metadata="http://127.0.0.1:<port>/.well-known/oauth-protected-resource"`,
                  JSON {"error":"invalid_token","error_description":"missing or bad bearer token"}.
                  (The metadata URL itself is not served: 404.) With the token: base behaviour.
  forbidden       every /mcp request -> 403 text/plain `forbidden: this key may not use MCP`.
  legacy-sse      the 2024-11-05 HTTP+SSE transport. POST /mcp and GET /mcp -> 404 text/plain "Not Found";
                  POST /sse -> 405 (Allow: GET) so "streamable first, then SSE" detection falls back.
                  GET /sse -> text/event-stream: `event: endpoint` / `data: /messages?session_id=abc123`
                  (later streams: abc124, ...), then every response for that session as `event: message`,
                  and a `: ping` comment every 5 s. POST /messages?session_id=<id> -> 202 text/plain
                  "Accepted", and the answer (if any) goes on the stream; unknown session -> 404, missing
                  session_id -> 400, bad JSON -> 400. Methods as in the base, except initialize always
                  answers protocolVersion 2024-11-05 and server/discover is just an unknown method
                  (-32601 on the stream); no Mcp-Session-Id is needed. The session is forgotten when
                  the SSE connection closes.
  drop-ping       a ping (with a live session) is read and logged, then its connection is closed with no
                  answer; the server stays up (HEAD /mcp is answered, as every method is).
  die-on-ping     a ping (with a live session) is read and logged, then the process exits at once: its
                  connections reset and its port refuses, as a killed server's do.
"""

import argparse
import json
import os
import queue
import select
import signal
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

MODES = [
    "basic",
    "session-expiry",
    "sse-drop",
    "garbage-sse",
    "html-500",
    "slow-headers",
    "redirect",
    "unauthorized",
    "forbidden",
    "legacy-sse",
    "drop-ping",
    "die-on-ping",
]
KNOWN_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]
TOOLS = [
    {
        "name": "echo",
        "description": "Echo back the given text",
        "inputSchema": {
            "type": "object",
            "properties": {"text": {"type": "string"}},
            "required": ["text"],
        },
    },
    {
        "name": "add",
        "description": "Add two integers",
        "inputSchema": {
            "type": "object",
            "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
            "required": ["a", "b"],
        },
    },
]
DISCOVER_BODY = {
    "jsonrpc": "2.0",
    "id": "server-error",
    "error": {"code": -32600, "message": "Bad Request: Missing session ID"},
}
NO_SESSION_BODY = {
    "jsonrpc": "2.0",
    "id": None,
    "error": {"code": -32600, "message": "Bad Request: missing or unknown session"},
}
EXPIRED_BODY = {"jsonrpc": "2.0", "id": None, "error": {"code": -32001, "message": "Session not found"}}
CALLS_PER_SESSION = 2  # session-expiry


def _html_500_page():
    frames = []
    for i in range(24):
        frames.append(
            f'  File "/srv/app/handlers/layer_{i:02d}.py", line {100 + 7 * i}, in dispatch_{i:02d}\n'
            f"    return next_layer(request, context=ctx, retries={i})\n"
        )
    return (
        "<!DOCTYPE html><html><head><title>500 Internal Server Error</title></head><body>\n"
        "<h1>Internal Server Error</h1>\n"
        "<p>The server encountered an internal error and was unable to complete your request.</p>\n"
        "<pre>Traceback (most recent call last):\n"
        + "".join(frames)
        + "RuntimeError: upstream MCP backend unavailable (connection pool exhausted)\n</pre>\n"
        "<hr><address>fake-http/1.0 at 127.0.0.1</address></body></html>\n"
    )


HTML_500 = _html_500_page().encode()


class State:
    def __init__(self, mode, delay):
        self.mode = mode
        self.delay = delay
        self.port = 0
        self.lock = threading.Lock()
        self.log = []
        self.session_counter = 0
        self.sessions = {}  # id -> {"calls": int}
        self.expired = set()
        self.event_counter = 0
        self.resumable = {}  # event id -> {"session", "response", "dropped_at"}
        self.legacy_counter = 0
        self.legacy = {}  # legacy session id -> queue.Queue of bytes


def rpc_result(req_id, result):
    return {"jsonrpc": "2.0", "id": req_id, "result": result}


def rpc_error(req_id, code, message):
    return {"jsonrpc": "2.0", "id": req_id, "error": {"code": code, "message": message}}


def answer(state, msg, legacy=False):
    """The JSON-RPC response object for a request (dict with "method" and "id")."""
    req_id = msg.get("id")
    method = msg.get("method")
    params = msg.get("params")
    if not isinstance(params, dict):
        params = {}
    if method == "initialize":
        requested = params.get("protocolVersion")
        if legacy:
            version = "2024-11-05"
        else:
            version = requested if requested in KNOWN_VERSIONS else KNOWN_VERSIONS[0]
        return rpc_result(
            req_id,
            {
                "protocolVersion": version,
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "fake-http", "version": "1.0"},
            },
        )
    if method == "ping":
        return rpc_result(req_id, {})
    if method == "tools/list":
        return rpc_result(req_id, {"tools": TOOLS})
    if method == "tools/call":
        name = params.get("name")
        args = params.get("arguments")
        if not isinstance(args, dict):
            args = {}
        if name == "echo":
            text = args.get("text")
            if not isinstance(text, str):
                return rpc_error(req_id, -32602, "echo: argument 'text' must be a string")
            return rpc_result(req_id, {"content": [{"type": "text", "text": f"echo: {text}"}]})
        if name == "add":
            a, b = args.get("a"), args.get("b")
            if not all(isinstance(v, int) and not isinstance(v, bool) for v in (a, b)):
                return rpc_error(req_id, -32602, "add: arguments 'a' and 'b' must be integers")
            return rpc_result(req_id, {"content": [{"type": "text", "text": str(a + b)}]})
        return rpc_error(req_id, -32602, f"Unknown tool: {name}")
    return rpc_error(req_id, -32601, f"Method not found: {method}")


def sse_event(data, event=None, event_id=None, retry=None):
    out = b""
    if event_id is not None:
        out += f"id: {event_id}\n".encode()
    if retry is not None:
        out += f"retry: {retry}\n".encode()
    if event is not None:
        out += f"event: {event}\n".encode()
    if not isinstance(data, (bytes, str)):
        data = json.dumps(data)
    if isinstance(data, str):
        data = data.encode()
    return out + b"data: " + data + b"\n\n"


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "fake-http/1.0"

    def version_string(self):
        return self.server_version

    def log_message(self, format, *args):  # noqa: A002 - keep the server quiet
        pass

    @property
    def state(self):
        return self.server.state

    # ---- plumbing -------------------------------------------------------------------------------

    def do_GET(self):
        self._handle()

    def do_POST(self):
        self._handle()

    def do_DELETE(self):
        self._handle()

    def do_PUT(self):
        self._handle()

    def do_PATCH(self):
        self._handle()

    def do_OPTIONS(self):
        self._handle()

    def do_HEAD(self):
        self._handle()

    def _read_body(self):
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            chunks = []
            while True:
                line = self.rfile.readline()
                if not line:
                    break
                size = int(line.split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    break
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
            return b"".join(chunks)
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length > 0 else b""

    def _handle(self):
        try:
            try:
                body = self._read_body()
            except ValueError:
                self.close_connection = True
                return self.send_text(400, "Bad Request: malformed body framing")
            url = urlsplit(self.path)
            path = url.path
            if path == "/_log" and self.command == "GET":
                with self.state.lock:
                    data = json.dumps(self.state.log).encode()
                return self.send_bytes(200, data, "application/json")
            if path == "/_reset" and self.command == "POST":
                with self.state.lock:
                    self.state.log.clear()
                return self.send_json(200, {"ok": True})
            entry = {
                "method": self.command,
                "path": self.path,
                "headers": {k.lower(): v for k, v in self.headers.items()},
                "body": body.decode("utf-8", errors="replace"),
                "time": time.time(),
            }
            with self.state.lock:
                self.state.log.append(entry)
            self.route(path, url.query, body, entry)
        except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError, socket.timeout):
            self.close_connection = True

    def send_bytes(self, status, data, ctype, headers=None):
        self.send_response(status)
        if ctype:
            self.send_header("Content-Type", ctype)
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)
        self.wfile.flush()

    def send_json(self, status, obj, headers=None):
        self.send_bytes(status, json.dumps(obj).encode(), "application/json", headers)

    def send_text(self, status, text, ctype="text/plain; charset=utf-8", headers=None):
        self.send_bytes(status, text.encode(), ctype, headers)

    def send_empty(self, status, headers=None):
        self.send_bytes(status, b"", None, headers)

    def sse_start(self):
        self.close_connection = True
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.flush()

    def sse_send(self, raw):
        self.wfile.write(raw)
        self.wfile.flush()

    def not_found(self):
        self.send_text(404, "Not Found")

    # ---- routing --------------------------------------------------------------------------------

    def route(self, path, query, body, entry):
        mode = self.state.mode
        if mode == "html-500" and self.command == "POST":
            return self.send_bytes(500, HTML_500, "text/html; charset=utf-8")
        if mode == "legacy-sse":
            return self.route_legacy(path, query, body)
        if mode == "redirect":
            if path == "/mcp":
                return self.send_empty(307, {"Location": "/real/mcp"})
            if path == "/real/mcp":
                return self.mcp(body, entry)
            return self.not_found()
        if path != "/mcp":
            return self.not_found()
        if mode == "forbidden":
            return self.send_text(403, "forbidden: this key may not use MCP")
        if mode == "unauthorized" and self.headers.get("Authorization") != "Bearer good-token":
            meta = f"http://127.0.0.1:{self.state.port}/.well-known/oauth-protected-resource"
            return self.send_json(
                401,
                {"error": "invalid_token", "error_description": "missing or bad bearer token"},
                {"WWW-Authenticate": f'Bearer realm="fake", resource_metadata="{meta}"'},
            )
        if mode == "slow-headers":
            time.sleep(self.state.delay)
        return self.mcp(body, entry)

    # ---- streamable HTTP ------------------------------------------------------------------------

    def check_session(self):
        """None if the request's session is live, else the error response already sent (True)."""
        sid = self.headers.get("Mcp-Session-Id")
        with self.state.lock:
            if sid is not None and sid in self.state.sessions:
                return None
            expired = sid is not None and sid in self.state.expired
        if expired:
            self.send_json(404, EXPIRED_BODY)
        else:
            self.send_json(400, NO_SESSION_BODY)
        return True

    def mcp(self, body, entry):
        if self.command == "POST":
            return self.mcp_post(body)
        if self.command == "GET":
            return self.mcp_get(entry)
        if self.command == "DELETE":
            if self.check_session():
                return
            with self.state.lock:
                self.state.sessions.pop(self.headers.get("Mcp-Session-Id"), None)
            return self.send_empty(200)
        return self.send_json(
            405,
            rpc_error("server-error", -32000, "Method Not Allowed"),
            {"Allow": "GET, POST, DELETE"},
        )

    def mcp_get(self, entry):
        last = self.headers.get("Last-Event-ID")
        if last is None:
            return self.send_json(
                405,
                rpc_error("server-error", -32000, "Method Not Allowed: no standalone SSE stream"),
                {"Allow": "POST, DELETE"},
            )
        if self.check_session():
            return
        sid = self.headers.get("Mcp-Session-Id")
        with self.state.lock:
            pending = self.state.resumable.get(last)
            if pending is not None and pending["session"] == sid:
                del self.state.resumable[last]
                entry["resume_delay_ms"] = round((time.monotonic() - pending["dropped_at"]) * 1000, 1)
            else:
                pending = None
        if pending is None:
            return self.send_json(
                400, rpc_error("server-error", -32600, f"Bad Request: unknown Last-Event-ID {last!r}")
            )
        self.sse_start()
        self.sse_send(sse_event(pending["response"], event="message", event_id=pending["resume_id"]))

    def mcp_post(self, body):
        try:
            msg = json.loads(body)
        except (ValueError, UnicodeDecodeError):
            return self.send_json(400, rpc_error(None, -32700, "Parse error"))
        if not isinstance(msg, dict):
            return self.send_json(400, rpc_error(None, -32600, "Invalid Request: expected one JSON object"))
        method = msg.get("method")
        is_request = isinstance(method, str) and "id" in msg
        if is_request and method == "server/discover":
            return self.send_json(400, DISCOVER_BODY)
        if is_request and method == "initialize":
            with self.state.lock:
                self.state.session_counter += 1
                sid = f"s{self.state.session_counter}"
                self.state.sessions[sid] = {"calls": 0}
            return self.send_json(200, answer(self.state, msg), {"Mcp-Session-Id": sid})
        if self.check_session():
            return
        if not is_request:  # notification or a response to one of our (never sent) requests
            return self.send_empty(202)
        sid = self.headers.get("Mcp-Session-Id")
        response = answer(self.state, msg)
        mode = self.state.mode
        if method == "ping" and mode == "drop-ping":
            # The connection closed with no answer; the server stays up.
            self.close_connection = True
            return
        if method == "ping" and mode == "die-on-ping":
            # The process is gone at once (its connections reset, its port
            # closed), as a killed server's are.
            os._exit(0)
        if method == "tools/call":
            if mode == "session-expiry":
                with self.state.lock:
                    session = self.state.sessions.get(sid)
                    if session is not None:
                        session["calls"] += 1
                        if session["calls"] >= CALLS_PER_SESSION:
                            del self.state.sessions[sid]
                            self.state.expired.add(sid)
            elif mode == "sse-drop":
                return self.sse_drop(sid, response)
            elif mode == "garbage-sse":
                return self.garbage_sse(response)
        return self.send_json(200, response)

    def sse_drop(self, sid, response):
        with self.state.lock:
            self.state.event_counter += 2
            first = f"ev-{self.state.event_counter - 1}"
            second = f"ev-{self.state.event_counter}"
        note = {
            "jsonrpc": "2.0",
            "method": "notifications/message",
            "params": {"level": "info", "data": "working"},
        }
        self.sse_start()
        self.sse_send(sse_event(note, event="message", event_id=first, retry=300))
        with self.state.lock:
            self.state.resumable[first] = {
                "session": sid,
                "response": response,
                "resume_id": second,
                "dropped_at": time.monotonic(),
            }
        # returning closes the connection (Connection: close) without the response

    def garbage_sse(self, response):
        weird = {
            "jsonrpc": "2.0",
            "method": "notifications/message",
            "params": {"level": "info", "data": "odd event type"},
        }
        self.sse_start()
        self.sse_send(b"this is not a field\n: keepalive\n\n")
        self.sse_send(b"data: not json at all\n\n")
        self.sse_send(sse_event(weird, event="weird"))
        self.sse_send(b"data: \xff\xfe garbage\n\n")
        self.sse_send(b"data: [1,2,3]\n\n")
        self.sse_send(sse_event(response, event="message"))

    # ---- legacy HTTP+SSE ------------------------------------------------------------------------

    def route_legacy(self, path, query, body):
        if path == "/sse":
            if self.command == "GET":
                return self.legacy_stream()
            return self.send_text(405, "Method Not Allowed", headers={"Allow": "GET"})
        if path in ("/messages", "/messages/") and self.command == "POST":
            sid = (parse_qs(query).get("session_id") or [None])[0]
            if sid is None:
                return self.send_text(400, "session_id is required")
            with self.state.lock:
                q = self.state.legacy.get(sid)
            if q is None:
                return self.send_text(404, "Could not find session")
            try:
                msg = json.loads(body)
            except (ValueError, UnicodeDecodeError):
                return self.send_text(400, "Could not parse message")
            if not isinstance(msg, dict):
                return self.send_text(400, "Could not parse message")
            self.send_text(202, "Accepted")
            if isinstance(msg.get("method"), str) and "id" in msg:
                q.put(sse_event(answer(self.state, msg, legacy=True), event="message"))
            return
        return self.not_found()

    def client_gone(self):
        try:
            readable, _, _ = select.select([self.connection], [], [], 0)
            if readable:
                return self.connection.recv(1, socket.MSG_PEEK) == b""
        except OSError:
            return True
        return False

    def legacy_stream(self):
        q = queue.Queue()
        with self.state.lock:
            sid = f"abc{123 + self.state.legacy_counter}"
            self.state.legacy_counter += 1
            self.state.legacy[sid] = q
        try:
            self.sse_start()
            self.sse_send(sse_event(f"/messages?session_id={sid}", event="endpoint"))
            next_ping = time.monotonic() + 5
            while True:
                try:
                    item = q.get(timeout=0.25)
                except queue.Empty:
                    item = None
                if item is not None:
                    self.sse_send(item)
                elif time.monotonic() >= next_ping:
                    self.sse_send(b": ping\n\n")
                    next_ping = time.monotonic() + 5
                elif self.client_gone():
                    return
        finally:
            with self.state.lock:
                self.state.legacy.pop(sid, None)


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def handle_error(self, request, client_address):
        exc = sys.exc_info()[1]
        if isinstance(exc, (BrokenPipeError, ConnectionResetError, ConnectionAbortedError, socket.timeout)):
            return
        super().handle_error(request, client_address)  # traceback to stderr


def main():
    parser = argparse.ArgumentParser(description="misbehaving MCP Streamable HTTP server for tests")
    parser.add_argument("mode", choices=MODES)
    parser.add_argument("--delay", type=float, default=30.0, help="slow-headers: seconds before answering")
    parser.add_argument("--tls", nargs=2, metavar=("CERT", "KEY"), help="serve HTTPS with this certificate and key")
    args = parser.parse_args()

    server = Server(("127.0.0.1", 0), Handler)
    if args.tls:
        import ssl

        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(args.tls[0], args.tls[1])
        # The handshake happens on accept; a client that refuses the
        # certificate only fails its own connection.
        server.socket = ctx.wrap_socket(server.socket, server_side=True)
    server.state = State(args.mode, args.delay)
    server.state.port = server.server_address[1]

    def stop(signum, frame):
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)

    sys.stdout.write(f"PORT {server.state.port}\n")
    sys.stdout.flush()
    status = 0
    try:
        server.serve_forever(poll_interval=0.2)
    except (SystemExit, KeyboardInterrupt):
        pass
    except BaseException:
        import traceback

        traceback.print_exc()
        status = 1
    try:
        server.server_close()
    except OSError:
        pass
    sys.stderr.flush()
    # Daemon handler threads may be mid-sleep or mid-stream: leave without waiting for them.
    os._exit(status)


if __name__ == "__main__":
    main()
