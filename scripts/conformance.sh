#!/usr/bin/env bash
# Runs the official MCP conformance suite (server scenarios of revision 2025-11-25) against
# examples/everything over Streamable HTTP. The suite and Node.js 22 are installed into
# .cache/ on first use; the suite's version is pinned by e2e/conformance/package-lock.json.
#
# Exit status: non-zero if any scenario has a failing check, scored or not. Results (one
# checks.json per scenario) are kept in .cache/conformance/results/latest.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

NODE=$(node22)
suite="$CACHE/conformance"
mkdir -p "$suite"
if ! cmp -s e2e/conformance/package-lock.json "$suite/package-lock.json" || [ ! -d "$suite/node_modules" ]; then
  say "installing @modelcontextprotocol/conformance (pinned) into .cache/conformance"
  cp e2e/conformance/package.json e2e/conformance/package-lock.json "$suite/"
  npm_ci "$suite"
fi

say "building examples/everything"
go build -o bin/everything ./examples/everything

serve_http bin/everything
trap 'stop_server >/dev/null' EXIT
url=$SERVER_URL

results="$suite/results/latest"
rm -rf "$results"; mkdir -p "$results"
say "conformance server --url $url --requirements 2025-11-25"
status=0
"$NODE" "$suite/node_modules/@modelcontextprotocol/conformance/dist/index.js" \
  server --url "$url" --requirements 2025-11-25 -o "$results" || status=$?

# The suite scores 30 scenarios and runs 3 more unscored; its exit status covers only the
# scored ones. Every check of every scenario is read here, so that unscored scenarios must
# pass too, and warnings are shown.
"$NODE" - "$results" <<'JS' || status=1
const fs = require("fs"), path = require("path");
const dir = process.argv[2];
let failures = 0, warnings = 0, scenarios = 0;
for (const d of fs.readdirSync(dir).sort()) {
  const file = path.join(dir, d, "checks.json");
  if (!fs.existsSync(file)) continue;
  scenarios++;
  for (const c of JSON.parse(fs.readFileSync(file, "utf8"))) {
    if (c.status === "FAILURE" || c.status === "WARNING") {
      console.log(`${c.status} ${d.replace(/^server-/, "").replace(/-\d{4}-.*$/, "")}: ${c.id}: ${c.errorMessage || c.description}`);
      c.status === "FAILURE" ? failures++ : warnings++;
    }
  }
}
console.log(`\nconformance: ${scenarios} scenarios, ${failures} failing checks, ${warnings} warnings`);
if (scenarios < 33) { console.log("expected 33 scenarios (30 scored, 3 not scored)"); process.exit(1); }
process.exit(failures > 0 ? 1 : 0);
JS

trap - EXIT
stop_server || status=1
exit "$status"
