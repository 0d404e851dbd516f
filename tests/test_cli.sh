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
# a bake long enough to show progress on a terminal writes none into a file
expect 0 "" -- "$bin/crowd-bake" --density 4 --fps 120 --out "$work/slow.crowd"
grep -q $'\r' "$work/err" "$work/out" && fail "redirected crowd-bake output holds carriage returns (progress lines)"

# bad command lines: status 2, a message, nothing written
for args in "--fps" "--fps 0" "--fps abc" "--frames -3" "--lods 9" "--lod-ratios 1,2" "--tex-width 0" \
            "--density 9" "--scale 0" "--scale -1" "--bogus" "--compact --fp16" "--lods 2 --lod-ratios 1,0.5,0.2" "a.glb b.glb" \
            "--imposter-lod" "--imposter-lod x" "--imposter-lod 8" "--lods 3 --imposter-lod 3"; do
  # shellcheck disable=SC2086
  expect 2 "crowd-bake" -- "$bin/crowd-bake" $args --out "$work/bad.crowd"
  [[ -e "$work/bad.crowd" ]] && fail "bad flags '$args' left a file"
done
expect 1 "no clip named" -- "$bin/crowd-bake" --clips walk,moonwalk --out "$work/bad.crowd"
[[ -e "$work/bad.crowd" ]] && fail "failed bake left a file"
expect 1 "cannot create" -- "$bin/crowd-bake" --out "$work/no/such/dir/x.crowd"
grep -q tmp <<< "$(ls "$work")" && fail "a temporary file was left behind"
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

# hostile targets: a device, a FIFO, a directory as --out are refused and stay what they were.
# The device is a private node in $work (never the machine's /dev/null: a regression would replace it).
mkfifo "$work/fifo"
mkdir "$work/outdir"
device=""
if mknod "$work/null" c 1 3 2> /dev/null; then device="$work/null"; fi
for target in "$work/fifo" "$work/outdir" $device; do
  expect 1 "refusing to replace it" -- "$bin/crowd-bake" --frames 4 --out "$target" --quiet
  expect 1 "refusing to replace it" -- "$bin/crowd-export" --out "$target"
done
[[ -p "$work/fifo" ]] || fail "the FIFO target was replaced"
[[ -d "$work/outdir" ]] || fail "the directory target was replaced"
[[ -z "$device" || -c "$device" ]] || fail "the device target was replaced"
grep -q tmp <<< "$(ls "$work")" && fail "a refused target left a temporary file"
# a symbolic link is written through: the link stays, the file it names is replaced
cp "$work/h.crowd" "$work/real.crowd"
ln -s real.crowd "$work/link.crowd"
expect 0 "" -- "$bin/crowd-bake" --frames 4 --out "$work/link.crowd" --quiet
[[ -L "$work/link.crowd" ]] || fail "the symbolic link was replaced by a file"
cmp -s "$work/real.crowd" "$work/h.crowd" && fail "the link's target was not rewritten"
expect 0 "" -- "$bin/crowd-inspect" "$work/real.crowd"
ln -s nowhere/x.crowd "$work/dangling.crowd"
expect 1 "symbolic link" -- "$bin/crowd-bake" --frames 4 --out "$work/dangling.crowd" --quiet
ln -s fifo "$work/fifo_link"
expect 1 "symbolic link to a FIFO" -- "$bin/crowd-bake" --frames 4 --out "$work/fifo_link" --quiet
[[ -p "$work/fifo" && -L "$work/fifo_link" ]] || fail "the link to a FIFO or the FIFO was replaced"

# a directory as input says so (ftell of a directory reads 2^63 - 1 on Linux)
expect 1 "is a directory" -- "$bin/crowd-inspect" "$work/outdir"
expect 1 "is a directory" -- "$bin/crowd-verify" "$work/outdir"
expect 1 "is a directory" -- "$bin/crowd-bake" "$work/outdir" --out "$work/bad.crowd"
expect 1 "is a directory" -- "$bin/crowd-export" "$work/outdir" --out "$work/bad.glb"
expect 1 "is a directory" -- "$bin/crowd-bench" "$work/outdir" --counts 1000 --frames 45
[[ -e "$work/bad.crowd" || -e "$work/bad.glb" ]] && fail "a directory input left an output file"
# a FIFO as input is refused at once: opening one that has no writer used to block forever
for cmd in "crowd-inspect $work/fifo" "crowd-verify $work/fifo" "crowd-bake $work/fifo --out $work/bad.crowd" \
           "crowd-bake --frames-dump $work/fifo --out $work/bad.crowd" "crowd-export $work/fifo --out $work/bad.glb" \
           "crowd-bench $work/fifo --counts 1000 --frames 45" "crowd-verify $work/h.crowd --source $work/fifo"; do
  # shellcheck disable=SC2086
  expect 1 "is a FIFO (named pipe), not a regular file" -- timeout 20 "$bin"/$cmd
