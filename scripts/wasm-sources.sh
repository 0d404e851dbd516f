#!/usr/bin/env bash
# The baker's two C/C++ dependencies for the wasm build, which cannot link Debian's binary packages:
# the Debian source packages of exactly the versions installed natively (libcjson-dev,
# libmeshoptimizer-dev), fetched by apt-get source through a private source list (the system's apt
# configuration is not touched), checked by apt against Debian's signed Release files, and unpacked
# with Debian's patches applied by dpkg-source. So the page's baker runs the same code, the same
# security fixes included, as the native one.  Usage: scripts/wasm-sources.sh <dir>
# Idempotent: nothing is fetched when <dir> already holds these versions.
set -euo pipefail
dir=$(realpath -m "${1:?usage: scripts/wasm-sources.sh <dir>}")
version() { dpkg-query -W -f='${source:Version}' "$1"; }
wanted="cjson=$(version libcjson-dev) meshoptimizer=$(version libmeshoptimizer-dev)"
if [[ -f "$dir/versions" && "$(cat "$dir/versions")" == "$wanted" ]]; then exit 0; fi

rm -rf "$dir"
mkdir -p "$dir/apt/lists/partial" "$dir/apt/cache/archives/partial" "$dir/apt/parts" "$dir/src"
. /etc/os-release
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
cat > "$dir/apt/sources.list" <<LIST
deb-src [signed-by=$keyring] http://deb.debian.org/debian $VERSION_CODENAME main
deb-src [signed-by=$keyring] http://deb.debian.org/debian $VERSION_CODENAME-updates main
deb-src [signed-by=$keyring] http://deb.debian.org/debian-security $VERSION_CODENAME-security main
LIST
apt=(apt-get -qq -o "Dir::Etc::SourceList=$dir/apt/sources.list" -o "Dir::Etc::SourceParts=$dir/apt/parts"
     -o "Dir::State::Lists=$dir/apt/lists" -o "Dir::Cache=$dir/apt/cache" -o Debug::NoLocking=1
     -o APT::Sandbox::User="$(id -un)")
echo "wasm-sources: fetching the Debian sources of $wanted"
"${apt[@]}" update
# shellcheck disable=SC2086
(cd "$dir/src" && "${apt[@]}" source --download-only $wanted)
for dsc in "$dir"/src/*.dsc; do
  (cd "$dir/src" && dpkg-source --no-check -x "$(basename "$dsc")" > /dev/null)
done
ln -sfn "$(ls -d "$dir"/src/cjson-*/ | head -1)" "$dir/cjson"
ln -sfn "$(ls -d "$dir"/src/meshoptimizer-*/ | head -1)" "$dir/meshoptimizer"
echo "$wanted" > "$dir/versions"
