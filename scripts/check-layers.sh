#!/usr/bin/env bash
# The layers include only what docs/architecture.md says they may: fails, naming file:line, where a
# library file under src/ includes another layer's internal header (or a public header its layer
# must not know). The rule that matters most: the simulation reaches the runtime only through its
# door (crowd/crowd_client.h, crowd/record.h), and the runtime knows neither the simulation nor any
# renderer. test_runtime_alone proves the first half by linking; this proves it by reading.
#
# Usage: scripts/check-layers.sh (run by make format-check)
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 - <<'PY'
import os, re, sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
OFFLINE = {"bake.h", "gltf.h", "rig.h", "critters.h"}
DRAWING = {"gl.h", "grass.h"}
# folder -> (internal folders it may include, public headers it must not include)
RULES = {
    "common": (set(), OFFLINE | DRAWING | {"sim.h"}),
    "core": ({"core", "common"}, OFFLINE | DRAWING | {"sim.h"}),
    "crowd": ({"crowd", "core", "common"}, OFFLINE | DRAWING | {"sim.h"}),
    "sim": ({"sim", "core", "common", "crowd/crowd_client.h", "crowd/record.h"}, OFFLINE | DRAWING),
    "rig": ({"rig", "core", "common"}, DRAWING | {"sim.h", "hits.h", "crowd.h"}),
    "bake": ({"bake", "core", "common"}, DRAWING | {"sim.h", "hits.h"}),
    "gltf": ({"gltf", "core", "common"}, DRAWING | {"sim.h", "hits.h"}),
    "critters": ({"critters", "core", "common"}, DRAWING | {"sim.h", "hits.h"}),
    "gl": ({"gl", "core", "common"}, {"sim.h", "grass.h"}),
    "grass": ({"grass", "gl", "core", "common"}, {"sim.h"}),
    "showcase": ({"showcase", "gl", "core", "common"}, set()),
    "webgpu": ({"webgpu", "core", "common"}, OFFLINE | DRAWING | {"sim.h"}),
}

def allowed(path, internal):
    folder = path.split("/", 1)[0]
    return folder in internal or path in internal

failures = 0
for layer in sorted(os.listdir("src")):
    root = os.path.join("src", layer)
    if not os.path.isdir(root):
        continue
    if layer not in RULES:
        print(f"layers: src/{layer} has no rule in scripts/check-layers.sh (add it with the docs' layer table)")
        failures += 1
        continue
    internal, banned = RULES[layer]
    for dirpath, _, files in os.walk(root):
        for name in sorted(files):
            if not name.endswith((".c", ".h")):
                continue
            file = os.path.join(dirpath, name)
            for number, line in enumerate(open(file, encoding="utf-8"), 1):
                m = INCLUDE.match(line)
                if not m or "/" not in m.group(1):
                    continue  # a same-folder include
                target = m.group(1)
                if target.startswith("crowdbake/"):
                    bad = target.split("/", 1)[1] in banned
                else:
                    bad = not allowed(target, internal)
                if bad:
                    print(f"{file}:{number}: src/{layer} may not include \"{target}\"")
                    failures += 1
if failures:
    print(f"layers: FAILED: {failures} include(s) cross a layer's wall (docs/architecture.md, 'Layers')")
    sys.exit(1)
print("layers: every library folder includes only the layers below it")
PY
