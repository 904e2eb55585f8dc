#!/usr/bin/env bash
# ctest's `mcp_sdk_client`: tests/mcp/client.mjs drives `whyslow mcp` with the official TypeScript
# SDK. Skipped (exit 77) without node or without the SDK, which scripts/setup.sh installs
# (`npm ci` here, at the version package-lock.json pins).
#   run_client_test.sh WHYSLOW FIXTURES
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
if ! command -v node >/dev/null; then
  echo "mcp_sdk_client: skipped: no node (scripts/setup.sh installs nodejs and npm)"
  exit 77
fi
if [ ! -f "$here/node_modules/@modelcontextprotocol/sdk/package.json" ]; then
  echo "mcp_sdk_client: skipped: the SDK is not installed (scripts/setup.sh, or: cd tests/mcp && npm ci)"
  exit 77
fi
exec node "$here/client.mjs" "$1" "$2"