done
[[ -e "$work/bad.crowd" || -e "$work/bad.glb" ]] && fail "a FIFO input left an output file"

# stdout that cannot be written is a failure, not a silent success
if [[ -w /dev/full ]]; then
  for cmd in "crowd-inspect $work/h.crowd" "crowd-inspect $work/h.crowd --json" "crowd-verify $work/f.crowd" \
             "crowd-bench --counts 1000 --frames 45" "crowd-bench --counts 1000 --frames 45 --json" \
             "crowd-bake --frames 4 --out $work/full.crowd" "crowd-export --out $work/full.glb" "crowd-bake --help"; do
    # shellcheck disable=SC2086
    "$bin"/$cmd > /dev/full 2> "$work/err"
    got=$?
    [[ $got -ne 0 ]] || fail "$cmd > /dev/full exited 0"
    grep -q "cannot write the output" "$work/err" || fail "$cmd > /dev/full: no message: $(head -c 200 "$work/err")"
  done
fi

# every tool: a flag without its value is "missing value", numbers are whole and finite
expect 2 "missing value for --fps" -- "$bin/crowd-bake" --fps
expect 2 "missing value for --out" -- "$bin/crowd-bake" --out
expect 2 "missing value for --counts" -- "$bin/crowd-bench" --counts
expect 2 "missing value for --frames" -- "$bin/crowd-bench" --frames
expect 2 "more than one input" -- "$bin/crowd-bench" "$work/h.crowd" "$work/c.crowd"
expect 2 "crowd-bench" -- "$bin/crowd-bench" --frames 45junk
expect 2 "crowd-bench" -- "$bin/crowd-bench" --counts 1000,abc
expect 2 "crowd-bench" -- "$bin/crowd-bench" --counts " 1000"
expect 2 "missing value for --offscreen-interval" -- "$bin/crowd-bench" --offscreen-interval
expect 2 "--offscreen-interval 6: expected 0 or a multiple" -- "$bin/crowd-bench" --offscreen-interval 6
expect 2 "--offscreen-interval 68: expected 0 or a multiple" -- "$bin/crowd-bench" --offscreen-interval 68
expect 2 "missing value for --out" -- "$bin/crowd-export" --out
expect 2 "missing value for --fps" -- "$bin/crowd-export" --fps
expect 2 "--fps nan" -- "$bin/crowd-export" --fps nan --out "$work/bad.glb"
expect 2 "--density" -- "$bin/crowd-export" --density 1junk --out "$work/bad.glb"
expect 2 "more than one input" -- "$bin/crowd-export" a.glb b.glb --out "$work/bad.glb"
expect 2 "missing value for --source" -- "$bin/crowd-verify" "$work/h.crowd" --source
expect 2 "more than one file" -- "$bin/crowd-inspect" "$work/h.crowd" "$work/c.crowd"
for value in " 30" "30 " "nan" "inf" "-inf" "1e999" "0x" "" "30junk" "+" "."; do
  expect 2 "crowd-bake: --fps" -- "$bin/crowd-bake" --fps "$value" --out "$work/bad.crowd"
done
for value in " 5" "-5" "+5" "5.0" "5junk" "" "99999999999999999999"; do
  expect 2 "crowd-bake: --frames" -- "$bin/crowd-bake" --frames "$value" --out "$work/bad.crowd"
done
expect 2 "crowd-bake: --scale" -- "$bin/crowd-bake" --scale nan --out "$work/bad.crowd"
expect 2 "crowd-bake: --lod-ratios" -- "$bin/crowd-bake" --lod-ratios 1,nan --out "$work/bad.crowd"
expect 2 "needs --lod-ratios" -- "$bin/crowd-bake" --lods 6 --out "$work/bad.crowd"
[[ -e "$work/bad.crowd" || -e "$work/bad.glb" ]] && fail "a bad command line left an output file"

