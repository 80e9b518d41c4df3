"""An OAuth-protected MCP server and its (mis)behaving authorization server in one process (stdlib only),
for mcpdeck's hostile login tests (tests/auth_hostile.rs).

    python3 tests/servers/fake_oauth.py --mode MODE [--delay SECONDS]

Startup contract
  Binds 127.0.0.1 only, on a random free port P, prints exactly `PORT <P>` as the first stdout line
  (flushed), then serves until killed. Nothing else goes to stdout. Handler threads are daemons, so a
  sleeping handler never delays exit. The issuer is http://127.0.0.1:P (no path).

The fixed secrets (tests assert that none of them ever shows in mcpdeck's output):
  client_secret  fake-client-secret-7Hq2Lm   (handed out by /register)
  access token   fake-access-token-Kx81Vb
  refresh token  fake-refresh-token-Wm4cJd
  code           fake-code-Pz3nRt            (stale, wrong-state code: fake-stale-code-Yy6eQa)

Endpoints (mode "ok" unless a mode below says otherwise)
  POST /mcp   without `Authorization: Bearer <access token>`: 401 with
              `WWW-Authenticate: Bearer resource_metadata="http://127.0.0.1:P/.well-known/oauth-protected-resource/mcp"`.
              With it: JSON-RPC, no sessions: initialize (echoes a known protocolVersion), notifications 202,
              ping {}, tools/list (one tool `whoami`), tools/call whoami -> "authorized"; server/discover 400
              (as the Python SDK 1.x answers), anything else -32601.
  GET/DELETE /mcp   401 without the token, 405 with it.
  GET /.well-known/oauth-protected-resource/mcp   {resource: P/mcp, authorization_servers: [P], ...}
  GET /.well-known/oauth-authorization-server and /.well-known/openid-configuration   the AS metadata:
              authorize, token, register endpoints, S256, client_secret_basic/post/none, scopes [mcp].
  POST /register   201 {client_id: fake-client-id, client_secret, token_endpoint_auth_method:
              client_secret_basic, redirect_uris echoed, ...}.
  GET /authorize   checks response_type=code, the client_id, a loopback redirect_uri, state, an S256
              code_challenge (else 400 text), then 302 to redirect_uri?code=<code>&state=<state>.
  POST /token  authorization_code: checks the code, redirect_uri, the PKCE verifier against the challenge
              and Basic client authentication (else 400 {"error":"invalid_grant"|"invalid_client"});
              200 {access_token, token_type Bearer, expires_in 3600, refresh_token, scope "mcp"}.
  GET /_log    JSON list of every other request: {"method", "path" (with query), "host", "body",
              "auth" (whether an Authorization header came), "note" (what the fake did, optional)}.

Modes (each changes only what it names)
  ok                    the above.
  meta-html             AS metadata: 200 text/html, a login page.
  forget-client         /authorize accepts any client_id (a client the server has since forgotten gets
                        its code, then invalid_client from /token).
  meta-huge             AS metadata: 200 application/json, a 2 MiB JSON object (Content-Length set).
  meta-notjson          AS metadata: 200 application/json whose body is not JSON (and ends in ESC [31m).
  meta-redirect-loop    AS metadata: 302 -> /loop/a -> 302 /loop/b -> 302 back to where it started.
  meta-redirect-origin  AS metadata: 302 to the same path on http://localhost:P (another origin).
  slow-as               AS metadata: sleeps --delay seconds (default 60) before answering.
  token-500             /token: 500 text/html.
  token-error           /token: 400 {"error":"invalid_grant","error_description":...} whose description
                        echoes the code and the client secret it was sent (a careless server), then
                        terminal escapes (a window title, a screen clear).
  state-wrong           /authorize first sends its own GET to the redirect_uri with a wrong state and a
                        stale code (note "stale callback answered <status>" in the log), then 302s as usual.
  state-only-wrong      /authorize: 302 to redirect_uri with the stale code and a wrong state, and nothing else
                        (the right redirect never comes).
  callback-denied       /authorize: 302 to redirect_uri?error=access_denied&error_description=...&state=.
  iss-mismatch          AS metadata says authorization_response_iss_parameter_supported: true; /authorize
                        302s with the code, the state and iss=https://evil.example.com.
  iss-missing           the metadata says so too, and /authorize sends no iss.
  prm-elsewhere         the PRM's resource is https://evil.example.com/mcp.
  as-plain-http         the PRM names http://as.example.com (plain http, not loopback) as its AS.
  register-no-client-id /register: 201 JSON with a client_secret and no client_id.
"""

