#!/usr/bin/env bash
# Checks @toolnorm/types as a UI gets it: builds it and runs its tests (node's test
# runner), packs it, installs the tarball into a fresh consumer project, compiles a
# consumer that uses every export with `tsc --strict --exactOptionalPropertyTypes`, and
# runs it. Needs `npm ci` here first (the pinned TypeScript). With TOOLNORM set to a
# toolnorm binary, the tests also fold every fixture's `--format updates`, and what that
# binary writes in every JSON format for a sample of fixtures is compiled as literals of
# the package's line types (consumer/lines.mjs), which checks the envelope types against
# real output.
set -euo pipefail
cd "$(dirname "$0")/.."
package=$PWD

npm test

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
npm pack --silent --pack-destination "$work" > /dev/null
tarball=$(ls "$work"/*.tgz)
echo "packed $(basename "$tarball"): $(tar -tzf "$tarball" | wc -l) files"

mkdir "$work/consumer"
cp consumer/consumer.ts consumer/tsconfig.json consumer/tsconfig.lines.json "$work/consumer/"
cd "$work/consumer"
echo '{ "name": "toolnorm-types-consumer", "private": true, "type": "module" }' > package.json
npm install --no-audit --no-fund --silent "$tarball"
"$package/node_modules/.bin/tsc" -p . --strict --exactOptionalPropertyTypes
node dist/consumer.js

if [ -n "${TOOLNORM:-}" ]; then
  node "$package/consumer/lines.mjs" "$TOOLNORM" "$package/../../fixtures" > lines.ts
  "$package/node_modules/.bin/tsc" -p tsconfig.lines.json
  echo "what toolnorm writes fits the package's line types"
fi