# glTF input (the repository's assets/)
assets="$(dirname "$0")/../assets"
expect 0 "Walk" -- "$bin/crowd-bake" "$assets/gltf/Fox.glb" --bones --out "$work/fox.crowd"
grep -q "Walk .* 0\.6750" "$work/out" || fail "Fox Walk stride not reported"
expect 0 "PASS" -- "$bin/crowd-verify" "$work/fox.crowd"
expect 0 "Walking" -- "$bin/crowd-bake" "$assets/gltf/RobotExpressive.glb" --skin 1 --clips Walking,Running \
  --socket hand=Palm2.R --bones --frames 10 --lods 2 --out "$work/robot.crowd"
expect 0 "hand" -- "$bin/crowd-inspect" "$work/robot.crowd"
expect 0 "PASS" -- "$bin/crowd-verify" "$work/robot.crowd" --source "$assets/gltf/RobotExpressive.glb"
expect 0 "" -- "$bin/crowd-bake" "$assets/gltf/RiggedSimple.gltf" --out "$work/simple.crowd" --quiet
# a clip name that is not UTF-8 (byte 0xFF): crowd-inspect --json still prints valid JSON text
cp "$assets/gltf/RiggedSimple0.bin" "$work/"
LC_ALL=C sed '0,/"channels": \[/s//"name": "w'$'\xff''lk", "channels": [/' "$assets/gltf/RiggedSimple.gltf" > "$work/bad_name.gltf"
expect 0 "" -- "$bin/crowd-bake" "$work/bad_name.gltf" --out "$work/bad_name.crowd" --quiet
expect 0 '"name":"w\\ufffdlk"' -- "$bin/crowd-inspect" "$work/bad_name.crowd" --json
LC_ALL=C grep -q $'\xff' "$work/out" && fail "crowd-inspect --json printed a byte that is not UTF-8"
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
# colour variants for a one-coat character: the fox's region carries 1 + 4 colours through the bake
expect 0 "wrote" -- "$bin/crowd-export" "$assets/gltf/Fox.glb" --add-variants 4 --out "$work/fox4.glb"
expect 0 "" -- "$bin/crowd-bake" "$work/fox4.glb" --quiet --frames 4 --out "$work/fox4.crowd"
expect 0 "fox_material(5 colours)" -- "$bin/crowd-inspect" "$work/fox4.crowd"
expect 2 "--add-variants 9: expected a count in 1..8" -- "$bin/crowd-export" --add-variants 9 --out "$work/x.glb"
expect 2 "--add-variants 2x" -- "$bin/crowd-export" --add-variants 2x --out "$work/x.glb"
expect 1 "cannot open" -- "$bin/crowd-export" "$work/missing.glb" --out "$work/x.glb"
[[ -e "$work/x.glb" ]] && fail "a failed export left an output file"

