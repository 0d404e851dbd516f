#!/usr/bin/env bash
# Lines of the project's own C/C++ that clang-format would change (the original lines a reformat
# would touch), per file and in total: for tuning .clang-format. scripts/check-format.sh lists the files.
set -euo pipefail
cd "$(dirname "$0")/.."
total=0
while IFS= read -r f; do
  n=$(clang-format --style=file "$f" | diff -U0 "$f" - | grep -c '^-[^-]' || true)
  total=$((total + n))
  [[ ${1:-} == -v && $n -gt 0 ]] && echo "$n $f"
done < <(scripts/check-format.sh --list)
echo "format churn: $total lines of $(scripts/check-format.sh --list | xargs cat | wc -l)"
