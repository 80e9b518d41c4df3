"""An OAuth-protected MCP server that is its own authorization server (stdlib only, but for
--dpop), for the refresh and DPoP tests in tests/auth_real.rs.

    python3 tests/servers/oauth_refresh.py [--no-auth] [--expires-in SECS] [--refresh-delay SECS]
                                           [--dpop]

--dpop-bearer  as --dpop at the token endpoint, but the access tokens are Bearer (token_type Bearer,
  presented as `Authorization: Bearer`) while each refresh token stays bound to the key: a refresh
  must still be proved with it (RFC 9449 §5).

--dpop (needs PyJWT with cryptography: run it with the test venv's python)
  The metadata lists dpop_signing_alg_values_supported ["ES256"]; the 401 challenge is
  `DPoP algs="ES256" resource_metadata=...`. Every token request must carry a valid DPoP proof
  (RFC 9449 §4.3: typ dpop+jwt, ES256, a public jwk, the signature, a new jti, htm POST, htu the
  token endpoint, iat within 300 s); tokens are issued with token_type DPoP and bound to the
  proof's key thumbprint, and a refresh must be proved with the key its chain is bound to. Every
  MCP request must carry `Authorization: DPoP <token>` and a proof for it (htm, htu, ath, the
  token's key). Anything wrong is answered 400 invalid_dpop_proof / 401 invalid_token and listed
  in /_admin/counts "dpop_errors"; "dpop_keys" lists the thumbprint of each accepted MCP request.

Startup contract
  Binds 127.0.0.1 on a random free port, prints exactly `PORT <n>` as the first stdout line (flushed),
  then serves until killed. HTTP/1.1 with keep-alive; every body carries Content-Length. The issuer
  and the MCP resource are http://127.0.0.1:<port> and http://127.0.0.1:<port>/mcp.

The authorization server (every endpoint is counted, see /_admin/counts)
  GET  /.well-known/oauth-protected-resource/mcp   {resource, authorization_servers, scopes_supported}
  GET  /.well-known/oauth-authorization-server     RFC 8414 metadata; public clients (auth method none),
                                                   PKCE S256, grants authorization_code and refresh_token
  POST /register      201 with a new client_id (token_endpoint_auth_method none)
  GET  /authorize     302 straight back to redirect_uri with code and state (no person is asked)
  POST /token         authorization_code: checks the code, client_id, redirect_uri and the PKCE
                      verifier (S256). refresh_token: the refresh token must be the current one of its
                      chain; it is ROTATED (the answer holds a new refresh token and the old one stops
                      working: a second use answers 400 invalid_grant). Every answer issues a new
                      access token valid for the current lifetime (--expires-in, default 3600 s,
                      changeable with /_admin/set) and says so in expires_in. --refresh-delay sleeps
                      before answering a refresh (so that concurrent callers overlap it).

The MCP server at /mcp (initialize era, JSON answers, no SSE)
  Every request needs `Authorization: Bearer <a valid access token>` (not with --no-auth): else 401
  with `WWW-Authenticate: Bearer resource_metadata="<PRM URL>"` (plus error="invalid_token" when a
  token was sent). A token is valid from its issue until its lifetime ends or /_admin/set rejects it.
  POST initialize -> a new Mcp-Session-Id; other POSTs need a live session (else 400). server/discover
  -> 400 (what initialize-era SDK servers answer). Notifications -> 202. ping -> {}. tools/list -> t1..t8
  (readOnlyHint true, no arguments). tools/call tN -> text "called tN". Unknown method -> -32601.
  GET /mcp -> 405. DELETE /mcp -> 200 and the session ends.

Test hooks (not counted)
  GET  /_admin/counts   {"requests": {"METHOD /path": n}, "mcp": {"<json-rpc method>": n},
                         "refresh_ok": n, "refresh_rejected": n (invalid_grant), "refresh_failed": n
                         (answered with refresh_status), "unauthorized": n (401 answers),
                         "call_tokens": [the access token each answered tools/call carried]}
  GET  /_admin/tokens   {"access": [valid access tokens], "refresh": [valid refresh tokens],
                         "issued": [{"grant", "access_token", "refresh_token", "expires_in"}]}
  POST /_admin/set      JSON, any of: {"expires_in": n} the lifetime of tokens issued from now on;
                        {"reject_access": true} every access token issued so far stops working;
                        {"reject_refresh": true} every refresh token issued so far stops working;
                        {"hold_401": n} the next 401 answers wait (up to 20 s) until n of them are
                        waiting, then all are sent: n requests are surely in flight at once;
                        {"hold_refresh": n} the same for the next n refresh requests, which are then
                        judged in turn; a refused one is answered 0.5 s late (after the winner's);
                        {"refresh_status": code} refresh requests are answered with this HTTP status
                        and {"error": "server_error"}, the refresh token left as it is (0: normal).
  POST /_admin/reset    zero the counts.
"""