# bring your own character: placement flags, good and bad
expect 0 "faces -Z in the source (given)" -- "$bin/crowd-bake" --forward -z --frames 4 --out "$work/fz.crowd"
expect 0 "up +Z" -- "$bin/crowd-bake" --up +z --frames 4 --out "$work/uz.crowd"
expect 0 "height 1.700 m" -- "$bin/crowd-bake" --height 1.7 --frames 4 --out "$work/ht.crowd"
expect 0 "ground offset +0.2500 m" -- "$bin/crowd-bake" --ground 0.25 --frames 4 --out "$work/gr.crowd"
expect 0 "ground offset +0.0000 m" -- "$bin/crowd-bake" --ground none --frames 4 --out "$work/gn.crowd"
expect 0 "walk             idle" -- "$bin/crowd-bake" --clip-role walk=idle --frames 4 --out "$work/cr.crowd"
expect 0 "wrote" -- "$bin/crowd-bake" --max-bytes 0 --frames 4 --out "$work/mb.crowd"
expect 1 "exceeds max_bytes (--max-bytes) 1000 bytes" -- "$bin/crowd-bake" --max-bytes 1000 --out "$work/bad.crowd"
# a size refusal suggests only what fits (6 MB lies between the humanoid's compact and default sizes),
# and each applied bakes
expect 1 "alone fits: .*--compact (4" -- "$bin/crowd-bake" --max-bytes 6291456 --out "$work/bad.crowd"
fps_fix=$(grep -o -- "--fps [0-9]*" "$work/err" | head -1)
[[ -n "$fps_fix" ]] || fail "the 6 MB refusal suggests no --fps: $(cat "$work/err")"
# shellcheck disable=SC2086
expect 0 "wrote" -- "$bin/crowd-bake" --max-bytes 6291456 $fps_fix --out "$work/fits_fps.crowd"
expect 0 "wrote" -- "$bin/crowd-bake" --max-bytes 6291456 --compact --out "$work/fits_compact.crowd"
expect 1 "alone fits: --fps" -- "$bin/crowd-bake" --max-bytes 3145728 --compact --out "$work/bad.crowd"
grep -q -- "--compact" "$work/err" && fail "a compact bake refused for size is told to use --compact: $(cat "$work/err")"
for args in "--forward sideways" "--forward" "--up -y" "--height -1" "--height 0" "--height nan" "--height 1mm" \
            "--ground maybe" "--ground 1e9" "--clip-role walk" "--clip-role walk=dance" "--clip-role =idle" \
            "--max-bytes abc" "--max-bytes -5"; do
  # shellcheck disable=SC2086
  expect 2 "crowd-bake" -- "$bin/crowd-bake" $args --out "$work/bad.crowd"
done
expect 1 "no clip named \"moonwalk\"" -- "$bin/crowd-bake" --clip-role moonwalk=idle --out "$work/bad.crowd"
[[ -e "$work/bad.crowd" ]] && fail "a refused placement left a file"

# clip markers: named ones and footsteps listed (text and JSON); a wrong clip, a time outside the
# clip, a bad name, a non-finite time: refused with the reason, exit 1, no file
expect 0 "wrote" -- "$bin/crowd-bake" --frames 16 --marker walk=hit@0.5 --marker Wave=wave.top@0.8 --out "$work/mk.crowd"
expect 0 "walk  *hit  *0.5000  *0.4762" -- "$bin/crowd-inspect" "$work/mk.crowd"
expect 0 "wave  *wave.top  *0.8000" -- "$bin/crowd-inspect" "$work/mk.crowd"
expect 0 "walk  *footstep_l" -- "$bin/crowd-inspect" "$work/mk.crowd"
expect 0 '"markers":\[{"clip":[0-9]*,"name":"' -- "$bin/crowd-inspect" "$work/mk.crowd" --json
expect 0 '"name":"footstep_r","time":' -- "$bin/crowd-inspect" "$work/mk.crowd" --json
expect 0 '"name":"hit","time":0.5,' -- "$bin/crowd-inspect" "$work/mk.crowd" --json
expect 0 "MARK" -- "$bin/crowd-inspect" "$work/mk.crowd"
expect 0 "PASS" -- "$bin/crowd-verify" "$work/mk.crowd"
expect 0 "wrote" -- "$bin/crowd-bake" --frames 16 --no-footsteps --out "$work/nf.crowd"
expect 0 '"markers":\[\]' -- "$bin/crowd-inspect" "$work/nf.crowd" --json
expect 1 "no clip named \"moonwalk\"" -- "$bin/crowd-bake" --marker moonwalk=hit@0.5 --out "$work/bad.crowd"
expect 1 "time 9 s outside clip \"walk\" (0..1.05 s)" -- "$bin/crowd-bake" --marker walk=hit@9 --out "$work/bad.crowd"
expect 1 "time -0.1 s outside clip" -- "$bin/crowd-bake" --marker walk=hit@-0.1 --out "$work/bad.crowd"
expect 1 "name \"bad name\" must be" -- "$bin/crowd-bake" --marker "walk=bad name@0.5" --out "$work/bad.crowd"
expect 1 "name \"\" must be" -- "$bin/crowd-bake" --marker walk=@0.5 --out "$work/bad.crowd"
expect 1 "time nan s is not finite" -- "$bin/crowd-bake" --marker walk=hit@nan --out "$work/bad.crowd"
expect 1 "time inf s is not finite" -- "$bin/crowd-bake" --marker walk=hit@inf --out "$work/bad.crowd"
for args in "--marker walk" "--marker walk=hit" "--marker =hit@0.5" "--marker walk=hit@soon" "--marker"; do
  # shellcheck disable=SC2086
  expect 2 "crowd-bake" -- "$bin/crowd-bake" $args --out "$work/bad.crowd"
