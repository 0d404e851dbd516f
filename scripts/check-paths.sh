#!/usr/bin/env bash
# The repository holds everything its build and tests read (make format-check, part of make test):
# fails, naming file:line, when a tracked file reaches for a path outside the checkout, such as a
# sibling folder beside the clone (../shared/...), a source dir's parent in CMake, a test script
# climbing two levels out of tests/, or an absolute home or work directory. A clone alone must build,
# bake and test; .ci/run proves it by running make test in a clone that has an empty parent.
set -euo pipefail
cd "$(dirname "$0")/.."
self=scripts/check-paths.sh
patterns=(
  '\.\./shared([/"'"'"' ]|$)'                                   # the folder beside a checkout
  '\$\{(PROJECT|CMAKE)_SOURCE_DIR\}/\.\.([/"'"'"' ]|$)'          # CMake: above the project
  '\$\{CMAKE_CURRENT_(SOURCE|LIST)_DIR\}/\.\./\.\.([/"'"'"' ]|$)'
  'dirname "?\$0"?\)/\.\./\.\.([/"'"'"' ]|$)'                    # scripts in a top-level folder
  '(^|[^A-Za-z0-9_.])/(work|home)/'                              # absolute paths of one machine
)
joined=$(IFS='|'; echo "${patterns[*]}")
# third-party notices under assets/ are quoted as their authors wrote them
mapfile -t files < <(git ls-files -- . ':!:assets/*' ':!:'"$self")
hits=$(grep -nIE "$joined" -- "${files[@]}" || true)
if [[ -n $hits ]]; then
  printf '%s\n' "$hits"
  echo "paths: FAILED: the lines above reach outside the repository (copy what they need into it)"
  exit 1
fi
echo "paths: ${#files[@]} tracked files stay inside the repository"