import argparse
import base64
import hashlib
import json
import secrets
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlencode, urlsplit

KNOWN_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]
TOOLS = [
    {
        "name": f"t{i}",
        "description": f"Tool number {i}",
        "inputSchema": {"type": "object", "properties": {}},
        "annotations": {"readOnlyHint": True},
    }
    for i in range(1, 9)
]


class State:
    def __init__(self, args):
        self.auth = not args.no_auth
        self.expires_in = args.expires_in
        self.refresh_delay = args.refresh_delay
        self.port = 0
        self.lock = threading.Lock()
        self.cond = threading.Condition(self.lock)
        self.requests = {}
        self.mcp = {}
        self.refresh_ok = 0
        self.refresh_rejected = 0
        self.refresh_failed = 0
        self.unauthorized = 0
        self.call_tokens = []
        self.clients = {}  # client_id -> redirect_uris
        self.codes = {}  # code -> {client_id, redirect_uri, challenge}
        self.access = {}  # token -> expiry (unix seconds)
        self.refresh = set()  # the current refresh token of each chain
        self.issued = []
        self.sessions = set()
        self.session_counter = 0
        self.hold = 0  # 401 answers to gather before sending any
        self.holding = 0
        self.hold_refresh = 0  # refresh requests to gather before judging any
        self.holding_refresh = 0
        self.refresh_status = 0
        self.dpop = args.dpop or args.dpop_bearer
        # RFC 9449 §5: Bearer access tokens, the refresh token bound to the key.
        self.dpop_bearer = args.dpop_bearer
        self.bound = {}  # access or refresh token -> key thumbprint
        self.jtis = set()
        self.dpop_errors = []
        self.dpop_keys = []

    def base(self):
        return f"http://127.0.0.1:{self.port}"

    def count(self, key, table="requests"):
        with self.lock:
            t = getattr(self, table)
            t[key] = t.get(key, 0) + 1

    def issue(self, grant, jkt=None):
        """A new access token and refresh token (under the lock), bound to `jkt` with DPoP."""
        access = "at-" + secrets.token_urlsafe(16)
        refresh = "rt-" + secrets.token_urlsafe(16)
        self.access[access] = time.time() + self.expires_in
        self.refresh.add(refresh)
        self.issued.append(
            {
                "grant": grant,
                "access_token": access,
                "refresh_token": refresh,
                "expires_in": self.expires_in,
            }
        )
        bearer_access = self.dpop_bearer
        if jkt:
            if not bearer_access:
                self.bound[access] = jkt
            self.bound[refresh] = jkt
        return {
            "access_token": access,
            "token_type": "DPoP" if jkt and not bearer_access else "Bearer",
            "expires_in": self.expires_in,
            "refresh_token": refresh,
            "scope": "mcp",
        }


def rpc_result(req_id, result):
    return {"jsonrpc": "2.0", "id": req_id, "result": result}


def rpc_error(req_id, code, message):
    return {"jsonrpc": "2.0", "id": req_id, "error": {"code": code, "message": message}}


