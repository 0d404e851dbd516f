#!/usr/bin/env bash
# Installs whatever the build and the tests need and is not there yet: Debian packages (apt-get,
# with sudo when not root) and the npm packages of package.json. Idempotent and quiet when nothing
# is missing: `make` calls it before every target. Nothing is downloaded by hand, no browser is
# downloaded by npm (the browser tests drive Debian's Chromium).
set -euo pipefail
cd "$(dirname "$0")/.."

debian_packages=(
  build-essential cmake pkg-config
  clang libclang-rt-14-dev                                # sanitizers, libFuzzer
  cppcheck clang-format python3                           # make analyze, make format-check
  universal-ctags                                         # make analyze: function sizes (check-functions.sh)
  libmeshoptimizer-dev libcjson-dev libstb-dev
  dpkg-dev xz-utils                                       # the same libraries' Debian sources, for the wasm baker
  libepoxy-dev libegl-dev libegl-mesa0 libgl1-mesa-dri    # GL through EGL surfaceless (llvmpipe)
  libglfw3-dev                                            # the native demo's window
  xvfb xauth libglx-mesa0 xdotool                         # ... opened and driven in a test (X server in memory)
  emscripten node-acorn                                   # the web build (WebGL2)
  chromium                                                # the browser smoke test (SwiftShader)
)
# Node.js and npm (the web demo's panel and browser test, the glTF export checks): any recent
# install will do; Debian's packages when there is none.
command -v node > /dev/null || debian_packages+=(nodejs)
command -v npm > /dev/null || debian_packages+=(npm)

missing=()
for pkg in "${debian_packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$pkg")
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  if [[ $(id -u) -eq 0 ]]; then sudo=(); else sudo=(sudo); fi
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get update -qq
  "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# npm packages, exactly as locked; again only when package-lock.json changed since the last install.
if [[ ! -f node_modules/.package-lock.json || package-lock.json -nt node_modules/.package-lock.json ]]; then
  echo "setup: npm ci"
  npm ci --no-audit --no-fund --loglevel=error
fi
