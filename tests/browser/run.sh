#!/usr/bin/env bash
# The web board's tests (scripts/test runs this after building
# target/release/sternhalma): type-checks the pages' JavaScript with tsc,
# then drives every page in Debian's headless Chromium with playwright-core
# (node's own test runner, one server and one browser per test file), scans
# each with axe-core and writes screenshots to tests/browser/screenshots/.
#
# Installs what is missing: Debian's chromium (apt-get, as root: CI runs as
# root) and the npm packages of package-lock.json (npm ci).
#
# Usage: run.sh [TEST_FILE...]   (default: every *.test.mjs here)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"

if [ ! -x ../../target/release/sternhalma ]; then
  echo "target/release/sternhalma is missing: cargo build --release -p sternhalma-api first" >&2
  exit 1
fi

if [ ! -x /usr/bin/chromium ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "/usr/bin/chromium is missing; install it as root:" >&2
    echo "  apt-get update && apt-get install -y --no-install-recommends chromium" >&2
    exit 1
  fi
  echo "installing Debian's chromium (apt-get)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends chromium > /dev/null
fi

if [ ! -d node_modules ]; then
  npm ci --no-audit --no-fund
fi

echo "tsc --checkJs: api/web/assets/js"
npx --no-install tsc -p tsconfig.json

rm -rf screenshots
mkdir -p screenshots
if [ $# -eq 0 ]; then
  set -- ./*.test.mjs
fi
echo "node --test: $*"
# One file at a time: each starts its own server and browser, and a busy
# two-core machine is slower but never flaky that way.
node --test --test-concurrency=1 --test-timeout=900000 --test-reporter=spec "$@"
echo "screenshots: $here/screenshots"