import argparse
import base64
import hashlib
import json
import sys
import threading
import time
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlencode, urlsplit

MODES = [
    "ok",
    "meta-html",
    "meta-huge",
    "meta-notjson",
    "meta-redirect-loop",
    "meta-redirect-origin",
    "slow-as",
    "token-500",
    "token-error",
    "state-wrong",
    "state-only-wrong",
    "callback-denied",
    "iss-mismatch",
    "iss-missing",
    "prm-elsewhere",
    "as-plain-http",
    "register-no-client-id",
    "forget-client",
]
CLIENT_ID = "fake-client-id"
CLIENT_SECRET = "fake-client-secret-7Hq2Lm"
ACCESS_TOKEN = "fake-access-token-Kx81Vb"
REFRESH_TOKEN = "fake-refresh-token-Wm4cJd"
CODE = "fake-code-Pz3nRt"
STALE_CODE = "fake-stale-code-Yy6eQa"
KNOWN_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]
AS_METADATA_PATHS = ("/.well-known/oauth-authorization-server", "/.well-known/openid-configuration")


class State:
    def __init__(self, mode, delay):
        self.mode = mode
        self.delay = delay
        self.port = 0
        self.lock = threading.Lock()
        self.log = []
        self.challenges = {}  # client_id -> code_challenge of the last /authorize
        self.redirects = {}  # code -> redirect_uri

    def base(self):
        return f"http://127.0.0.1:{self.port}"


