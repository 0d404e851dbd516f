#!/usr/bin/env bash
# Installs whatever the build and the tests need and is not there yet.
# Idempotent and quiet when nothing is missing: `make` calls it before every target.
# Everything comes from Debian packages (and, for the web tests, npm); nothing is downloaded by hand.
set -euo pipefail

debian_packages=(
  build-essential cmake pkg-config
  clang libclang-rt-14-dev          # sanitizers, libFuzzer
  libmeshoptimizer-dev libcjson-dev libstb-dev
)
# node and npm: the glTF export checks (glTF-Validator, three.js). A machine that already has a
# node (from another source) keeps it.
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

# npm devDependencies (package.json, pinned by package-lock.json): installed when node_modules is
# missing or older than the lockfile.
cd "$(dirname "$0")/.."
if [[ ! -d node_modules || package-lock.json -nt node_modules/.package-lock.json ]]; then
  echo "setup: npm ci"
  npm ci --no-audit --no-fund --loglevel=error
fi
