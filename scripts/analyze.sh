#!/usr/bin/env bash
# Static analysis (make analyze, part of make test): cppcheck over every translation unit of the
# build's compile_commands.json (libraries, tools, demo, tests; generated GLSL left out), checks
# warning, style, portability and performance. Exits non-zero on any finding not suppressed, either
# inline (`// cppcheck-suppress id ; reason`) or in scripts/cppcheck.supp (with the reason).
# About 10 s of CPU on 2 cores; results are cached in the build tree.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
[[ -f $build/compile_commands.json ]] || { echo "analyze: no $build/compile_commands.json (make build first)"; exit 1; }
mkdir -p "$build/cppcheck"
# the suppressions file without its comments (cppcheck reads one id[:file] per line)
grep -v '^\s*\(#\|$\)' scripts/cppcheck.supp | sed "s|:|:*|" > "$build/cppcheck/suppressions.txt"
if cppcheck --project="$build/compile_commands.json" -j "${JOBS:-2}" --std=c11 --quiet \
    --enable=warning,style,portability,performance --inline-suppr --error-exitcode=1 \
    --suppressions-list="$build/cppcheck/suppressions.txt" --suppress=missingIncludeSystem \
    --cppcheck-build-dir="$build/cppcheck" -i "$build/generated" \
    --template='{file}:{line}: {severity} [{id}] {message}' 2> "$build/cppcheck/report.txt"; then
  echo "analyze: cppcheck $(cppcheck --version | cut -d' ' -f2): no findings in $(grep -c '"file"' "$build/compile_commands.json") translation units"
else
  cat "$build/cppcheck/report.txt"
  echo "analyze: FAILED: fix the finding, or suppress a false positive with its reason (scripts/cppcheck.supp)"
  exit 1
fi
