// Drives examples/codesearch with the official MCP TypeScript SDK client, over stdio and
// over Streamable HTTP: every tool, paging with the cursor, chunk boundaries of a known file,
// path escapes, a file changed on disk found by the next search, the resources and path
// completion, and an OpenAI-compatible embeddings endpoint (served here) used and failing.
// The SDK validates every message with its own schemas and checks structuredContent against
// each tool's outputSchema, so a server that is wrong in either way fails here.
//
// Usage: node codesearch.mjs <codesearch binary>
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const binary = process.argv[2];
if (!binary) {
  console.error("usage: node codesearch.mjs <codesearch binary>");
  process.exit(2);
}

const sample = `// Package sample is searched by the tests.
package sample

// Greeter greets people.
type Greeter struct {
	Name string
}

// Greet says hello to g.Name.
func (g *Greeter) Greet() string {
	return "hello, " + g.Name
}
`;

// makeTree writes the tree the server searches, a secret outside it, and a link to it.
function makeTree() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "codesearch-ts-"));
  const outside = fs.mkdtempSync(path.join(os.tmpdir(), "codesearch-outside-"));
  const files = {
    "sample.go": sample,
    "notes/todo.txt": "one hello\ntwo\nthree hello\nfour hello\n",
    ".gitignore": "ignored/\n",
    "ignored/x.txt": "hello from an ignored directory\n",
    "vendor/v.go": "package v // hello vendored\n",
    "data.bin": "hello\u0000binary",
  };
  for (const [p, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, p)), { recursive: true });
    fs.writeFileSync(path.join(root, p), content);
  }
  fs.writeFileSync(path.join(outside, "secret.txt"), "TOP SECRET\n");
  fs.symlinkSync(path.join(outside, "secret.txt"), path.join(root, "secret-link.txt"));
  return { root, cleanup: () => [root, outside].forEach((d) => fs.rmSync(d, { recursive: true, force: true })) };
}

// An OpenAI-compatible embeddings endpoint: vectors of hashed word counts.
let failEmbeddings = false;
const embedServer = http.createServer((req, res) => {
  let body = "";
  req.on("data", (c) => (body += c));
  req.on("end", () => {
    if (failEmbeddings || req.url !== "/v1/embeddings") {
      res.writeHead(500, { "Content-Type": "text/plain" });
      res.end("the model is not loaded");
      return;
    }
    const { input } = JSON.parse(body);
    const data = input.map((text, index) => {
      const v = new Array(32).fill(0);
      for (const w of text.toLowerCase().split(/[^a-z0-9]+/).filter((w) => w.length > 2)) {
        let h = 0;
        for (const ch of w) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
        v[h % 32] += 1;
      }
      return { index, embedding: v };
    });
    res.writeHead(200, { "Content-Type": "application/json" });
    res.end(JSON.stringify({ object: "list", data }));
  });
});
await new Promise((resolve) => embedServer.listen(0, "127.0.0.1", resolve));
const embedURL = `http://127.0.0.1:${embedServer.address().port}/v1`;

// startHTTP runs the server with --http on a free port and returns it and its URL.
async function startHTTP(args) {
  const proc = spawn(binary, ["--http", "127.0.0.1:0", ...args], { stdio: ["ignore", "inherit", "pipe"] });
  const url = await new Promise((resolve, reject) => {
    let buf = "";
    proc.stderr.on("data", (chunk) => {
      buf += chunk;
      const m = buf.match(/serving MCP at (\S+)/);
      if (m) resolve(m[1]);
    });
    proc.on("exit", (code) => reject(new Error(`the server exited (${code}): ${buf}`)));
  });
  return { proc, url };
}

async function stop(proc) {
  const exited = new Promise((resolve) => proc.on("exit", (code, signal) => resolve(code ?? signal)));
  proc.kill("SIGTERM");
  assert.equal(await exited, 0, "the server exits cleanly on SIGTERM");
}

const structured = (res) => {
  assert.notEqual(res.isError, true, JSON.stringify(res));
  return res.structuredContent;
};
const errorText = (res) => {
  assert.equal(res.isError, true, JSON.stringify(res));
  return res.content[0].text;
};