def s256(verifier):
    digest = hashlib.sha256(verifier.encode()).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def check_proof(st, proof, method, url, token=None):
    """RFC 9449 §4.3: the key thumbprint of a valid proof, else raise ValueError(why)."""
    import jwt  # PyJWT with cryptography: only --dpop needs them
    from jwt.algorithms import ECAlgorithm

    if not proof or "," in proof:
        raise ValueError("no DPoP proof, or several")
    header = jwt.get_unverified_header(proof)
    if header.get("typ") != "dpop+jwt" or header.get("alg") != "ES256":
        raise ValueError(f"bad header {header}")
    jwk = header.get("jwk") or {}
    if "d" in jwk or jwk.get("kty") != "EC" or jwk.get("crv") != "P-256":
        raise ValueError(f"bad jwk {jwk}")
    key = ECAlgorithm.from_jwk(json.dumps(jwk))
    claims = jwt.decode(proof, key, algorithms=["ES256"], options={"verify_aud": False})
    if claims.get("htm") != method or claims.get("htu") != url:
        raise ValueError(f"htm/htu {claims.get('htm')} {claims.get('htu')} for {method} {url}")
    if abs(time.time() - claims.get("iat", 0)) > 300:
        raise ValueError("iat out of window")
    jti = claims.get("jti")
    with st.lock:
        if not jti or jti in st.jtis:
            raise ValueError("jti missing or used before")
        st.jtis.add(jti)
    if token is not None:
        ath = base64.urlsafe_b64encode(hashlib.sha256(token.encode()).digest()).rstrip(b"=").decode()
        if claims.get("ath") != ath:
            raise ValueError("ath does not match the token")
    canonical = json.dumps(
        {"crv": "P-256", "kty": "EC", "x": jwk["x"], "y": jwk["y"]}, separators=(",", ":")
    )
    return base64.urlsafe_b64encode(hashlib.sha256(canonical.encode()).digest()).rstrip(b"=").decode()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "oauth-refresh/1.0"

    def log_message(self, *args):
        pass

    @property
    def state(self):
        return self.server.state

    def send(self, status, body=b"", ctype="application/json", headers=()):
        if isinstance(body, (dict, list)):
            body = json.dumps(body).encode()
        elif isinstance(body, str):
            body = body.encode()
        self.send_response(status)
        if body:
            self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()
        if body:
            self.wfile.write(body)

    def body(self):
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n else b""

    def route(self, method):
        path = urlsplit(self.path).path
        if path.startswith("/_admin/"):
            return self.admin(method, path)
        self.state.count(f"{method} {path}")
        if path == "/mcp":
            return self.mcp(method)
        if method == "GET" and path == "/.well-known/oauth-protected-resource/mcp":
            base = self.state.base()
            return self.send(
                200,
                {
                    "resource": base + "/mcp",
                    "authorization_servers": [base],
                    "scopes_supported": ["mcp"],
                },
            )
        if method == "GET" and path == "/.well-known/oauth-authorization-server":
            base = self.state.base()
            return self.send(
                200,
                {
                    "issuer": base,
                    "authorization_endpoint": base + "/authorize",
                    "token_endpoint": base + "/token",
                    "registration_endpoint": base + "/register",
                    "response_types_supported": ["code"],
                    "grant_types_supported": ["authorization_code", "refresh_token"],
                    "code_challenge_methods_supported": ["S256"],
                    "token_endpoint_auth_methods_supported": ["none"],
                    "scopes_supported": ["mcp"],
                    **({"dpop_signing_alg_values_supported": ["ES256"]} if self.state.dpop else {}),
                },
            )
        if method == "POST" and path == "/register":
            return self.register()
        if method == "GET" and path == "/authorize":
            return self.authorize()
        if method == "POST" and path == "/token":
            return self.token()
        self.send(404, "Not Found", "text/plain")

    def do_GET(self):
        self.route("GET")

    def do_POST(self):
        self.route("POST")

    def do_DELETE(self):
        self.route("DELETE")

    # -- test hooks ---------------------------------------------------------

    def admin(self, method, path):
        st = self.state
        if method == "GET" and path == "/_admin/counts":
            with st.lock:
                out = {
                    "requests": dict(st.requests),
                    "mcp": dict(st.mcp),
                    "refresh_ok": st.refresh_ok,
                    "refresh_rejected": st.refresh_rejected,
                    "refresh_failed": st.refresh_failed,
                    "unauthorized": st.unauthorized,
                    "call_tokens": list(st.call_tokens),
                    "dpop_errors": list(st.dpop_errors),
                    "dpop_keys": list(st.dpop_keys),
                }
            return self.send(200, out)
        if method == "GET" and path == "/_admin/tokens":
            now = time.time()
            with st.lock:
                out = {
                    "access": [t for t, exp in st.access.items() if exp > now],
                    "refresh": sorted(st.refresh),
                    "issued": list(st.issued),
                }
            return self.send(200, out)
        if method == "POST" and path == "/_admin/set":
            try:
                change = json.loads(self.body() or b"{}")
            except ValueError:
                return self.send(400, {"error": "not JSON"})
            with st.lock:
                if "expires_in" in change:
                    st.expires_in = int(change["expires_in"])
                if change.get("reject_access"):
                    st.access.clear()
                if change.get("reject_refresh"):
                    st.refresh.clear()
                if "hold_401" in change:
                    st.hold = int(change["hold_401"])
                    st.holding = 0
                if "hold_refresh" in change:
                    st.hold_refresh = int(change["hold_refresh"])
                    st.holding_refresh = 0
                if "refresh_status" in change:
                    st.refresh_status = int(change["refresh_status"])
            return self.send(200, {})
        if method == "POST" and path == "/_admin/reset":
            self.body()
            with st.lock:
                st.requests.clear()
                st.mcp.clear()
                st.refresh_ok = st.refresh_rejected = st.refresh_failed = st.unauthorized = 0
                st.call_tokens.clear()
                st.dpop_errors.clear()
                st.dpop_keys.clear()
            return self.send(200, {})
        self.send(404, "Not Found", "text/plain")

    # -- the authorization server -------------------------------------------

    def register(self):
        try:
            meta = json.loads(self.body() or b"{}")
        except ValueError:
            return self.send(400, {"error": "invalid_client_metadata"})
        uris = meta.get("redirect_uris") or []
        client_id = "client-" + secrets.token_hex(6)
        with self.state.lock:
            self.state.clients[client_id] = list(uris)
        out = dict(meta)
        out.update(
            {
                "client_id": client_id,
                "client_id_issued_at": int(time.time()),
                "token_endpoint_auth_method": "none",
            }
        )
        self.send(201, out)

    def authorize(self):
        q = {k: v[0] for k, v in parse_qs(urlsplit(self.path).query).items()}
        client_id = q.get("client_id", "")
        redirect = q.get("redirect_uri", "")
        with self.state.lock:
            known = redirect in self.state.clients.get(client_id, [])
        if not known or q.get("code_challenge_method") != "S256" or not q.get("code_challenge"):
            return self.send(400, "bad authorization request", "text/plain")
        code = "code-" + secrets.token_urlsafe(12)
        with self.state.lock:
            self.state.codes[code] = {
                "client_id": client_id,
                "redirect_uri": redirect,
                "challenge": q["code_challenge"],
            }
        back = {"code": code}
        if "state" in q:
            back["state"] = q["state"]
        self.send(302, headers=[("Location", redirect + "?" + urlencode(back))])

    def token(self):
        form = {k: v[0] for k, v in parse_qs(self.body().decode(errors="replace")).items()}
        st = self.state
        grant = form.get("grant_type")
        jkt = None
        if st.dpop:
            try:
                jkt = check_proof(st, self.headers.get("DPoP"), "POST", st.base() + "/token")
            except Exception as e:  # noqa: BLE001 - any failure is the finding
                with st.lock:
                    st.dpop_errors.append(f"token request: {e}")
                return self.send(400, {"error": "invalid_dpop_proof", "error_description": str(e)})
            with st.lock:
                chain = st.bound.get(form.get("refresh_token", ""))
            if grant == "refresh_token" and chain != jkt:
                with st.lock:
                    st.dpop_errors.append("refresh proved with another key")
                return self.send(400, {"error": "invalid_grant", "error_description": "wrong key"})
        if grant == "authorization_code":
            with st.lock:
                entry = st.codes.pop(form.get("code", ""), None)
                good = (
                    entry is not None
                    and entry["client_id"] == form.get("client_id")
                    and entry["redirect_uri"] == form.get("redirect_uri")
                    and s256(form.get("code_verifier", "")) == entry["challenge"]
                )
                issued = st.issue("authorization_code", jkt) if good else None
            if issued:
                return self.send(200, issued)
            return self.send(400, {"error": "invalid_grant"})
        if grant == "refresh_token":
            if st.refresh_delay:
                time.sleep(st.refresh_delay)
            issued = None
            held = False
            with st.lock:
                if st.refresh_status:
                    status = st.refresh_status
                    st.refresh_failed += 1
                else:
                    status = 0
                if not status and st.hold_refresh > 0:
                    held = True
                    st.holding_refresh += 1
                    if st.holding_refresh >= st.hold_refresh:
                        st.hold_refresh = 0
                        st.cond.notify_all()
                    else:
                        st.cond.wait_for(lambda: st.hold_refresh == 0, timeout=20)
                        st.hold_refresh = 0
            if status:
                return self.send(status, {"error": "server_error", "error_description": "try later"})
            with st.lock:
                old = form.get("refresh_token", "")
                if old in st.refresh:
                    st.refresh.discard(old)  # rotation: the old one is spent
                    st.refresh_ok += 1
                    issued = st.issue("refresh_token", jkt)
                else:
                    st.refresh_rejected += 1
            if issued:
                return self.send(200, issued)
            if held:
                time.sleep(0.5)
            return self.send(
                400, {"error": "invalid_grant", "error_description": "unknown or spent refresh token"}
            )
        self.send(400, {"error": "unsupported_grant_type"})

    # -- the MCP server -----------------------------------------------------

    def authorized(self):
        """The access token, or None after answering 401."""
        st = self.state
        if not st.auth:
            return ""
        header = self.headers.get("Authorization") or ""
        scheme = "dpop " if st.dpop and not st.dpop_bearer else "bearer "
        token = header[len(scheme):].strip() if header[: len(scheme)].lower() == scheme else ""
        if st.dpop and header and not token:
            with st.lock:
                st.dpop_errors.append(f"MCP request with scheme {header.split(' ')[0]}")
        proven = True
        if st.dpop and not st.dpop_bearer and token:
            try:
                jkt = check_proof(
                    st, self.headers.get("DPoP"), self.command, st.base() + "/mcp", token
                )
                with st.lock:
                    if st.bound.get(token) != jkt:
                        raise ValueError("the proof's key is not the token's")
                    st.dpop_keys.append(jkt)
            except Exception as e:  # noqa: BLE001 - any failure is the finding
                with st.lock:
                    st.dpop_errors.append(f"MCP {self.command}: {e}")
                proven = False
        with st.lock:
            expiry = st.access.get(token)
            if proven and expiry is not None and expiry > time.time():
                return token
            st.unauthorized += 1
            if st.hold > 0:
                st.holding += 1
                if st.holding >= st.hold:
                    st.hold = 0
                    st.cond.notify_all()
                else:
                    st.cond.wait_for(lambda: st.hold == 0, timeout=20)
                    st.hold = 0
        scheme = 'DPoP algs="ES256", ' if st.dpop else "Bearer "
        challenge = f'{scheme}resource_metadata="{st.base()}/.well-known/oauth-protected-resource/mcp"'
        if token:
            challenge += ', error="invalid_token"'
        self.send(
            401,
            {"error": "invalid_token"},
            headers=[("WWW-Authenticate", challenge)],
        )
        return None

    def mcp(self, method):
        raw = self.body()
        token = self.authorized()
        if token is None:
            return
        st = self.state
        if method == "GET":
            return self.send(405, "no standalone stream", "text/plain", [("Allow", "POST, DELETE")])
        session = self.headers.get("Mcp-Session-Id")
        if method == "DELETE":
            with st.lock:
                known = session in st.sessions
                st.sessions.discard(session)
            return self.send(200 if known else 400)
        try:
            msg = json.loads(raw)
        except ValueError:
            return self.send(400, rpc_error(None, -32700, "parse error"))
        if not isinstance(msg, dict):
            return self.send(400, rpc_error(None, -32600, "one message per POST"))
        name = msg.get("method")
        st.count(name if name else "(response)", "mcp")
        if name == "server/discover":
            return self.send(400, rpc_error("server-error", -32600, "Bad Request: Missing session ID"))
        if name == "initialize":
            params = msg.get("params") or {}
            asked = params.get("protocolVersion")
            with st.lock:
                st.session_counter += 1
                sid = f"s{st.session_counter}"
                st.sessions.add(sid)
            result = {
                "protocolVersion": asked if asked in KNOWN_VERSIONS else KNOWN_VERSIONS[0],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "oauth-refresh", "version": "1.0"},
            }
            return self.send(200, rpc_result(msg.get("id"), result), headers=[("Mcp-Session-Id", sid)])
        with st.lock:
            live = session in st.sessions
        if not live:
            return self.send(400, rpc_error(None, -32600, "Bad Request: missing or unknown session"))
        if "id" not in msg or name is None:
            return self.send(202)
        req_id = msg["id"]
        if name == "ping":
            return self.send(200, rpc_result(req_id, {}))
        if name == "tools/list":
            return self.send(200, rpc_result(req_id, {"tools": TOOLS}))
        if name == "tools/call":
            tool = (msg.get("params") or {}).get("name")
            if tool not in [t["name"] for t in TOOLS]:
                return self.send(200, rpc_error(req_id, -32602, f"unknown tool {tool}"))
            with st.lock:
                st.call_tokens.append(token)
            return self.send(
                200, rpc_result(req_id, {"content": [{"type": "text", "text": f"called {tool}"}]})
            )
        self.send(200, rpc_error(req_id, -32601, f"method not found: {name}"))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--no-auth", action="store_true")
    p.add_argument("--expires-in", type=int, default=3600)
    p.add_argument("--refresh-delay", type=float, default=0.0)
    p.add_argument("--dpop", action="store_true")
    p.add_argument("--dpop-bearer", action="store_true")
    args = p.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    server.state = State(args)
    server.state.port = server.server_address[1]
    sys.stdout.write(f"PORT {server.state.port}\n")
    sys.stdout.flush()
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