def s256(verifier):
    digest = hashlib.sha256(verifier.encode()).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "fake-oauth/1.0"

    def log_message(self, fmt, *args):  # quiet
        pass

    def handle(self):
        # mcpdeck hangs up on purpose (e.g. after 1 MiB of a huge document).
        try:
            super().handle()
        except (BrokenPipeError, ConnectionResetError):
            pass

    @property
    def state(self):
        return self.server.state

    # -- plumbing -------------------------------------------------------------------------------------

    def _body(self):
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n > 0 else b""

    def _record(self, body):
        entry = {
            "method": self.command,
            "path": self.path,
            "host": self.headers.get("Host", ""),
            "body": body.decode("utf-8", "replace"),
            "auth": self.headers.get("Authorization") is not None,
        }
        with self.state.lock:
            self.state.log.append(entry)
        return entry

    def _send(self, status, body=b"", ctype="application/json", headers=None):
        if isinstance(body, (dict, list)):
            body = json.dumps(body).encode()
        elif isinstance(body, str):
            body = body.encode()
        try:
            self.send_response(status)
            if body or status not in (202, 204, 302):
                self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            if body:
                self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def _redirect(self, location):
        self._send(302, b"", headers={"Location": location})

    def _dispatch(self):
        body = self._body()
        split = urlsplit(self.path)
        path = split.path
        if path == "/_log" and self.command == "GET":
            with self.state.lock:
                log = list(self.state.log)
            self._send(200, log)
            return
        entry = self._record(body)
        query = {k: v[-1] for k, v in parse_qs(split.query, keep_blank_values=True).items()}
        if path == "/mcp":
            self._mcp(body)
        elif path == "/.well-known/oauth-protected-resource/mcp" and self.command == "GET":
            self._prm()
        elif path in AS_METADATA_PATHS and self.command == "GET":
            self._as_metadata(path)
        elif path.startswith("/loop/") and self.command == "GET":
            nxt = {"/loop/a": "/loop/b", "/loop/b": AS_METADATA_PATHS[0]}.get(path, AS_METADATA_PATHS[0])
            self._redirect(nxt)
        elif path == "/register" and self.command == "POST":
            self._register(body)
        elif path == "/authorize" and self.command == "GET":
            self._authorize(query, entry)
        elif path == "/token" and self.command == "POST":
            self._token(body)
        else:
            self._send(404, "Not Found", "text/plain")

    do_GET = _dispatch
    do_POST = _dispatch
    do_DELETE = _dispatch

    # -- the MCP server -------------------------------------------------------------------------------

    def _mcp(self, body):
        if self.headers.get("Authorization") != f"Bearer {ACCESS_TOKEN}":
            meta = f"{self.state.base()}/.well-known/oauth-protected-resource/mcp"
            self._send(
                401,
                {"error": "invalid_token", "error_description": "no valid bearer token"},
                headers={"WWW-Authenticate": f'Bearer resource_metadata="{meta}"'},
            )
            return
        if self.command != "POST":
            self._send(405, "Method Not Allowed", "text/plain", {"Allow": "POST"})
            return
        try:
            msg = json.loads(body)
        except ValueError:
            self._send(400, {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}})
            return
        if not isinstance(msg, dict):
            self._send(400, {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "Invalid Request"}})
            return
        if "id" not in msg or "method" not in msg:
            self._send(202)
            return
        req_id, method = msg.get("id"), msg.get("method")
        params = msg.get("params") if isinstance(msg.get("params"), dict) else {}
        if method == "server/discover":
            self._send(
                400,
                {"jsonrpc": "2.0", "id": "server-error",
                 "error": {"code": -32600, "message": "Bad Request: Missing session ID"}},
            )
            return
        if method == "initialize":
            requested = params.get("protocolVersion")
            result = {
                "protocolVersion": requested if requested in KNOWN_VERSIONS else KNOWN_VERSIONS[0],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "fake-oauth", "version": "1.0"},
            }
        elif method == "ping":
            result = {}
        elif method == "tools/list":
            result = {"tools": [{
                "name": "whoami",
                "description": "Says whether the caller is authorized",
                "inputSchema": {"type": "object", "properties": {}},
            }]}
        elif method == "tools/call" and params.get("name") == "whoami":
            result = {"content": [{"type": "text", "text": "authorized"}]}
        else:
            self._send(200, {"jsonrpc": "2.0", "id": req_id,
                             "error": {"code": -32601, "message": f"Method not found: {method}"}})
            return
        self._send(200, {"jsonrpc": "2.0", "id": req_id, "result": result})

    # -- discovery ------------------------------------------------------------------------------------

    def _prm(self):
        mode, base = self.state.mode, self.state.base()
        resource = "https://evil.example.com/mcp" if mode == "prm-elsewhere" else f"{base}/mcp"
        servers = ["http://as.example.com"] if mode == "as-plain-http" else [base]
        self._send(200, {
            "resource": resource,
            "authorization_servers": servers,
            "scopes_supported": ["mcp"],
            "bearer_methods_supported": ["header"],
        })

    def _metadata(self):
        base = self.state.base()
        doc = {
            "issuer": base,
            "authorization_endpoint": f"{base}/authorize",
            "token_endpoint": f"{base}/token",
            "registration_endpoint": f"{base}/register",
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code", "refresh_token"],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post", "none"],
            "scopes_supported": ["mcp"],
        }
        if self.state.mode in ("iss-mismatch", "iss-missing"):
            doc["authorization_response_iss_parameter_supported"] = True
        return doc

    def _as_metadata(self, path):
        mode = self.state.mode
        if mode == "meta-html":
            page = ("<!DOCTYPE html><html><head><title>Sign in</title></head>"
                    "<body><h1>Welcome to the portal</h1><form><input name=user></form></body></html>")
            self._send(200, page, "text/html; charset=utf-8")
        elif mode == "meta-huge":
            doc = self._metadata()
            doc["padding"] = "x" * (2 * 1024 * 1024)
            self.close_connection = True
            self._send(200, doc)
        elif mode == "meta-notjson":
            self._send(200, f"issuer = {self.state.base()}\nthis is not JSON at all {{\x1b[31m", "application/json")
        elif mode == "meta-redirect-loop":
            self._redirect("/loop/a")
        elif mode == "meta-redirect-origin":
            self._redirect(f"http://localhost:{self.state.port}{path}")
        elif mode == "slow-as":
            time.sleep(self.state.delay)
            self._send(200, self._metadata())
        else:
            self._send(200, self._metadata())

    # -- the authorization server ---------------------------------------------------------------------

    def _register(self, body):
        try:
            req = json.loads(body)
        except ValueError:
            req = {}
        if not isinstance(req, dict):
            req = {}
        doc = {
            "client_name": req.get("client_name", "?"),
            "client_secret": CLIENT_SECRET,
            "client_secret_expires_at": 0,
            "redirect_uris": req.get("redirect_uris", []),
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "token_endpoint_auth_method": "client_secret_basic",
        }
        if self.state.mode != "register-no-client-id":
            doc["client_id"] = CLIENT_ID
            doc["client_id_issued_at"] = int(time.time())
        self._send(201, doc)

    def _authorize(self, q, entry):
        mode = self.state.mode
        redirect = q.get("redirect_uri", "")
        problems = []
        if q.get("response_type") != "code":
            problems.append("response_type is not code")
        # forget-client: any client is shown the login (its token request
        # then fails with invalid_client unless it is the registered one).
        if q.get("client_id") != CLIENT_ID and mode != "forget-client":
            problems.append("unknown client_id")
        if not redirect.startswith("http://127.0.0.1:") or not redirect.endswith("/callback"):
            problems.append("redirect_uri is not a loopback /callback")
        if not q.get("state"):
            problems.append("no state")
        if q.get("code_challenge_method") != "S256" or len(q.get("code_challenge", "")) < 43:
            problems.append("no S256 code_challenge")
        if problems:
            entry["note"] = "refused: " + "; ".join(problems)
            self._send(400, "bad authorization request: " + "; ".join(problems), "text/plain")
            return
        with self.state.lock:
            self.state.challenges[q["client_id"]] = q["code_challenge"]
            self.state.redirects[CODE] = redirect
        params = {"code": CODE, "state": q["state"]}
        if mode == "state-wrong":
            # A stale tab of an earlier login comes back first.
            stale = redirect + "?" + urlencode({"code": STALE_CODE, "state": "not-the-state-" + q["state"][:4]})
            try:
                with urllib.request.urlopen(stale, timeout=10) as r:
                    status = r.status
            except urllib.error.HTTPError as e:
                status = e.code
            except (urllib.error.URLError, OSError) as e:
                status = f"failed ({e})"
            entry["note"] = f"stale callback answered {status}"
        elif mode == "state-only-wrong":
            params = {"code": STALE_CODE, "state": "not-the-state-" + q["state"][:4]}
        elif mode == "callback-denied":
            params = {"error": "access_denied", "error_description": "The user said no", "state": q["state"]}
        elif mode == "iss-mismatch":
            params["iss"] = "https://evil.example.com"
        self._redirect(redirect + "?" + urlencode(params))

    def _token(self, body):
        mode = self.state.mode
        form = {k: v[-1] for k, v in parse_qs(body.decode("utf-8", "replace"), keep_blank_values=True).items()}
        if mode == "token-500":
            self._send(500, "<html><body><h1>500 Internal Server Error</h1></body></html>", "text/html")
            return
        if mode == "token-error":
            self._send(400, {
                "error": "invalid_grant",
                "error_description": f"the code {form.get('code', '')} has expired "
                                     f"(client secret was {CLIENT_SECRET})\x1b]0;pwned\x07\x1b[2J",
            })
            return
        expected_basic = "Basic " + base64.b64encode(f"{CLIENT_ID}:{CLIENT_SECRET}".encode()).decode()
        if self.headers.get("Authorization") != expected_basic:
            self._send(401, {"error": "invalid_client", "error_description": "Basic authentication failed"})
            return
        with self.state.lock:
            challenge = self.state.challenges.get(CLIENT_ID)
            redirect = self.state.redirects.get(CODE)
        if form.get("grant_type") != "authorization_code":
            self._send(400, {"error": "unsupported_grant_type"})
            return
        if form.get("code") != CODE or form.get("redirect_uri") != redirect:
            self._send(400, {"error": "invalid_grant", "error_description": "unknown code or redirect_uri"})
            return
        if not challenge or s256(form.get("code_verifier", "")) != challenge:
            self._send(400, {"error": "invalid_grant", "error_description": "PKCE verification failed"})
            return
        self._send(200, {
            "access_token": ACCESS_TOKEN,
            "token_type": "Bearer",
            "expires_in": 3600,
            "refresh_token": REFRESH_TOKEN,
            "scope": "mcp",
        }, headers={"Cache-Control": "no-store"})


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mode", choices=MODES, default="ok")
    ap.add_argument("--delay", type=float, default=60.0)
    args = ap.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    server.state = State(args.mode, args.delay)
    server.state.port = server.server_address[1]
    sys.stdout.write(f"PORT {server.state.port}\n")
    sys.stdout.flush()
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