done
[[ -e "$work/bad.crowd" ]] && fail "a refused marker left a file"

# crowd-export's dressing: the cases a user's file brings, baked back right
expect 0 "wrote" -- "$bin/crowd-export" --face -z --scale 100 --lift 0.2 --add-clip pose,roll,fly,walk-open,walk-root,walk-seam,fly-low \
  --blender-names --out "$work/dressed.glb"
expect 0 "faces -Z in the source (detected from the foot slide)" -- "$bin/crowd-bake" "$work/dressed.glb" --height 1.7 --out "$work/dressed.crowd"
grep -q "height 1.700 m" "$work/out" || fail "dressed bake: not 1.7 m: $(grep height "$work/out")"
expect 0 "Armature|Roll *action" -- "$bin/crowd-inspect" "$work/dressed.crowd"
grep -q "Armature|Pose *pose" "$work/out" || fail "the two-key pose is not a pose"
grep -q "Armature|Fly *flight" "$work/out" || fail "the fly cycle is not a flight"
grep -q "Armature|Fly_low *flight" "$work/out" || fail "the fly cycle brushing the ground is not a flight"
grep -q "Armature|Walk_seam *locomotion" "$work/out" || fail "the walk with a seam is not locomotion"
grep -q "Armature|Roll *action.*the one-shot moves the body" "$work/out" || fail "the roll's travel is not reported"
grep -q "Armature|Walk_root *locomotion.*root motion" "$work/out" || fail "the root-motion walk is not locomotion with its root travel"
expect 0 "character is .* units tall, implausible in metres for an upright character (0.3..5 m): read as centimetres, 1.8 m tall (--scale 1 keeps the file's size)" -- "$bin/crowd-bake" "$work/dressed.glb" --out "$work/cm.crowd"
grep -q "Walk_root .*root motion .* m a cycle, baked in place" "$work/out" || fail "the bake does not say it took out root motion"
grep -q "Fly_low .*brushes the ground in" "$work/out" || fail "the bake does not say the flight brushes the ground"
expect 0 "wrote" -- "$bin/crowd-export" --up +z --out "$work/zup.glb"
expect 0 "up +Z" -- "$bin/crowd-bake" "$work/zup.glb" --up +z --out "$work/zup.crowd"
for args in "--face up" "--face" "--up -z" "--scale 0" "--scale 1e9" "--scale abc" "--lift nan" "--lift 5000" \
            "--add-clip dance" "--add-clip pose,,roll" "--add-clip ," "--add-clip" "--lift"; do
  # shellcheck disable=SC2086
  expect 2 "crowd-export" -- "$bin/crowd-export" $args --out "$work/bad.glb"
done
[[ -e "$work/bad.glb" ]] && fail "a refused export left a file"

# units: lengths say their unit; no doubled words; every missing extension named
"$bin/crowd-bake" --frames 4 --out "$work/u.crowd" > "$work/out" 2>&1
grep -Eq "height [0-9.]+ m" "$work/out" || fail "bake summary: height without a unit"
grep -Eq "stride m" "$work/out" || fail "bake summary: strides without a unit"
"$bin/crowd-inspect" "$work/u.crowd" > "$work/out" 2>&1
grep -Eq "bounds .* m;" "$work/out" || fail "inspect: bounds without a unit"
grep -Eiq "\b([a-z]+) \1\b" "$work/out" && fail "inspect: a doubled word: $(grep -Eio '\b([a-z]+) \1\b' "$work/out" | head -1)"
printf '{"asset":{"version":"2.0"},"extensionsUsed":["KHR_draco_mesh_compression","EXT_meshopt_compression"],"extensionsRequired":["KHR_draco_mesh_compression","EXT_meshopt_compression"]}' > "$work/two_ext.gltf"
expect 1 "KHR_draco_mesh_compression.*EXT_meshopt_compression" -- "$bin/crowd-bake" "$work/two_ext.gltf" --out "$work/bad.crowd"
grep -Eiq "\b([a-z]+) \1\b" "$work/err" && fail "a doubled word in: $(cat "$work/err")"

