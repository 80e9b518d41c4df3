// An MCP server on stdio with MCP Apps views, for tests/cli_apps.rs: the
// official SDK's McpServer (@modelcontextprotocol/sdk) with the official
// MCP Apps helpers (@modelcontextprotocol/ext-apps/server), as app authors
// write them.
//   weather   a view with a CSP (an API origin, a CDN) and clipboardWrite;
//   sloppy    a view with problems: text/html, not an HTML document, a CSP
//             that allows every origin and a plain-http host, and a
//             permission hosts do not know;
//   plain     no view.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { registerAppTool, registerAppResource, RESOURCE_MIME_TYPE } from "@modelcontextprotocol/ext-apps/server";

const server = new McpServer({ name: "apps-test", version: "1.0.0" });
const text = (t) => ({ content: [{ type: "text", text: t }] });

registerAppTool(
  server,
  "weather",
  {
    description: "Today's weather, with an interactive view",
    inputSchema: {},
    _meta: { ui: { resourceUri: "ui://weather/view.html", visibility: ["model", "app"] } },
  },
  async () => text("sunny, 21 °C"),
);
registerAppResource(server, "weather view", "ui://weather/view.html", {}, async () => ({
  contents: [
    {
      uri: "ui://weather/view.html",
      mimeType: RESOURCE_MIME_TYPE,
      text: "<!DOCTYPE html>\n<html><head><title>Weather</title></head><body><div id=app></div></body></html>\n",
      _meta: {
        ui: {
          csp: { connectDomains: ["https://api.weather.example"], resourceDomains: ["https://cdn.example.com"] },
          permissions: { clipboardWrite: {} },
          prefersBorder: true,
        },
      },
    },
  ],
}));

registerAppTool(
  server,
  "sloppy",
  { description: "A view with problems", inputSchema: {}, _meta: { ui: { resourceUri: "ui://sloppy/view" } } },
  async () => text("ok"),
);
server.registerResource("sloppy view", "ui://sloppy/view", { mimeType: "text/html" }, async () => ({
  contents: [
    {
      uri: "ui://sloppy/view",
      mimeType: "text/html",
      text: "just some words",
      _meta: { ui: { csp: { connectDomains: ["*", "http://api.example.com"] }, permissions: { usb: {} } } },
    },
  ],
}));

server.registerTool("plain", { description: "No view", inputSchema: {} }, async () => text("plain"));

await server.connect(new StdioServerTransport());
