"""A tiny MCP server on stdio (stdlib only) that tells what it was started with, for
tests/secrets.rs.

    python3 tests/servers/env_server.py [ARGS...]

Initialize era only (`server/discover` and other unknown methods: -32601). Tools:
  env   {"name": string} -> text: the value of that environment variable, or "<unset>"
  argv  {}               -> text: its command-line arguments (after the script), joined by spaces
"""

import json
import os
import sys

TOOLS = [
    {
        "name": "env",
        "description": "The value of one environment variable.",
        "inputSchema": {
            "type": "object",
            "properties": {"name": {"type": "string"}},
            "required": ["name"],
        },
    },
    {
        "name": "argv",
        "description": "The server's command-line arguments.",
        "inputSchema": {"type": "object", "properties": {}},
    },
]


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def text(value):
    return {"content": [{"type": "text", "text": value}], "isError": False}


def answer(method, params):
    if method == "initialize":
        return {
            "protocolVersion": params.get("protocolVersion", "2025-06-18"),
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "env-server", "version": "1.0"},
        }
    if method == "ping":
        return {}
    if method == "tools/list":
        return {"tools": TOOLS}
    if method == "tools/call":
        name = params.get("name")
        args = params.get("arguments") or {}
        if name == "env":
            return text(os.environ.get(str(args.get("name")), "<unset>"))
        if name == "argv":
            return text(" ".join(sys.argv[1:]))
        raise LookupError(f"unknown tool {name}")
    raise NotImplementedError(method)


def main():
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if not isinstance(message, dict) or "id" not in message or "method" not in message:
            continue
        try:
            result = answer(message["method"], message.get("params") or {})
            send({"jsonrpc": "2.0", "id": message["id"], "result": result})
        except NotImplementedError:
            send({
                "jsonrpc": "2.0",
                "id": message["id"],
                "error": {"code": -32601, "message": "Method not found"},
            })
        except LookupError as e:
            send({"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32602, "message": str(e)}})


if __name__ == "__main__":
    main()
