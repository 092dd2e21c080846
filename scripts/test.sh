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

say "go vet ./..."
go vet ./...

say "mcpgen check: generated files of the examples and golden cases are current"
go tool mcpgen check ./examples/... ./golden/features ./golden/headers ./golden/methods ./golden/shapes ./golden/types ./golden/zoo

say "go test -race ./...   (unit, golden, end-to-end over stdio, fuzz seed corpora)"
go test -race -count=1 ./...

say "bench module (mcpgen against the official Go SDK): current, vetted, and each benchmark run briefly"
(cd bench && go tool mcpgen check ./... && go vet ./... && go test -run '^$' -bench . -benchtime 10x ./... >/dev/null)

say "official MCP TypeScript SDK client against examples/weather over stdio and Streamable HTTP"
npm_ci e2e/tsclient
go build -o bin/weather ./examples/weather
node e2e/tsclient/client.mjs bin/weather
serve_http bin/weather
trap 'stop_server >/dev/null' EXIT
node e2e/tsclient/client.mjs "$SERVER_URL"
trap - EXIT
stop_server

say "official MCP TypeScript SDK client against examples/everything over stdio and Streamable HTTP"
go build -o bin/everything ./examples/everything
node e2e/tsclient/everything.mjs stdio bin/everything
serve_http bin/everything
trap 'stop_server >/dev/null' EXIT
node e2e/tsclient/everything.mjs http "$SERVER_URL"
trap - EXIT
stop_server

say "official MCP conformance suite (server, 2025-11-25 and 2026-07-28) against examples/everything"
./scripts/conformance.sh

say "all tests passed"
