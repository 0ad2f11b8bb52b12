#!/usr/bin/env bash
# Runs a command (the test command, in CI) on another Node release than the machine's, in a copy of
# this checkout's tracked files with dependencies installed by that Node: the image runs Node 24
# (docker/Dockerfile), the machines Node 20. The Node binary and its headers come from the npm
# registry (node-linux-<arch>), so this needs nothing npm ci does not; better-sqlite3 compiles
# against those headers.
#   tools/test-on-node.sh 24.22.3 npm test
set -euo pipefail
version=$1
shift
root=$(cd "$(dirname "$0")/.." && pwd)
case "$(uname -m)" in
  x86_64) arch=x64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) echo "no node-linux package for $(uname -m)" >&2; exit 1 ;;
esac
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

(cd "$work" && npm pack --silent "node-linux-$arch@$version" > /dev/null && tar -xzf node-linux-*.tgz && mv package node)
mkdir "$work/checkout"
(cd "$root" && git ls-files -z | tar --null -T - -cf -) | tar -xf - -C "$work/checkout"

export PATH="$work/node/bin:$PATH"
export npm_config_nodedir="$work/node"
cd "$work/checkout"
echo "running on Node $(node --version): $*"
npm ci --no-audit --no-fund
"$@"
