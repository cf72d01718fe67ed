#!/usr/bin/env bash
# Generates a TypeScript client from the committed OpenAPI document with
# openapi-typescript, then type-checks unions.ts against it: the closed sets
# (bot kinds, move kinds, outcome statuses) must come out as string-literal
# unions, not as `string`.
#
# Usage: check.sh [DOCUMENT]   (or OPENAPI=DOCUMENT check.sh)
# DOCUMENT defaults to openapi/openapi.json at the root of the checkout.
# Needs the packages of package-lock.json: run `npm ci` here first.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
document=${1:-${OPENAPI:-$here/../../openapi/openapi.json}}
# Resolve a relative path against the caller's directory before moving.
document=$(cd "$(dirname "$document")" && pwd)/$(basename "$document")
cd "$here"

rm -rf generated
mkdir -p generated
echo "openapi-typescript: $document -> generated/api.d.ts"
npx --no-install openapi-typescript "$document" -o generated/api.d.ts

echo "tsc --noEmit --strict unions.ts"
npx --no-install tsc --noEmit --strict --target es2022 --module esnext \
  --moduleResolution bundler unions.ts
echo "TypeScript client: the literal unions hold"
