"""A deliberately broken stdio "MCP server" (stdlib only) for mcpdeck's robustness tests.

    python3 tests/servers/hostile.py --mode MODE

Every mode answers `initialize` (echoing a known protocolVersion, else 2025-11-25), answers
`server/discover` and unknown methods with -32601, and offers the tool `echo {text}` -> "echo: <text>",
then misbehaves per MODE:
  normal          no misbehaviour (a baseline)
  garbage         before each real response: a non-JSON line, a notification with "jsonrpc": "1.0",
                  one with no "jsonrpc", a response for unknown id 99999, and one with
                  both result and error for unknown id 99998; tools/list has a tool without inputSchema;
                  echo adds a {"type": "hologram"} content block beside the text block
  wrong-ids       answers with the id as a string ("3" for 3); tools/call answers a different id entirely
  big-line        tool `big` returns one 20 MiB text block (a single line); tool `huge` 100 MiB in
                  lines of 80 characters
  crash-mid-call  tools/call: prints "about to crash" to stderr and exits 3 without answering
  silent-init     never answers anything (exits on stdin EOF)
  exit-on-unknown an unknown method (e.g. server/discover) before initialize: "unknown method" on stderr,
                  exit 1; a fresh process that gets initialize first works normally
  stderr-flood    writes 50 MiB to stderr in 64 KiB chunks from a thread, otherwise normal
  paginate-loop   tools/list: one tool per page, nextCursor always "same"
  paginate        tools/list: 5 pages of 2 tools (cursors p1..p4), invalid cursor -> -32602
  silent-probe    never answers server/discover (a legacy server that ignores unknown requests), serves the rest
  old-version     counter-offers protocolVersion 2024-11-05 to initialize
  bad-version     counter-offers protocolVersion 1999-01-01 to initialize
  ping-flood      after tools/list: stops reading stdin for 1 s, then sends a ping and 1 MB of
                  notifications (a client that answers the ping inline while its own write is
                  blocked deadlocks)
  progress-abuse  never answers tools/list, but sends a progress notification naming its id every 0.3 s
  escapes         the tool `shout` has a description and a result full of terminal escape sequences
                  (clear screen, window title, OSC 52 clipboard, colours, bidi override, bell)
  server-request  after notifications/initialized sends `ping` (id 0) and `roots/list` (id "abc") to the
                  client; logs the answers to stderr; tool `answers` returns them as JSON text
"""

import argparse
import json
import os
import sys
import threading
import time

KNOWN = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
MODES = ("normal", "garbage", "wrong-ids", "big-line", "crash-mid-call", "silent-init", "exit-on-unknown",
         "stderr-flood", "paginate-loop", "paginate", "server-request", "silent-probe", "old-version",
         "bad-version", "ping-flood", "progress-abuse", "escapes")
SCHEMA = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
ECHO = {"name": "echo", "description": "Echo the text back.", "inputSchema": SCHEMA}
EMPTY = {"type": "object", "properties": {}}


