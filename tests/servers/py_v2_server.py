"""mcpdeck test server on the official Python SDK mcp==2.3.0 (MCPServer, formerly FastMCP).

Serves both eras on one endpoint: the stateless 2026-07-28 era (server/discover, per-request
_meta) and the initialize handshake; the client's first request decides. Run with the venv's python:
    .deps/venv-v2/bin/python tests/servers/py_v2_server.py                 # stdio, dual era
    .deps/venv-v2/bin/python tests/servers/py_v2_server.py --legacy-only   # stdio, handshake era only
    .deps/venv-v2/bin/python tests/servers/py_v2_server.py --http PORT     # streamable HTTP, http://127.0.0.1:PORT/mcp
--legacy-only drives the SDK's handshake-only runner.serve_loop (MCPServer.run() has no era switch):
server/discover then gets -32601. It is stdio only.
echo also logs at info (ctx.info) and bumps the config://app resource (notifications/resources/updated
for a subscriptions/listen subscriber), as the demo server in the protocol transcripts does.
"""

import argparse
import asyncio
import warnings

import anyio
from pydantic import BaseModel

from typing import Annotated

from mcp.server.mcpserver import Context, Elicit, ListRoots, MCPServer, Resolve


class Person(BaseModel):
    name: str = "Ada"
    age: int = 36


def ask_person() -> Elicit[Person]:
    return Elicit("Who is asking?", Person)


def ask_roots() -> ListRoots:
    return ListRoots()


class Weather(BaseModel):
    city: str
    temperature_c: float
    conditions: str


# ctx.info uses the logging capability, deprecated in 2026-07-28: keep stderr free of that warning.
warnings.filterwarnings("ignore", message=".*deprecated as of 2026-07-28.*")


def build() -> MCPServer:
    mcp = MCPServer("py-v2", instructions="py-v2 test server", version="2.3.0", log_level="WARNING")

    @mcp.tool(description="Echo the text back, prefixed with 'echo: ' (no outputSchema).", structured_output=False)
    async def echo(text: str, ctx: Context) -> str:
        await ctx.info(f"echo called with {text!r}")
        await ctx.notify_resource_updated("config://app")
        return "echo: " + text

    @mcp.tool(
        description="Asks the client for a person (elicitation) and its roots; in the stateless era "
        "through resultType input_required, in the initialize era through server requests.",
        structured_output=False,
    )
    async def whoami(
        person: Annotated[Person, Resolve(ask_person)],
        roots: Annotated[object, Resolve(ask_roots)],
    ) -> str:
        uris = [str(r.uri) for r in getattr(roots, "roots", [])]
        return f"hello {person.name} ({person.age}); roots {uris}"

    @mcp.tool(description="Add two integers (structured output).")
    def add(a: int, b: int) -> int:
        return a + b

    @mcp.tool(description="Structured weather report (has outputSchema).")
    def get_weather(city: str) -> Weather:
        return Weather(city=city, temperature_c=21.5, conditions="sunny")

    @mcp.tool(description="Always raises, so the result has isError true.")
    def fail() -> str:
        raise RuntimeError("fail: this tool always fails")

    @mcp.tool(description="Reports progress for each step, sleeping 0.05 s per step.")
    async def slow(ctx: Context, steps: int = 3) -> str:
        for i in range(steps):
            await asyncio.sleep(0.05)
            await ctx.report_progress(i + 1, steps, f"step {i + 1}/{steps}")
        return f"done after {steps} steps"

    @mcp.resource("config://app", name="app_config", description="Static app config.", mime_type="application/json")
    def app_config() -> str:
        return '{"feature": true}'

    @mcp.prompt(description="Greet someone by name.")
    def greet(name: str) -> str:
        return f"Please greet {name} warmly."

    return mcp


async def serve_stdio_legacy_only(mcp: MCPServer) -> None:
    # Same as MCPServer.run_stdio_async, but with the handshake-only loop instead of
    # serve_dual_era_loop (what Server.run uses).
    from mcp.server.runner import serve_loop
    from mcp.server.stdio import stdio_server

    low = mcp._lowlevel_server
    async with stdio_server() as (read_stream, write_stream):
        async with low.lifespan(low) as state:
            await serve_loop(
                low, read_stream, write_stream, lifespan_state=state, init_options=low.create_initialization_options()
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--http", type=int, metavar="PORT", help="serve streamable HTTP on 127.0.0.1:PORT (/mcp)")
    parser.add_argument("--legacy-only", action="store_true", help="stdio: serve the initialize era only")
    args = parser.parse_args()
    mcp = build()
    if args.http is not None:
        if args.legacy_only:
            parser.error("--legacy-only is for stdio only")
        mcp.run("streamable-http", host="127.0.0.1", port=args.http)
    elif args.legacy_only:
        anyio.run(serve_stdio_legacy_only, mcp)
    else:
        mcp.run("stdio")


if __name__ == "__main__":
    main()
