#!/usr/bin/env bash
# The main job, end to end: regenerate the weather example with mcpgen, build it, and have
# a real MCP client (the MCP Inspector CLI) list its tools and call get_weather over stdio,
# then over Streamable HTTP.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

INSPECTOR_VERSION=2.12.0

say "go generate ./examples/weather   (runs: go tool mcpgen)"
go generate ./examples/weather
go tool mcpgen check ./examples/weather
echo "examples/weather/mcp_gen.go is current"

say "go build -o bin/weather ./examples/weather"
go build -o bin/weather ./examples/weather

NODE=$(node22)
PATH="$(dirname "$NODE"):$PATH" # npm and the Inspector run on Node 22 from here on
if [ ! -x "$CACHE/inspector/node_modules/.bin/mcp-inspector" ]; then
  say "installing @modelcontextprotocol/inspector@$INSPECTOR_VERSION into .cache/inspector"
  mkdir -p "$CACHE/inspector"
  npm install --no-audit --no-fund --loglevel=error \
    --prefix "$CACHE/inspector" "@modelcontextprotocol/inspector@$INSPECTOR_VERSION"
fi
inspect() {
  "$CACHE/inspector/node_modules/.bin/mcp-inspector" --cli "$ROOT/bin/weather" "$@"
}

say "MCP Inspector: tools/list"
inspect --method tools/list

say "MCP Inspector: tools/call get_weather city=Lisbon units=imperial"
inspect --method tools/call --tool-name get_weather --tool-arg city=Lisbon --tool-arg units=imperial

say "MCP Inspector: tools/call get_weather units=kelvin   (invalid: a tool error naming each problem)"
# The Inspector prints the result, then exits non-zero with its own note that the tool
# reported an error: that is the expected outcome here.
inspect --method tools/call --tool-name get_weather --tool-arg units=kelvin || echo "(expected: the tool reported isError: true, and the Inspector says so above)"

say "weather --http 127.0.0.1:0   (Streamable HTTP; it prints its URL)"
serve_http "$ROOT/bin/weather"
trap 'stop_server >/dev/null' EXIT
echo "serving MCP at $SERVER_URL"

say "MCP Inspector over Streamable HTTP: tools/call get_weather city=Tokyo"
"$CACHE/inspector/node_modules/.bin/mcp-inspector" --cli "$SERVER_URL" --transport http \
  --method tools/call --tool-name get_weather --tool-arg city=Tokyo
trap - EXIT
stop_server
say "demo finished"