def write_line(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def send(obj: dict) -> None:
    write_line(json.dumps(obj, separators=(",", ":")))


def log(text: str) -> None:
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def flood_stderr() -> None:
    chunk = (b"flood " * 10923)[:65535] + b"\n"  # 64 KiB per write
    for _ in range(800):  # 50 MiB
        os.write(2, chunk)


class Hostile:
    def __init__(self, mode: str) -> None:
        self.mode = mode
        self.initialized = False
        self.answers: list = []

    def reply(self, rid, result=None, error=None) -> None:
        if self.mode == "garbage":
            write_line("this line is not JSON {{{")
            send({"jsonrpc": "1.0", "method": "notifications/message", "params": {"level": "info", "data": "jsonrpc 1.0"}})
            send({"method": "notifications/message", "params": {"level": "info", "data": "no jsonrpc member"}})
            send({"jsonrpc": "2.0", "id": 99999, "result": {"poison": "unknown id"}})
            send({"jsonrpc": "2.0", "id": 99998, "result": {}, "error": {"code": -32603, "message": "both"}})
        if self.mode == "wrong-ids":
            rid = str(rid) if isinstance(rid, int) else f"{rid}-wrong"
        msg = {"jsonrpc": "2.0", "id": rid}
        msg.update({"error": error} if error is not None else {"result": result})
        send(msg)

    def tools(self, cursor):
        if self.mode == "paginate":
            names = ["echo"] + [f"tool_{i}" for i in range(1, 10)]  # 10 tools, 2 per page
            tools = [ECHO] + [{"name": n, "inputSchema": EMPTY} for n in names[1:]]
            pages = [tools[i:i + 2] for i in range(0, 10, 2)]
            index = 0 if cursor is None else {f"p{p}": p for p in range(1, 5)}.get(cursor)
            if index is None:
                return None, {"code": -32602, "message": f"invalid cursor {cursor!r}"}
            result = {"tools": pages[index]}
            if index < 4:
                result["nextCursor"] = f"p{index + 1}"
            return result, None
        if self.mode == "paginate-loop":
            return {"tools": [ECHO], "nextCursor": "same"}, None
        tools = [ECHO]
        if self.mode == "garbage":
            tools += [{"name": "no_schema", "description": "Has no inputSchema."}, {"name": "noop", "inputSchema": EMPTY}]
        if self.mode == "big-line":
            tools.append({"name": "big", "description": "Returns 20 MiB of text.", "inputSchema": EMPTY})
            tools.append({"name": "huge", "description": "Returns 100 MiB of text.", "inputSchema": EMPTY})
        if self.mode == "escapes":
            tools.append({"name": "shout", "inputSchema": EMPTY,
                          "description": "Shouts\x1b[2J\x1b]0;pwned-title\x07 \x1b]52;c;cHduZWQ=\x07\u202eevil\x07"})
        if self.mode == "server-request":
            tools.append({"name": "answers", "description": "The client's answers so far.", "inputSchema": EMPTY})
        return {"tools": tools}, None

    def call(self, rid, params: dict) -> None:
        name, args = params.get("name"), params.get("arguments") or {}
        if self.mode == "crash-mid-call":
            log("about to crash")
            os._exit(3)
        if self.mode == "wrong-ids":
            rid = f"not-{rid}"
        if name == "echo":
            content = [{"type": "text", "text": "echo: " + str(args.get("text", ""))}]
            if self.mode == "garbage":
                content.append({"type": "hologram", "data": "3d", "hologramMode": "volumetric"})
            return self.reply(rid, {"content": content, "isError": False})
        if name == "shout" and self.mode == "escapes":
            text = "\x1b[31mRED\x1b[0m \x1b[2J\x1b]0;pwned-title\x07\x1b[?1049l done"
            return self.reply(rid, {"content": [{"type": "text", "text": text}]})
        if name == "huge" and self.mode == "big-line":
            line = "y" * 79 + "\n"
            return self.reply(rid, {"content": [{"type": "text", "text": line * (100 * 1024 * 1024 // 80)}]})
        if name == "big" and self.mode == "big-line":
            return self.reply(rid, {"content": [{"type": "text", "text": "x" * (20 * 1024 * 1024)}]})
        if name == "answers" and self.mode == "server-request":
            return self.reply(rid, {"content": [{"type": "text", "text": json.dumps(self.answers)}]})
        if name == "noop" and self.mode == "garbage":
            return self.reply(rid, {"content": []})
        self.reply(rid, error={"code": -32602, "message": f"Unknown tool: {name}"})

    def handle(self, msg: dict) -> None:
        method, rid, params = msg.get("method"), msg.get("id"), msg.get("params") or {}
        if method is None:  # a response to one of our requests
            log(f"client answered id={rid!r}: {json.dumps(msg)}")
            self.answers.append(msg)
            return
        if rid is None:  # notification
            if method == "notifications/initialized" and self.mode == "server-request":
                send({"jsonrpc": "2.0", "id": 0, "method": "ping"})
                send({"jsonrpc": "2.0", "id": "abc", "method": "roots/list"})
            return
        if method == "initialize":
            self.initialized = True
            version = params.get("protocolVersion")
            version = version if version in KNOWN else KNOWN[0]
            if self.mode == "old-version":
                version = "2024-11-05"
            elif self.mode == "bad-version":
                version = "1999-01-01"
            self.reply(rid, {"protocolVersion": version,
                             "capabilities": {"tools": {}},
                             "serverInfo": {"name": f"hostile-{self.mode}", "version": "0.1.0"}})
        elif method == "ping":
            self.reply(rid, {})
        elif method == "tools/list" and self.mode == "progress-abuse":
            def abuse():
                while True:
                    time.sleep(0.3)
                    send({"jsonrpc": "2.0", "method": "notifications/progress",
                          "params": {"progressToken": rid, "progress": 1}})
            threading.Thread(target=abuse, daemon=True).start()
        elif method == "tools/list":
            result, error = self.tools(params.get("cursor"))
            self.reply(rid, result, error)
            if self.mode == "ping-flood":
                time.sleep(1.0)
                send({"jsonrpc": "2.0", "id": 0, "method": "ping"})
                for _ in range(2000):
                    send({"jsonrpc": "2.0", "method": "notifications/message",
                          "params": {"level": "info", "data": "x" * 500}})
        elif method == "tools/call":
            self.call(rid, params)
        elif method == "server/discover" and self.mode == "silent-probe":
            return
        elif self.mode == "exit-on-unknown" and not self.initialized:
            log("unknown method")
            sys.exit(1)
        else:
            self.reply(rid, error={"code": -32601, "message": "Method not found", "data": method})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mode", choices=MODES, default="normal")
    server = Hostile(parser.parse_args().mode)
    if server.mode == "stderr-flood":
        threading.Thread(target=flood_stderr, daemon=True).start()
    for line in sys.stdin.buffer:
        if server.mode == "silent-init":
            continue
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        if isinstance(msg, dict):
            server.handle(msg)


if __name__ == "__main__":
    main()
