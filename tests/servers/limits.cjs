// A small MCP server on stdio for tests/cli_limits.rs, by MODE (argv[2]):
//   hang   reads stdin and never answers (not even initialize);
//   slow   as tools, but answers initialize after 800 ms;
//   tools  answers initialize and tools/list; its tools:
//          `wait` never answers, `fail` answers with a JSON-RPC error
//          (code -32042, with data), `long` has a 54-line description
//          and a nested inputSchema and an outputSchema, `echo` echoes.
"use strict";
const mode = process.argv[2] || "tools";
const readline = require("readline");

const longDescription = Array.from(
  { length: 54 },
  (_, i) => `Line ${i + 1} of the long description.`,
).join("\n");

const tools = [
  {
    name: "wait",
    description: "Never answers.",
    inputSchema: { type: "object", properties: {} },
  },
  {
    name: "fail",
    description: "Answers with a JSON-RPC error.",
    inputSchema: { type: "object", properties: {} },
  },
  {
    name: "echo",
    description: "Echoes its message.",
    inputSchema: {
      type: "object",
      properties: { message: { type: "string" } },
      required: ["message"],
    },
  },
  {
    name: "long",
    title: "Long one",
    description: longDescription,
    annotations: { readOnlyHint: true, idempotentHint: true },
    inputSchema: {
      type: "object",
      properties: {
        city: { type: "string", description: "The city to look up." },
        units: {
          type: "string",
          enum: ["metric", "imperial"],
          default: "metric",
          description: "Which units.",
        },
        options: {
          type: "object",
          description: "More options.",
          properties: {
            depth: { type: "integer", minimum: 1, description: "How deep." },
          },
          required: ["depth"],
        },
      },
      required: ["city"],
    },
    outputSchema: {
      type: "object",
      properties: { temperature: { type: "number", description: "Degrees." } },
      required: ["temperature"],
    },
  },
];

function send(msg) {
  process.stdout.write(JSON.stringify(msg) + "\n");
}

const rl = readline.createInterface({ input: process.stdin });
rl.on("line", (line) => {
  if (mode === "hang") return;
  let msg;
  try {
    msg = JSON.parse(line);
  } catch {
    return;
  }
  if (msg.id === undefined || !msg.method) return;
  const id = msg.id;
  switch (msg.method) {
    case "initialize":
      (mode === "slow" ? (f) => setTimeout(f, 800) : (f) => f())(() => send({
        jsonrpc: "2.0",
        id,
        result: {
          protocolVersion: (msg.params && msg.params.protocolVersion) || "2025-06-18",
          capabilities: { tools: {} },
          serverInfo: { name: "limits", version: "1.0.0" },
        },
      }));
      return;
    case "tools/list":
      send({ jsonrpc: "2.0", id, result: { tools } });
      return;
    case "tools/call": {
      const name = msg.params && msg.params.name;
      if (name === "wait") return;
      if (name === "fail") {
        send({
          jsonrpc: "2.0",
          id,
          error: { code: -32042, message: "fail always fails", data: { why: "on purpose" } },
        });
        return;
      }
      const text = JSON.stringify((msg.params && msg.params.arguments) || {});
      send({ jsonrpc: "2.0", id, result: { content: [{ type: "text", text }] } });
      return;
    }
    default:
      send({ jsonrpc: "2.0", id, error: { code: -32601, message: "no " + msg.method } });
  }
});