# crowd-shot: a PNG from the default scene, headless; bad flags refused
# critters and frames dumps: bake, dump, re-bake the dump, verify both, determinism, refusals
expect 0 "blob" -- "$bin/crowd-bake" --critter list
expect 0 "wrote" -- "$bin/crowd-bake" --critter tube:5 --out "$work/t.crowd" --write-dump "$work/t.frames"
[[ -s "$work/t.frames" && -s "$work/t.crowd" ]] || fail "no critter outputs"
expect 0 "PASS" -- "$bin/crowd-verify" "$work/t.crowd"
expect 0 "wrote" -- "$bin/crowd-bake" --frames-dump "$work/t.frames" --out "$work/td.crowd"
expect 0 "PASS" -- "$bin/crowd-verify" "$work/td.crowd"
expect 0 "PASS" -- "$bin/crowd-verify" "$work/td.crowd" --source "$work/t.frames"
expect 0 "PASS" -- "$bin/crowd-verify" "$work/t.crowd" --source tube:5
expect 1 "" -- "$bin/crowd-verify" "$work/t.crowd" --source tube:6
# a kind built on a plan: crowd-verify rebuilds it from the recorded "critter woollybear seed=3 ..."
expect 0 "woollybear" -- "$bin/crowd-bake" --critter list
expect 0 "wrote" -- "$bin/crowd-bake" --critter woollybear:3 --out "$work/w.crowd"
expect 0 "PASS" -- "$bin/crowd-verify" "$work/w.crowd"
expect 1 "" -- "$bin/crowd-verify" "$work/w.crowd" --source caterpillar:3
"$bin/crowd-bake" --critter tube:5 --out "$work/t2.crowd" --write-dump "$work/t2.frames" --quiet
cmp -s "$work/t.frames" "$work/t2.frames" || fail "the same critter seed gave a different dump"
cmp -s "$work/t.crowd" "$work/t2.crowd" || fail "the same critter seed gave a different .crowd"
"$bin/crowd-bake" --critter tube:6 --out "$work/t3.crowd" --quiet
cmp -s "$work/t.crowd" "$work/t3.crowd" && fail "two critter seeds gave the same .crowd"
expect 2 "no skeleton" -- "$bin/crowd-bake" --critter blob --bones --out "$work/never.crowd"
expect 2 "no skeleton" -- "$bin/crowd-bake" --frames-dump "$work/t.frames" --bones --out "$work/never.crowd"
expect 2 "KIND or KIND:SEED" -- "$bin/crowd-bake" --critter dragon --out "$work/never.crowd"
expect 2 "KIND or KIND:SEED" -- "$bin/crowd-bake" --critter blob:x --out "$work/never.crowd"
expect 2 "cannot be combined" -- "$bin/crowd-bake" --critter blob --frames-dump "$work/t.frames"
expect 2 "needs --critter" -- "$bin/crowd-bake" --write-dump "$work/never.frames"
expect 2 "missing value" -- "$bin/crowd-bake" --critter
head -c 1000 "$work/t.frames" > "$work/cut.frames"
expect 1 "truncated" -- "$bin/crowd-bake" --frames-dump "$work/cut.frames" --out "$work/never.crowd"
head -c 100 /dev/zero > "$work/junk.frames"
expect 1 "bad magic" -- "$bin/crowd-bake" --frames-dump "$work/junk.frames" --out "$work/never.crowd"
expect 1 "cannot open" -- "$bin/crowd-bake" --frames-dump "$work/missing.frames" --out "$work/never.crowd"
[[ -e "$work/never.crowd" || -e "$work/never.frames" ]] && fail "a refused critter bake left a file"
# one option once, no spaces inside a critter name, no 2^64 byte limit read as "no limit"
expect 2 "--frames-dump given twice" -- "$bin/crowd-bake" --frames-dump "$work/t.frames" --frames-dump "$work/t.frames" --out "$work/never.crowd"
expect 2 "--out given twice" -- "$bin/crowd-bake" --frames 4 --out "$work/never.crowd" --out "$work/never.crowd"
expect 0 "" -- "$bin/crowd-bake" --frames 4 --clip-role walk=idle --clip-role run=idle --out "$work/roles.crowd" --quiet
for spec in "blob: 1" "blob:1 " " blob:1" "blob :1" "blob:+1" "blob:18446744073709551617"; do
  expect 2 "KIND or KIND:SEED" -- "$bin/crowd-bake" --critter "$spec" --out "$work/never.crowd"
