#!/usr/bin/env python3
"""Regenerates the checked-in seed corpora in fuzz/seeds/<target>/.

Run from anywhere: python3 fuzz/seeds/make_seeds.py [TRANSCRIPTS_DIR]
(default ../shared/protocol/transcripts, relative to the repository).

- frame: one file per JSON line of the transcripts (stdio lines, HTTP
  bodies, SSE `data:`), deduplicated, plus a few hand-written odd frames;
- sse: the SSE response bodies of the HTTP transcripts (each prefixed with
  one byte, the fuzz target's count of chunk-size bytes, here 0), plus
  hand-written streams (CRLF, BOM, id/retry, comments);
- config: tests/fixtures/config/*.toml and config.example.toml;
- uritemplate, www_authenticate: hand-written;
- schema: every inputSchema/outputSchema of the transcripts' tools/list.

The seeds are checked in, so a clean clone has them without this script.
Files named regression-* are inputs that once crashed a target (see
tests/fuzz_regressions.rs); they are added by hand and this script leaves
them alone.
"""
import hashlib
import json
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO / "fuzz" / "seeds"
TRANSCRIPTS = Path(sys.argv[1]) if len(sys.argv) > 1 else REPO.parent / "shared" / "protocol" / "transcripts"
LINE = re.compile(r"^\[\s*[\d.]+\]\s+(?:(?:C->S|S->C)\s+|#(\d+)\s+(>>>|<<<)\s+)(.*)$")


def put(target, data, name=None):
    if isinstance(data, str):
        data = data.encode()
    d = CORPUS / target
    d.mkdir(parents=True, exist_ok=True)
    name = name or hashlib.sha1(data).hexdigest()[:16]
    (d / name).write_bytes(data)


def schemas(value, out):
    if isinstance(value, dict):
        for key in ("inputSchema", "outputSchema"):
            if isinstance(value.get(key), dict):
                out.append(value[key])
        for v in value.values():
            schemas(v, out)
    elif isinstance(value, list):
        for v in value:
            schemas(v, out)


def main():
    frames, bodies, found = set(), {}, []
    for path in sorted(TRANSCRIPTS.glob("*.txt")):
        for raw in path.read_text(encoding="utf-8", errors="replace").splitlines():
            m = LINE.match(raw)
            if not m:
                continue
            exchange, direction, rest = m.groups()
            if direction == "<<<" and re.match(r"^(event|data|id|retry):", rest):
                bodies.setdefault((path.name, exchange), []).append(rest)
                if rest.startswith("data:"):
                    rest = rest[5:].strip()
            if direction == ">>>" and rest.startswith("body "):
                rest = rest[5:]
            if rest.startswith("{") or rest.startswith("["):
                try:
                    value = json.loads(rest)
                except ValueError:
                    continue
                frames.add(rest)
                schemas(value, found)
    for f in sorted(frames):
        put("frame", f)
    for f in [
        "", "[]", "[1, 2]", "null", '{"jsonrpc":"1.0","id":1,"result":{}}',
        '{"id":1,"result":{}}', '{"jsonrpc":"2.0","id":null,"method":"x"}',
        '{"jsonrpc":"2.0","id":1.5,"result":1}', '{"jsonrpc":"2.0","id":18446744073709551615,"error":{"code":"x"}}',
        '{"jsonrpc":"2.0","id":{},"result":1}', '{"jsonrpc":"2.0","method":3}', '{"jsonrpc":"2.0","id":"a","result":1,"error":2}',
        '[{"jsonrpc":"2.0","method":"a","params":3},{"jsonrpc":"2.0","id":2}]', '{"jsonrpc":"2.0","id":1',
    ]:
        put("frame", f)
    for lines in bodies.values():
        text = ""
        for line in lines:
            if line.startswith("event:") and text:
                text += "\n"
            text += line + "\n"
        put("sse", b"\0" + (text + "\n").encode())
    for s in [
        b"\0data: a\r\n\r\n", b"\x03\x01\x00\x05\xef\xbb\xbfdata: x\n\n", b"\0id: 7\nretry: 1500\ndata:\n\n",
        b"\0: keep-alive\n\nevent: message\ndata: {}\ndata: {}\n\n", b"\x02\x01\x02data\rdata:\xff\r\rbogus\nid\n\n",
        b"\0data: unterminated", b"\x01\x00id: \x00\ndata: z\n\n", b"\0retry: 9x\nfoo: bar\n\n",
    ]:
        put("sse", s)
    for f in sorted((REPO / "tests" / "fixtures" / "config").glob("*.toml")) + [REPO / "config.example.toml"]:
        put("config", f.read_bytes(), f.name)
    for t in [
        "demo://resource/dynamic/text/{resourceId}\0resourceId\0123",
        "file:///{+path}\0path\0a/b c", "https://x.example{/a,b}{?q,r}{&s}{#frag}\0a\0x\0b\0y\0q\01\0frag\0f",
        "{var:3}\0var\0value", "{.x*}{;y}\0x\0a\0y\0b", "{", "}{", "a{b}c{b}\0b\0ä",
        "{%41}", "x{/list*}\0list\0",
    ]:
        put("uritemplate", t)
    for h in [
        'Bearer realm="mcp", resource_metadata="https://x.example/.well-known/oauth-protected-resource/mcp", scope="files:read files:write", error="insufficient_scope", error_description="needs \\"write\\", sorry"',
        'Basic realm="a, b", Bearer scope=read, DPoP algs="ES256 PS256"',
        'Basic realm=x\nbearer Error=invalid_token, RESOURCE_METADATA="https://r"',
        "Basic dXNlcjpwYXNz==, Bearer", 'Bearer realm="fake", resource_metadata="http://127.0.0.1:1/.well-known/oauth-protected-resource/mcp"',
        'Bearer error="invalid_token", resource_metadata="http://127.0.0.1:1/prm"', 'Bearer a="x\\', ",,,=",
    ]:
        put("www_authenticate", h)
    seen = set()
    for s in found:
        text = json.dumps(s)
        if text not in seen:
            seen.add(text)
            put("schema", text)
    for s in [
        '{"$ref":"#"}', '{"type":"object","required":["a"],"properties":{"a":{"$ref":"#/$defs/n"}},"$defs":{"n":{"type":"array","minItems":3,"items":{"$ref":"#/$defs/n"}}}}',
        '{"type":"string","pattern":"^[a-z]{3}$","minLength":2,"maxLength":5}', '{"type":"integer","minimum":3,"exclusiveMaximum":4,"multipleOf":2}',
        '{"anyOf":[{"type":"null"},{"allOf":[{"properties":{"x":{"const":1}}},{"required":["x"]}]}]}', 'true', '[]',
        '{"type":["null","number"],"format":"date-time","enum":[]}',
    ]:
        put("schema", s)


main()
