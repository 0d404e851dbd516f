#!/usr/bin/env bash
# Proves crowdbake can be taken by an engine from outside the repository (make test-package):
#   1. installs the Release build ($1, default build) into a temporary prefix;
#   2. builds and runs tests/consumer with gcc/g++ and with clang/clang++ three ways: find_package
#      on the install, pkg-config on the install, add_subdirectory of this checkout (which must
#      build only the libraries and leave the parent's build type and flags alone);
#   3. a runtime-only build (-DCROWD_BAKE=OFF -DCROWD_GL=OFF): crowd_core alone, no third-party
#      package looked for, installed, and the runtime consumer built on it;
#   4. a shared build (BUILD_SHARED_LIBS=ON): every exported symbol is a crowd_* API function,
#      sonames set, the consumer runs on the installed .so files.
# The consumers compile with -Wall -Wextra -Wpedantic -Werror (C11 and C++11).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
jobs=${JOBS:-2}
work=$(realpath -m "$build/package-test")
src=$PWD
rm -rf "$work"
mkdir -p "$work"
log=$work/log.txt
: > "$log"
start=$SECONDS

step() { echo "package: $*"; }
fail() { echo "package: FAILED: $* (log: $log)"; tail -40 "$log"; exit 1; }
run() { "$@" >> "$log" 2>&1 || fail "$*"; }
quiet_cmake() { run cmake "$@"; }

[[ -f $build/CMakeCache.txt ]] || fail "no build in $build (make build first)"

# ---- 1. install
prefix=$work/prefix
quiet_cmake --install "$build" --prefix "$prefix"
for f in include/crowdbake/version.h include/crowdbake/crowd.h lib/libcrowd_core.a lib/libcrowd_bake.a \
         lib/libcrowd_gl.a lib/cmake/crowdbake/crowdbakeConfig.cmake lib/cmake/crowdbake/crowdbakeConfigVersion.cmake \
         lib/pkgconfig/crowdbake.pc lib/pkgconfig/crowdbake-core.pc bin/crowd-bake; do
  [[ -e $prefix/$f ]] || fail "install lacks $f"
done
# every public header is installed (the full build builds every layer): a header left out would
# leave its exported functions without a declaration for the engine
for h in include/crowdbake/*.h; do
  [[ -e $prefix/$h ]] || fail "install lacks $h"
done
step "installed to $prefix ($(find "$prefix" -type f | wc -l) files)"

# the installed static libraries hold machine code, not just one compiler's LTO bitcode
for lib in "$prefix"/lib/libcrowd_*.a; do
  [[ $(nm --defined-only "$lib" 2>/dev/null | grep -c ' T crowd_') -gt 0 ]] || fail "$lib: no machine-code crowd_ symbols"
  # (grep -q reads a captured string, never a pipe: under pipefail, a writer that grep -q leaves
  # early dies of SIGPIPE and the pipeline reads as failed; on a loaded host that is a real race)
  if grep -q 'gnu.lto_' <<< "$(objdump -h "$lib")"; then fail "$lib holds GCC LTO bitcode"; fi
done

consumer=tests/consumer
strict=(-Wall -Wextra -Wpedantic -Werror)
asset=$work/humanoid.crowd

run_consumers() { # dir: run the consumers built there
  local dir=$1 what=$2
  run "$dir/consumer" "$asset"
  run "$dir/consumer_cpp" "$asset"
  run "$dir/consumer_gl"
  step "$what: C bake + runtime, C++ runtime, gl: refused with no context, headless read: ok"
}

for pair in gcc:g++ clang:clang++; do
  cc=${pair%%:*} cxx=${pair#*:}
  # find_package
  dir=$work/find-$cc
  quiet_cmake -S $consumer -B "$dir" -DCMAKE_C_COMPILER=$cc -DCMAKE_CXX_COMPILER=$cxx -DCMAKE_PREFIX_PATH="$prefix"
  quiet_cmake --build "$dir" -j "$jobs"
  run_consumers "$dir" "find_package, $cc/$cxx"

  # pkg-config (static: --static brings Libs.private / Requires.private)
  dir=$work/pc-$cc
  mkdir -p "$dir"
  export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
  run $cc -std=c11 "${strict[@]}" $consumer/consumer.c -o "$dir/consumer" \
    $(pkg-config --cflags crowdbake-bake) $(pkg-config --static --libs crowdbake-bake)
  run $cxx -std=c++11 "${strict[@]}" $consumer/consumer.cpp -o "$dir/consumer_cpp" \
    $(pkg-config --cflags crowdbake-core) $(pkg-config --static --libs crowdbake-core)
  run $cc -std=c11 "${strict[@]}" $consumer/consumer_gl.c -o "$dir/consumer_gl" \
    $(pkg-config --cflags crowdbake) $(pkg-config --static --libs crowdbake)
  unset PKG_CONFIG_PATH
  run_consumers "$dir" "pkg-config, $cc/$cxx"

  # add_subdirectory of this checkout (no build type: the parent's choice, which is none)
  dir=$work/sub-$cc
  quiet_cmake -S $consumer -B "$dir" -DCMAKE_C_COMPILER=$cc -DCMAKE_CXX_COMPILER=$cxx -DCROWDBAKE_SOURCE_DIR="$src"
  quiet_cmake --build "$dir" -j "$jobs"
  run_consumers "$dir" "add_subdirectory, $cc/$cxx"
done

# the installed tool runs and its bake loads in the C++ consumer
run "$prefix/bin/crowd-bake" --out "$work/tool.crowd" --quiet
run "$work/find-gcc/consumer_cpp" "$work/tool.crowd"
step "installed crowd-bake: ok"

# ---- 3. runtime only: crowd_core alone; nothing third-party looked for
dir=$work/runtime
quiet_cmake -S . -B "$dir/build" -DCMAKE_BUILD_TYPE=Release -DCROWD_BAKE=OFF -DCROWD_GL=OFF
if grep -E '^(CJSON|MESHOPT|STB|EPOXY|GLFW|meshoptimizer_DIR|PKG_CONFIG)' "$dir/build/CMakeCache.txt" >> "$log"; then
  fail "the runtime-only configure looked for third-party packages"
fi
quiet_cmake --build "$dir/build" -j "$jobs"
# crowd_core and the two object libraries it is made of (the runtime and the simulation)
targets=$(cmake --build "$dir/build" --target help | sed -n 's/^[.][.][.] \(crowd[a-z_]*\).*/\1/p' | sort | tr '\n' ' ')
[[ $targets == "crowd_core crowd_runtime crowd_sim " ]] || fail "the runtime-only build has crowd targets '$targets'"
quiet_cmake --install "$dir/build" --prefix "$dir/prefix"
[[ ! -e $dir/prefix/include/crowdbake/bake.h ]] || fail "runtime-only install has bake.h"
quiet_cmake -S $consumer -B "$dir/consumer" -DCONSUMER_RUNTIME_ONLY=ON -DCMAKE_PREFIX_PATH="$dir/prefix"
quiet_cmake --build "$dir/consumer" -j "$jobs"
run "$dir/consumer/consumer_cpp" "$asset"
step "runtime only: crowd_core (runtime and simulation) alone, no third-party package, C++ consumer: ok"