done
for value in 18446744073709551616 99999999999999999999999 " 5" "5 "; do
  expect 2 "crowd-bake: --max-bytes" -- "$bin/crowd-bake" --max-bytes "$value" --frames 4 --out "$work/never.crowd"
done
# an output that is an input or another output is refused before anything is written; the
# same file through another name too ("./", a link)
cp "$work/t.frames" "$work/keep.frames"
expect 2 "are one file" -- "$bin/crowd-bake" --critter blob --write-dump "$work/x.crowd" --out "$work/x.crowd"
expect 2 "are one file" -- "$bin/crowd-bake" --critter blob --write-dump "$work/./x.crowd" --out "$work/x.crowd"
[[ -e "$work/x.crowd" ]] && fail "a refused pair of outputs left a file"
expect 2 "is the input" -- "$bin/crowd-bake" --frames-dump "$work/keep.frames" --out "$work/keep.frames"
ln -s keep.frames "$work/keep_link.frames"
expect 2 "is the input" -- "$bin/crowd-bake" --frames-dump "$work/keep.frames" --write-dump "$work/keep_link.frames"
cp "$work/t.frames" "$work/keep.crowd"
cd "$work" || exit 1
expect 2 "is the input" -- "$bin/crowd-bake" --frames-dump keep.crowd # the default output, keep.crowd
cd - > /dev/null || exit 1
cmp -s "$work/t.frames" "$work/keep.frames" || fail "a refused bake changed its input"
cmp -s "$work/t.frames" "$work/keep.crowd" || fail "a refused bake replaced its input by its default output"
expect 2 "is the input" -- "$bin/crowd-bake" "$work/h.glb" --out "$work/../$(basename "$work")/h.glb"

