// A stdio MCP server whose tool schema is written by Zod (through the
// TypeScript SDK): `int()` puts its bounds at Number.MAX_SAFE_INTEGER, so
// the argument form must show "≥ 1", not "1 to 9007199254740991". Run with
// NODE_PATH pointing at the test node_modules.
const { McpServer } = require("@modelcontextprotocol/sdk/server/mcp.js");
const { StdioServerTransport } = require("@modelcontextprotocol/sdk/server/stdio.js");
const { z } = require("zod");

const server = new McpServer({ name: "zod-bounds", version: "1.0.0" });
server.registerTool(
  "pick",
  {
    description: "Pick some items at a log level.",
    inputSchema: {
      count: z.number().int().min(1).describe("How many items to pick"),
      level: z
        .enum(["debug", "info", "warning", "error"])
        .describe(
          "The log level to pick them at; a long description that goes on and on so that it cannot fit on one row of any terminal, and ends with the word whole"
        ),
      offset: z.number().int().describe("Where to start"),
    },
  },
  async (args) => ({ content: [{ type: "text", text: `picked ${JSON.stringify(args)}` }] })
);
server.connect(new StdioServerTransport());