async function exercise(mode) {
  const { root, cleanup } = makeTree();
  const indexDir = fs.mkdtempSync(path.join(os.tmpdir(), "codesearch-index-"));
  const args = ["--index-dir", indexDir, "--embed-url", embedURL, "--embed-model", "hashed-words", root];
  let server;
  let transport;
  if (mode === "http") {
    server = await startHTTP(args);
    transport = new StreamableHTTPClientTransport(new URL(server.url));
  } else {
    transport = new StdioClientTransport({ command: binary, args, stderr: "ignore" });
  }
  const client = new Client({ name: "codesearch-e2e", version: "1.0.0" });
  await client.connect(transport);
  assert.equal(client.getServerVersion().name, "codesearch");
  const call = (name, args) => client.callTool({ name, arguments: args });

  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name).sort(), ["chunk_file", "chunk_files", "list_directory", "read_file", "search_by_embedding", "search_code"]);
  assert.ok(tools.find((t) => t.name === "search_code").outputSchema, "search_code declares an outputSchema");

  // search_code: matches with context; binary, vendored and ignored files left out.
  const hello = await call("search_code", { query: "hello" });
  let r = structured(hello);
  assert.deepEqual(r.matches.map((m) => `${m.file_path}:${m.line_number}:${m.column}`),
    ["notes/todo.txt:1:5", "notes/todo.txt:3:7", "notes/todo.txt:4:6", "sample.go:9:15", "sample.go:11:10"]);
  assert.deepEqual(r.matches[1].context_before, ["one hello", "two"]);
  assert.deepEqual(r.skipped.map((s) => s.reason), ["binary", "vendored"]);
  // Its text block is grep's output (grep -n --column -C2), then what the JSON's other fields say.
  assert.equal(hello.content[0].text, [
    "notes/todo.txt:1:5:one hello",
    "notes/todo.txt-2-two",
    "notes/todo.txt:3:7:three hello",
    "notes/todo.txt:4:6:four hello",
    "--",
    "sample.go-7-}",
    "sample.go-8-",
    "sample.go:9:15:// Greet says hello to g.Name.",
    "sample.go-10-func (g *Greeter) Greet() string {",
    'sample.go:11:10:\treturn "hello, " + g.Name',
    "sample.go-12-}",
    "",
    `5 matching lines; ${r.files_searched} files searched.`,
    "Not searched: 1 binary file (data.bin); 1 vendored file that may match (vendor/v.go: set include_vendored to search them).",
    "",
  ].join("\n"));
  // Paging: two at a time, with the cursor.
  const seen = [];
  let cursor;
  for (let page = 0; page < 10; page++) {
    const page = await call("search_code", { query: "hello", max_results: 2, ...(cursor ? { cursor } : {}) });
    r = structured(page);
    seen.push(...r.matches.map((m) => `${m.file_path}:${m.line_number}`));
    if (!r.truncated) break;
    // A client that reads only the text is told the cursor too.
    assert.ok(page.content[0].text.includes(`call search_code again with cursor "${r.next_cursor}"`), page.content[0].text);
    cursor = r.next_cursor;
  }
  assert.deepEqual(seen, ["notes/todo.txt:1", "notes/todo.txt:3", "notes/todo.txt:4", "sample.go:9", "sample.go:11"]);
  r = structured(await call("search_code", { query: "func \\(g \\*(\\w+)\\)", regex: true, case_sensitive: true }));
  assert.deepEqual(r.matches.map((m) => m.line_number), [10]);
  assert.match(errorText(await call("search_code", { query: "x(", regex: true })), /not a valid RE2 regular expression/);

  // list_directory, read_file with the header when paged.
  const l = structured(await call("list_directory", { path: "" }));
  assert.deepEqual(l.entries.map((e) => `${e.type} ${e.name}${e.note ? " " + e.note : ""}`),
    ["directory ignored ignored", "directory notes", "directory vendor vendored", "file .gitignore", "file data.bin binary", "file sample.go", "symlink secret-link.txt"]);
  let text = (await call("read_file", { file_path: "notes/todo.txt", offset: 2, limit: 2 })).content[0].text;
  assert.equal(text, "# Lines 2-3 of 4\ntwo\nthree hello\n");
  text = (await call("read_file", { file_path: "notes/todo.txt" })).content[0].text;
  assert.equal(text, "one hello\ntwo\nthree hello\nfour hello\n");

  // chunk_file: boundaries of the known file; chunk_files with a missing one.
  const fc = structured(await call("chunk_file", { file_path: "sample.go" }));
  assert.equal(fc.chunker, "go/parser");
  assert.deepEqual(fc.chunks.map((c) => `${c.kind} ${c.name} ${c.start_line}-${c.end_line}`),
    ["package sample 1-2", "struct Greeter 4-7", "method Greeter.Greet 9-12"]);
  const fcs = structured(await call("chunk_files", { file_paths: ["sample.go", "nope.go"] }));
  assert.equal(fcs.files.length, 1);
  assert.deepEqual(fcs.errors.map((e) => e.file_path), ["nope.go"]);

  // search_by_embedding through the endpoint; its failure is a tool error.
  const e = structured(await call("search_by_embedding", { query: "greet people", max_results: 1 }));
  assert.match(e.method, /hashed-words at http:\/\/127\.0\.0\.1:\d+\/v1\/embeddings/);
  assert.equal(e.results[0].file_path, "sample.go");
  failEmbeddings = true;
  assert.match(errorText(await call("search_by_embedding", { query: "greet people" })), /500 Internal Server Error: the model is not loaded/);
  failEmbeddings = false;

  // Paths out of the root are refused, and the secret never comes back.
  for (const p of ["../x", "/etc/passwd", "secret-link.txt", "a\u0000b"]) {
    for (const [tool, args] of [["read_file", { file_path: p }], ["list_directory", { path: p }], ["chunk_file", { file_path: p }], ["search_code", { query: "SECRET", path: p }]]) {
      const res = await call(tool, args);
      assert.equal(res.isError, true, `${tool} ${JSON.stringify(p)}: ${JSON.stringify(res)}`);
      assert.doesNotMatch(JSON.stringify(res), /TOP SECRET/);
      assert.match(res.content[0].text, /outside the root|absolute|NUL/);
    }
  }

  // A file written on disk is found by the next search.
  fs.writeFileSync(path.join(root, "notes", "fresh.txt"), "brand new words\n");
  r = structured(await call("search_code", { query: "brand new" }));
  assert.deepEqual(r.matches.map((m) => m.file_path), ["notes/fresh.txt"]);

  // Resources and completion.
  const { resources } = await client.listResources();
  assert.deepEqual(resources.map((x) => x.uri).sort(), ["codebase://files", "codebase://search"]);
  const { resourceTemplates } = await client.listResourceTemplates();
  assert.deepEqual(resourceTemplates.map((x) => x.uriTemplate), ["codebase://file/{+path}"]);
  const files = await client.readResource({ uri: "codebase://files" });
  assert.match(files.contents[0].text, /^notes\/fresh\.txt$/m);
  const file = await client.readResource({ uri: "codebase://file/sample.go" });
  assert.equal(file.contents[0].text, sample);
  const comp = await client.complete({ ref: { type: "ref/resource", uri: "codebase://file/{+path}" }, argument: { name: "path", value: "no" } });
  assert.deepEqual(comp.completion.values, ["notes/fresh.txt", "notes/todo.txt"]);

  await client.close();
  if (server) await stop(server.proc);
  cleanup();
  fs.rmSync(indexDir, { recursive: true, force: true });
  console.log(`ok: TypeScript SDK client over ${mode === "http" ? "Streamable HTTP" : "stdio"}: every codesearch tool, paging, chunks, path escapes, a change on disk, resources, completion, an embeddings endpoint`);
}

try {
  await exercise("stdio");
  await exercise("http");
} finally {
  embedServer.close();
}
