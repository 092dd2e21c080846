// Drives examples/everything with old releases of the official MCP TypeScript SDK, which
// negotiate older protocol revisions: 1.0.4 (2024-11-05: stdio and HTTP+SSE only), 1.12.3
// (2025-03-26) and 1.20.2 (2025-06-18). Each lists the tools and calls those whose results
// older revisions must get right: audio (unknown before 2025-03-26), a tool that logs
// (its SSE stream must not start with a priming event those SDKs cannot parse), and one
// that closes its stream for polling (which those clients would not resume). The SDK
// validates every message with its own schemas.
//
// Usage: node old.mjs <sdk package alias> stdio <server command> | http <url> | sse <url>
import assert from "node:assert/strict";

const [sdk, mode, target] = process.argv.slice(2);
const { Client } = await import(`${sdk}/client/index.js`);
let transport;
if (mode === "stdio") {
  const { StdioClientTransport } = await import(`${sdk}/client/stdio.js`);
  transport = new StdioClientTransport({ command: target, args: [], stderr: "inherit" });
} else if (mode === "http") {
  const { StreamableHTTPClientTransport } = await import(`${sdk}/client/streamableHttp.js`);
  transport = new StreamableHTTPClientTransport(new URL(target));
} else if (mode === "sse") {
  // 1.0.4 takes EventSource from the browser's globals; Node has none.
  globalThis.EventSource ??= (await import("eventsource")).EventSource;
  const { SSEClientTransport } = await import(`${sdk}/client/sse.js`);
  transport = new SSEClientTransport(new URL(target));
} else {
  console.error("usage: node old.mjs <sdk> stdio <command> | http <url> | sse <url>");
  process.exit(2);
}

const client = new Client({ name: "mcpgen-e2e-old", version: "1.0.0" }, { capabilities: {} });
await client.connect(transport);
const { tools } = await client.listTools();
assert.ok(tools.some((t) => t.name === "test_audio_content"), "the tools are listed");

const audio = await client.callTool({ name: "test_audio_content", arguments: {} });
assert.equal(audio.content.length, 1);
const simple = await client.callTool({ name: "test_simple_text", arguments: {} });
assert.equal(simple.content[0].type, "text");
const logged = await client.callTool({ name: "test_tool_with_logging", arguments: {} });
assert.notEqual(logged.isError, true, JSON.stringify(logged));
const polled = await client.callTool({ name: "test_reconnection", arguments: {} });
assert.notEqual(polled.isError, true, JSON.stringify(polled));

await client.close();
console.log(`ok: TypeScript SDK ${sdk} over ${mode}: tools/list and 4 tools/call (audio as ${audio.content[0].type})`);