# ---- 4. shared libraries
dir=$work/shared
quiet_cmake -S . -B "$dir/build" -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=ON
quiet_cmake --build "$dir/build" -j "$jobs"
quiet_cmake --install "$dir/build" --prefix "$dir/prefix"
# every CROWD_API function of the headers, and nothing else, is exported; but libcrowd_core.so also
# exports the internal helpers bake and gl share (the files CMakeLists.txt names in
# CROWD_CORE_SHARED_HELPERS, declared in src/core/{alloc,error,clock,crc32,half,octahedral,container_read,file_read}.h)
sed -n 's/^[A-Za-z].*[ *]\(crowd_[a-z_0-9]*\)\( *(\|;\|\[\).*/\1/p' src/core/alloc.h src/core/error.h src/core/clock.h src/core/crc32.h \
  src/core/half.h src/core/octahedral.h src/core/container_read.h src/core/file_read.h | sort -u > "$work/core-helpers.txt"
sed -n 's/^CROWD_API[^(]*[ *]\([a-z_0-9]*\)(.*/\1/p' include/crowdbake/*.h cmake/version.h.in | sort -u > "$work/api.txt"
: > "$work/exported.txt"
for lib in core bake gl; do
  so=$dir/prefix/lib/libcrowd_$lib.so
  [[ -e $so ]] || fail "shared install lacks $so"
  soname=$(readelf -d "$so" | sed -n 's/.*SONAME.*\[\(.*\)\]/\1/p')
  [[ $soname == libcrowd_$lib.so.* ]] || fail "$so: soname '$soname'"
  nm -D --defined-only "$so" | awk '{print $NF}' | sort > "$work/exported-$lib.txt"
  if [[ $lib == core ]]; then
    extra=$(comm -23 "$work/exported-$lib.txt" "$work/api.txt" | comm -23 - "$work/core-helpers.txt")
  else
    extra=$(comm -23 "$work/exported-$lib.txt" "$work/api.txt")
  fi
  [[ -z $extra ]] || fail "$so exports what no header declares with CROWD_API: $(echo $extra | head -c 400)"
  cat "$work/exported-$lib.txt" >> "$work/exported.txt"
  echo "$so: $(nm -D --defined-only "$so" | wc -l) exported symbols, soname $soname" >> "$log"
done
missing=$(sort -u "$work/exported.txt" | comm -13 - "$work/api.txt")
[[ -z $missing ]] || fail "declared CROWD_API but not exported by any library: $(echo $missing | head -c 400)"
quiet_cmake -S $consumer -B "$dir/consumer" -DCMAKE_PREFIX_PATH="$dir/prefix"
quiet_cmake --build "$dir/consumer" -j "$jobs"
grep -q "$dir/prefix/lib/libcrowd_bake.so" <<< "$(ldd "$dir/consumer/consumer")" || fail "consumer does not use the installed .so"
run_consumers "$dir/consumer" "shared libraries (find_package, gcc)"

step "all checks passed in $((SECONDS - start)) s"
