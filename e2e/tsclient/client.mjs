// Drives the weather example with the official MCP TypeScript SDK client, over stdio or
// Streamable HTTP: connect (initialize), list tools, call get_weather well and badly, and
// close.
// The SDK validates every message with its own schemas and checks structuredContent
// against the tool's outputSchema, so a server that is wrong in either way fails here.
//
// Usage: node client.mjs <server command> [args...] | <http://... URL>
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [command, ...args] = process.argv.slice(2);
if (!command) {
  console.error("usage: node client.mjs <server command> [args...] | <http://... URL>");
  process.exit(2);
}

const overHTTP = /^https?:\/\//.test(command);
const transport = overHTTP
  ? new StreamableHTTPClientTransport(new URL(command))
  : new StdioClientTransport({ command, args, stderr: "inherit" });
const client = new Client({ name: "mcpgen-e2e", version: "1.0.0" });
await client.connect(transport);

const info = client.getServerVersion();
assert.equal(info.name, "weather");

const { tools } = await client.listTools();
assert.equal(tools.length, 1);
const tool = tools[0];
assert.equal(tool.name, "get_weather");
assert.equal(tool.title, "Current weather");
assert.deepEqual(tool.inputSchema.required, ["city"]);
assert.deepEqual(tool.inputSchema.properties.units.enum, ["metric", "imperial"]);
assert.equal(tool.annotations.readOnlyHint, true);
assert.ok(tool.outputSchema, "get_weather declares an outputSchema");

const good = await client.callTool({ name: "get_weather", arguments: { city: "Lisbon", units: "imperial" } });
assert.notEqual(good.isError, true, JSON.stringify(good));
assert.equal(good.structuredContent.city, "Lisbon");
assert.equal(good.structuredContent.units, "imperial");
assert.equal(good.structuredContent.forecast.length, 3);
assert.deepEqual(JSON.parse(good.content[0].text), good.structuredContent);

const bad = await client.callTool({ name: "get_weather", arguments: { city: "", units: "kelvin" } });
assert.equal(bad.isError, true);
assert.match(bad.content[0].text, /\/city: must be at least 1 character long/);
assert.match(bad.content[0].text, /\/units: must be one of "metric", "imperial"/);

await assert.rejects(client.callTool({ name: "get_forecast", arguments: {} }), /Unknown tool|unknown tool/);

await client.close();
console.log(`ok: TypeScript SDK client over ${overHTTP ? "Streamable HTTP" : "stdio"}: initialize, tools/list, 3 tools/call against ${info.name} ${info.version}`);
