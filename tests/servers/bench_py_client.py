"""The official Python SDK's own client (mcp==2.3.0) timing sequential tools/call round trips over
streamable HTTP, for benches/http.rs to set beside mcpdeck. Run with the venv's python:
    .deps/venv-v2/bin/python tests/servers/bench_py_client.py URL N [--rounds R] [--warmup W]
        [--tool echo] [--args '{"text": "hi"}']
Connects with `mcp.Client(URL)` (the SDK's streamable_http_client; default mode "auto": server/discover,
falling back to initialize, as mcpdeck does), makes W untimed calls, then times R rounds of N sequential
calls on the one connection. Prints one JSON line on stdout:
    {"calls": N, "seconds": [wall time of each round], "cpu_seconds": [process CPU time of each round],
     "protocolVersion": "..."}
"""

import argparse
import json
import sys
import time

import anyio

from mcp import Client


async def run(url: str, calls: int, rounds: int, warmup: int, tool: str, arguments: dict) -> dict:
    async with Client(url) as client:
        for _ in range(warmup):
            result = await client.call_tool(tool, arguments)
            if result.is_error:
                raise SystemExit(f"{tool} returned isError: {result.content!r}")
        seconds = []
        cpu_seconds = []
        for _ in range(rounds):
            cpu = time.process_time()
            started = time.perf_counter()
            for _ in range(calls):
                await client.call_tool(tool, arguments)
            seconds.append(time.perf_counter() - started)
            cpu_seconds.append(time.process_time() - cpu)
        return {
            "calls": calls,
            "seconds": seconds,
            "cpu_seconds": cpu_seconds,
            "protocolVersion": client.protocol_version,
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("url")
    parser.add_argument("calls", type=int)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--tool", default="echo")
    parser.add_argument("--args", default='{"text": "hi"}', help="the tool's arguments, a JSON object")
    args = parser.parse_args()
    out = anyio.run(run, args.url, args.calls, args.rounds, args.warmup, args.tool, json.loads(args.args))
    json.dump(out, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
