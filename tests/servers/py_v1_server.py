"""mcpdeck test server on the official Python SDK mcp==1.30.0 (FastMCP).

Initialize era only. Run with the venv's python:
    .deps/venv-v1/bin/python tests/servers/py_v1_server.py              # stdio
    .deps/venv-v1/bin/python tests/servers/py_v1_server.py --http PORT  # streamable HTTP, http://127.0.0.1:PORT/mcp
"""

import argparse
import asyncio

from pydantic import BaseModel

from mcp.server.fastmcp import Context, FastMCP


class Weather(BaseModel):
    city: str
    temperature_c: float
    conditions: str


def build(port: int) -> FastMCP:
    mcp = FastMCP(
        "py-v1",
        instructions="py-v1 test server",
        host="127.0.0.1",
        port=port,
        log_level="WARNING",
    )

    @mcp.tool(description="Echo the text back, prefixed with 'echo: ' (no outputSchema).", structured_output=False)
    def echo(text: str) -> str:
        return "echo: " + text

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--http", type=int, metavar="PORT", help="serve streamable HTTP on 127.0.0.1:PORT (/mcp)")
    args = parser.parse_args()
    if args.http is None:
        build(0).run("stdio")
    else:
        build(args.http).run("streamable-http")


if __name__ == "__main__":
    main()
