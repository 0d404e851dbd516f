#!/usr/bin/env bash
# Node-side checks (run by ctest): exported .glb files through the Khronos glTF-Validator and
# three.js's GLTFLoader, and three.js as an independent reader of every real asset. A missing
# tool is a failure, never a skip: scripts/setup.sh installs node, npm and node_modules.
set -u
bin="$1" helper="$2" assets="$3" root="$4"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

if ! command -v node > /dev/null; then
  echo "FAIL: node is not installed (run scripts/setup.sh)"; exit 1
fi
for pkg in three gltf-validator; do
  if [[ ! -d "$root/node_modules/$pkg" ]]; then
    echo "FAIL: $root/node_modules/$pkg is missing (run scripts/setup.sh)"; exit 1
  fi
done

"$bin/crowd-export" --out "$work/humanoid.glb" > /dev/null || fail "crowd-export of the humanoid"
node "$root/tests/node/check_export.mjs" "$work/humanoid.glb" 25 idle,walk,jog,run,wave,cheer || fail "humanoid export"
"$bin/crowd-export" "$assets/gltf/Fox.glb" --out "$work/fox.glb" > /dev/null 2>&1 || fail "crowd-export of Fox.glb"
node "$root/tests/node/check_export.mjs" "$work/fox.glb" 25 Survey,Walk,Run || fail "Fox re-export"
# several root bones (rigid parts side by side): the writer gives them a common root
"$bin/crowd-export" "$assets/gltf/BoxAnimated.glb" --out "$work/box.glb" > /dev/null 2>&1 || fail "crowd-export of BoxAnimated.glb"
node "$root/tests/node/check_export.mjs" "$work/box.glb" 4 "animation 0" || fail "BoxAnimated re-export"
node "$root/tests/node/three_reference.mjs" "$helper" "$assets/gltf" || fail "three.js disagrees with the reader"

if [[ $failures -eq 0 ]]; then echo "ok   test_node"; else echo "$failures failures"; exit 1; fi
