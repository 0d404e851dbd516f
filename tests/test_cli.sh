#!/usr/bin/env bash
# The command-line tools as a user meets them: good runs, bad flags, damaged files. Every failure
# must print a message, exit non-zero, and leave no output file behind.
set -u
bin="$1"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# expect <status> <stderr pattern> -- command...
expect() {
  local want="$1" pattern="$2"; shift 3
  "$@" > "$work/out" 2> "$work/err"
  local got=$?
  [[ $got -eq $want ]] || fail "$* exited $got, expected $want: $(head -c 300 "$work/err")"
  if [[ -n "$pattern" ]] && ! grep -q -- "$pattern" "$work/err" "$work/out"; then
    fail "$*: output lacks '$pattern': $(head -c 300 "$work/err")"
  fi
}

# good bake, inspect, verify
expect 0 "wrote" -- "$bin/crowd-bake" --bones --out "$work/h.crowd"
[[ -s "$work/h.crowd" ]] || fail "no output file"
grep -q "12 bytes/vertex/frame" "$work/out" || fail "summary lacks bytes/vertex/frame"
expect 0 "walk" -- "$bin/crowd-inspect" "$work/h.crowd"
expect 0 '"clips":\[' -- "$bin/crowd-inspect" "$work/h.crowd" --json
expect 0 "PASS" -- "$bin/crowd-verify" "$work/h.crowd"
expect 0 '"passed":true' -- "$bin/crowd-verify" "$work/h.crowd" --json
expect 0 "" -- "$bin/crowd-bake" --compact --tex-width 64 --clips walk,run --lods 3 --lod-ratios 1,0.3,0.05 --out "$work/c.crowd"
expect 0 "PASS" -- "$bin/crowd-verify" "$work/c.crowd"
expect 0 "" -- "$bin/crowd-bake" --frames 12 --fps 24 --density 0.5 --tangents --fp16 --out "$work/f.crowd" --quiet
expect 0 "PASS" -- "$bin/crowd-verify" "$work/f.crowd"
expect 0 "median of 3" -- "$bin/crowd-bake" --time 3
expect 0 "" -- "$bin/crowd-bake" --scale 0.01 --bones --frames 8 --out "$work/s.crowd" --quiet
expect 0 '"unit_scale":0.00999999978' -- "$bin/crowd-inspect" "$work/s.crowd" --json
expect 0 "PASS" -- "$bin/crowd-verify" "$work/s.crowd"
cmp -s <("$bin/crowd-bake" --bones --out "$work/h2.crowd" --quiet; cat "$work/h2.crowd") "$work/h.crowd" \
  || fail "two bakes differ"
expect 0 "usage" -- "$bin/crowd-bake" --help

# bad command lines: status 2, a message, nothing written
for args in "--fps" "--fps 0" "--fps abc" "--frames -3" "--lods 9" "--lod-ratios 1,2" "--tex-width 0" \
            "--density 9" "--scale 0" "--scale -1" "--bogus" "--compact --fp16" "--lods 2 --lod-ratios 1,0.5,0.2" "a.glb b.glb"; do
  # shellcheck disable=SC2086
  expect 2 "crowd-bake" -- "$bin/crowd-bake" $args --out "$work/bad.crowd"
  [[ -e "$work/bad.crowd" ]] && fail "bad flags '$args' left a file"
done
expect 1 "no clip named" -- "$bin/crowd-bake" --clips walk,moonwalk --out "$work/bad.crowd"
[[ -e "$work/bad.crowd" ]] && fail "failed bake left a file"
expect 1 "cannot create" -- "$bin/crowd-bake" --out "$work/no/such/dir/x.crowd"
ls "$work" | grep -q tmp && fail "a temporary file was left behind"
expect 2 "" -- "$bin/crowd-verify"
expect 2 "unknown option" -- "$bin/crowd-inspect" --nope x.crowd

# damaged files: status 1 and the reason
head -c 1000 "$work/h.crowd" > "$work/cut.crowd"
expect 1 "cut short" -- "$bin/crowd-inspect" "$work/cut.crowd"
expect 1 "cut short" -- "$bin/crowd-verify" "$work/cut.crowd"
cp "$work/h.crowd" "$work/flip.crowd"
printf '\x01' | dd of="$work/flip.crowd" bs=1 seek=5000 conv=notrunc 2>/dev/null
expect 1 "CRC32" -- "$bin/crowd-inspect" "$work/flip.crowd"
echo "not a crowd file at all" > "$work/text.crowd"
expect 1 "not a .crowd file" -- "$bin/crowd-verify" "$work/text.crowd"
expect 1 "cannot open" -- "$bin/crowd-inspect" "$work/missing.crowd"