if [[ -x "$bin/crowd-shot" ]]; then
  expect 0 "wrote" -- "$bin/crowd-shot" --out "$work/shot.png" --size 320x180 --count 300 --seconds 0.5
  [[ $(head -c 8 "$work/shot.png" | od -An -tx1 | tr -d ' \n') == "89504e470d0a1a0a" ]] || fail "shot.png is not a PNG"
  expect 2 "bad value" -- "$bin/crowd-shot" --size 3x3
  expect 2 "bad value" -- "$bin/crowd-shot" --scenario tango
  expect 2 "bad value for --far-shadow" -- "$bin/crowd-shot" --far-shadow soft
  expect 1 "cut short" -- "$bin/crowd-shot" "$work/cut.crowd" --out "$work/never.png"
  # bone mode of a morph-animated bake: refused with the reason, not frozen cubes and exit 0
  expect 0 "" -- "$bin/crowd-bake" "$assets/gltf/AnimatedMorphCube.glb" --bones --out "$work/morph.crowd" --quiet
  expect 1 "bone mode is unavailable" -- "$bin/crowd-shot" "$work/morph.crowd" --mode bones --size 160x90 \
    --count 20 --seconds 0.1 --out "$work/never.png"
  [[ -e "$work/never.png" ]] && fail "crowd-shot --mode bones on a morph bake wrote a picture"
  expect 0 "wrote" -- "$bin/crowd-shot" "$work/morph.crowd" --size 160x90 --count 20 --seconds 0.1 --out "$work/morph.png"
  [[ -e "$work/never.png" ]] && fail "a failed shot left a file"
  for args in "--size 64x64junk" "--size 64x" "--size x64" "--size 64x64x2" "--size -64x64" "--size 64.5x64" \
              "--size 64X64" "--eye nan,0,0" "--eye 1,2" "--eye 1,2,3,4" "--eye 1,2,3junk" "--eye 1,,3" \
              "--target inf,0,0" "--target 0,1e999,0" "--seconds nan" "--seconds 1s" "--count 5junk" \
              "--mode gpu" "--eye 0,1,0 --target 0,1,0"; do
    # shellcheck disable=SC2086
    expect 2 "crowd-shot" -- "$bin/crowd-shot" $args --out "$work/never.png"
  done
  expect 2 "missing value for --out" -- "$bin/crowd-shot" --out
  expect 2 "missing value for --eye" -- "$bin/crowd-shot" --eye
  expect 2 "more than one input" -- "$bin/crowd-shot" "$work/h.crowd" "$work/c.crowd"
  [[ -e "$work/never.png" ]] && fail "a refused shot left a file"
  # a failed write leaves the existing target as it was: a device, or a file whose directory
  # cannot take the temporary file (a name too long for its ".tmp.<pid>.<n>" sibling works as root too)
  shot=(--size 64x64 --count 10 --seconds 0)
  if [[ -n "$device" ]]; then
    expect 1 "refusing to replace it" -- "$bin/crowd-shot" "${shot[@]}" --out "$device"
    [[ -c "$device" ]] || fail "crowd-shot replaced or removed a device"
  fi
  long="$work/$(printf 'p%.0s' $(seq 1 250)).png"
  echo "keep me" > "$long"
  expect 1 "cannot create" -- "$bin/crowd-shot" "${shot[@]}" --out "$long"
  [[ "$(cat "$long")" == "keep me" ]] || fail "a failed shot changed or removed the existing target"
  if [[ $(id -u) -ne 0 ]]; then
    mkdir "$work/locked" && echo "keep me" > "$work/locked/shot.png" && chmod 555 "$work/locked"
    expect 1 "cannot create" -- "$bin/crowd-shot" "${shot[@]}" --out "$work/locked/shot.png"
    [[ "$(cat "$work/locked/shot.png")" == "keep me" ]] || fail "a shot into a read-only directory changed the target"
    chmod 755 "$work/locked"
  fi
  expect 0 "wrote" -- "$bin/crowd-shot" "${shot[@]}" --out "$work/link_shot.png"
  if [[ -w /dev/full ]]; then
    "$bin/crowd-shot" "${shot[@]}" --out "$work/full.png" > /dev/full 2> "$work/err" \
      && fail "crowd-shot > /dev/full exited 0"
  fi
  expect 0 "instances" -- "$bin/crowd-bench" --counts 1000 --frames 45
  # imposters for vertex frames as for a rig: the atlas is in the file (its IMPS section)
  small_atlas=(--imposter-frames 2 --imposter-views 4 --imposter-elevations 1 --imposter-tile 16)
  expect 0 "imposters: 2 frames x 4 views" -- "$bin/crowd-bake" --critter blob "${small_atlas[@]}" --out "$work/ci.crowd"
  grep -q IMPS "$work/ci.crowd" || fail "--critter --imposter-*: no atlas in the file"
  expect 0 "imposters: 2 frames x 4 views" -- "$bin/crowd-bake" --frames-dump "$work/t.frames" --imposters \
    "${small_atlas[@]}" --out "$work/ti.crowd"
  grep -q IMPS "$work/ti.crowd" || fail "--frames-dump --imposters: no atlas in the file"
  expect 0 "PASS" -- "$bin/crowd-verify" "$work/ti.crowd"
  # the GPU-driven path end to end, small and with GL errors checked after every pass (llvmpipe
  # has GL 4.5): the bench at its fewest frames with --render, and a shot; then refused flags
  expect 0 "instances" -- "$bin/crowd-bench" "$work/h.crowd" --render gpu --counts 1000 --frames 3 --gl-debug
  expect 0 "wrote" -- "$bin/crowd-shot" "$work/h.crowd" --path gpu --gl-debug --size 160x90 --count 200 \
    --seconds 0.2 --grass off --out "$work/gpu_shot.png"
  expect 2 "needs --render" -- "$bin/crowd-bench" "$work/h.crowd" --gl-debug --counts 1000 --frames 45
  expect 2 "needs cpu or gpu" -- "$bin/crowd-bench" "$work/h.crowd" --render metal --counts 1000 --frames 3
  expect 2 "expected a whole number in 3" -- "$bin/crowd-bench" "$work/h.crowd" --render gpu --frames 2
  expect 2 "bad value" -- "$bin/crowd-shot" "$work/h.crowd" --path vulkan --out "$work/never.png"
  [[ -e "$work/never.png" ]] && fail "a refused shot left a file"
fi

if [[ $failures -eq 0 ]]; then echo "ok   test_cli"; else echo "$failures failures"; exit 1; fi
