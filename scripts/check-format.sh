#!/usr/bin/env bash
# clang-format check of the project's own C/C++ (make format-check, part of make test): exits
# non-zero, naming the files and lines, if any would change. --fix applies the format instead
# (make format); --list prints the files checked. Third-party code is not ours to format: none is
# vendored today, and generated files live in the build trees.
set -euo pipefail
cd "$(dirname "$0")/.."
clang_format=${CLANG_FORMAT:-clang-format}
mapfile -t files < <(git ls-files --cached --others --exclude-standard -- \
  'src/*.c' 'src/*.h' 'include/*.h' 'tools/*.c' 'tools/*.h' 'demo/*.c' 'demo/*.h' \
  'tests/*.c' 'tests/*.h' 'tests/*.cpp' 'examples/*.c' 'examples/*.h' 'examples/*.cpp' 'web/*.c' 'web/*.h' | sort)
case ${1:-} in
  --list) printf '%s\n' "${files[@]}" ;;
  --fix) "$clang_format" --style=file -i "${files[@]}" ;;
  *)
    if ! "$clang_format" --style=file --dry-run -Werror "${files[@]}" 2> /tmp/check-format.$$; then
      grep -c 'error:' /tmp/check-format.$$ | sed 's/^/format: lines to change: /'
      grep 'error:' /tmp/check-format.$$ | cut -d: -f1 | sort | uniq -c | sort -rn | head -20
      rm -f /tmp/check-format.$$
      echo "format: FAILED (make format applies .clang-format)"
      exit 1
    fi
    rm -f /tmp/check-format.$$
    echo "format: ${#files[@]} files follow .clang-format" ;;
esac
