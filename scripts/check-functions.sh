#!/usr/bin/env bash
# Functions a reader can hold in mind (make analyze, part of make test): fails, naming each function
# and its file, when a library function is longer than 80 lines or takes more than 8 parameters
# (a small struct of related values passed by pointer is the way out of the second). Checks every
# function defined in the .c files under the folders given, and every function defined in their .h
# files (the static inline ones), as universal-ctags sees them (scripts/setup.sh installs it).
#
#   scripts/check-functions.sh FOLDER...     e.g. scripts/check-functions.sh src/bake src/gltf
#
# MAX_LINES and MAX_PARAMS override the limits (for a survey, not for the build).
set -euo pipefail
cd "$(dirname "$0")/.."
max_lines=${MAX_LINES:-80}
max_params=${MAX_PARAMS:-8}
if (($# == 0)); then
  echo "usage: scripts/check-functions.sh FOLDER..." >&2
  exit 2
fi
if ! ctags --version 2> /dev/null | grep -q 'Universal Ctags'; then
  echo "check-functions: needs universal-ctags (Debian package universal-ctags; scripts/setup.sh)" >&2
  exit 1
fi
for folder in "$@"; do
  [[ -d $folder ]] || { echo "check-functions: no folder $folder" >&2; exit 2; }
done
mapfile -t files < <(find "$@" -type f \( -name '*.c' -o -name '*.h' \) | sort)
((${#files[@]})) || { echo "check-functions: no C files under $*" >&2; exit 2; }

# One line per function definition: name, file, first line, last line, signature. The parameter
# count splits the signature at top-level commas (a function-pointer parameter has its own).
ctags --languages=C --langmap=C:+.h --kinds-C=f --fields=+neS -x --_xformat='%N	%F	%n	%e	%S' "${files[@]}" |
  awk -F'\t' -v max_lines="$max_lines" -v max_params="$max_params" -v files="${#files[@]}" '
    function parameters(signature,    body, depth, count, i, c) {
      body = signature
      sub(/^\(/, "", body)
      sub(/\)$/, "", body)
      if (body ~ /^[ \t]*(void)?[ \t]*$/)
        return 0
      count = 1
      depth = 0
      for (i = 1; i <= length(body); i++) {
        c = substr(body, i, 1)
        if (c == "(" || c == "[")
          depth++
        else if (c == ")" || c == "]")
          depth--
        else if (c == "," && depth == 0)
          count++
      }
      return count
    }
    {
      checked++
      lines = $4 - $3 + 1
      count = parameters($5)
      if (lines > max_lines) {
        printf "%s:%s: %s is %d lines (limit %d)\n", $2, $3, $1, lines, max_lines
        failed++
      }
      if (count > max_params) {
        printf "%s:%s: %s takes %d parameters (limit %d)\n", $2, $3, $1, count, max_params
        failed++
      }
    }
    END {
      if (failed) {
        printf "check-functions: FAILED: %d finding(s); split the function into named helpers\n", failed
        exit 1
      }
      printf "check-functions: %d functions in %d files within %d lines and %d parameters\n", checked, files,
        max_lines, max_params
    }'