# glTF input (../shared/assets next to the repository)
assets="$(dirname "$0")/../../shared/assets"
expect 0 "Walk" -- "$bin/crowd-bake" "$assets/gltf/Fox.glb" --bones --out "$work/fox.crowd"
grep -q "Walk .* 67\.50" "$work/out" || fail "Fox Walk stride not reported"
expect 0 "PASS" -- "$bin/crowd-verify" "$work/fox.crowd"
expect 0 "Walking" -- "$bin/crowd-bake" "$assets/gltf/RobotExpressive.glb" --skin 1 --clips Walking,Running \
  --socket hand=Palm2.R --bones --frames 10 --lods 2 --out "$work/robot.crowd"
expect 0 "hand" -- "$bin/crowd-inspect" "$work/robot.crowd"
expect 0 "PASS" -- "$bin/crowd-verify" "$work/robot.crowd" --source "$assets/gltf/RobotExpressive.glb"
expect 0 "" -- "$bin/crowd-bake" "$assets/gltf/RiggedSimple.gltf" --out "$work/simple.crowd" --quiet
expect 0 "median of 2" -- "$bin/crowd-bake" "$assets/gltf/CesiumMan.glb" --time 2
expect 1 "skin 2: the file has 2 skins" -- "$bin/crowd-bake" "$assets/gltf/RobotExpressive.glb" --skin 2 --out "$work/bad.crowd"
expect 1 "no node of that name" -- "$bin/crowd-bake" "$assets/gltf/Fox.glb" --socket x=Nowhere --out "$work/bad.crowd"
expect 2 "name=node" -- "$bin/crowd-bake" "$assets/gltf/Fox.glb" --socket x --out "$work/bad.crowd"
expect 2 "glTF input only" -- "$bin/crowd-bake" --skin 0 --out "$work/bad.crowd"
expect 1 "skins\[0\].joints\[0\]: nodes 0 out of range" -- "$bin/crowd-bake" "$assets/gltf-invalid/skin/unresolved_joint.gltf" --out "$work/bad.crowd"
expect 1 "bad magic\|neither a .glb" -- "$bin/crowd-bake" "$assets/gltf-invalid/glb/invalid_magic.glb" --out "$work/bad.crowd"
head -c 5000 "$assets/gltf/Fox.glb" > "$work/cut.glb"
expect 1 "cut.glb: glb: header says 162852 bytes" -- "$bin/crowd-bake" "$work/cut.glb" --out "$work/bad.crowd"
[[ -e "$work/bad.crowd" ]] && fail "a refused glTF left an output file"
# export: the humanoid and a real asset as .glb, read back and baked
expect 0 "wrote" -- "$bin/crowd-export" --out "$work/h.glb"
expect 0 "walk" -- "$bin/crowd-bake" "$work/h.glb" --out "$work/h_rt.crowd"
expect 0 "PASS" -- "$bin/crowd-verify" "$work/h_rt.crowd"
expect 2 "" -- "$bin/crowd-export"
expect 1 "cannot open" -- "$bin/crowd-export" "$work/missing.glb" --out "$work/x.glb"
[[ -e "$work/x.glb" ]] && fail "a failed export left an output file"

# crowd-shot: a PNG from the default scene, headless; bad flags refused
if [[ -x "$bin/crowd-shot" ]]; then
  expect 0 "wrote" -- "$bin/crowd-shot" --out "$work/shot.png" --size 320x180 --count 300 --seconds 0.5
  [[ $(head -c 8 "$work/shot.png" | od -An -tx1 | tr -d ' \n') == "89504e470d0a1a0a" ]] || fail "shot.png is not a PNG"
  expect 2 "bad value" -- "$bin/crowd-shot" --size 3x3
  expect 2 "bad value" -- "$bin/crowd-shot" --scenario tango
  expect 1 "cut short" -- "$bin/crowd-shot" "$work/cut.crowd" --out "$work/never.png"
  [[ -e "$work/never.png" ]] && fail "a failed shot left a file"
  expect 0 "instances" -- "$bin/crowd-bench" --counts 1000 --frames 45
fi

if [[ $failures -eq 0 ]]; then echo "ok   test_cli"; else echo "$failures failures"; exit 1; fi
