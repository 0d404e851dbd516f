#!/bin/sh
# crowd_core is plain C11 + libm: every source of src/core and src/crowd compiles with gcc and clang
# at -std=c11 -pedantic and no -D flags (no _POSIX_C_SOURCE, no _GNU_SOURCE), and every public
# header compiles as C++11 with g++ and clang++ at -Wpedantic.
# Usage: check_portable.sh SOURCE_DIR BINARY_DIR (the binary dir holds the generated crowdbake/version.h)
set -u
root=${1:-.}
generated=${2:-build}/include
cd "$root" || exit 1
failures=0
checked=0
for cc in gcc clang; do
    if ! command -v $cc > /dev/null; then echo "check_portable: $cc missing"; failures=$((failures + 1)); continue; fi
    for f in src/core/*.c src/crowd/*.c; do
        checked=$((checked + 1))
        $cc -std=c11 -pedantic -Wall -Wextra -Werror -Iinclude -I"$generated" -Isrc -fsyntax-only "$f" ||
            { echo "FAIL $cc: $f"; failures=$((failures + 1)); }
    done
    for h in include/crowdbake/*.h; do
        checked=$((checked + 1))
        printf '#include "crowdbake/%s"\nint main(void) { return 0; }\n' "$(basename "$h")" |
            $cc -std=c11 -pedantic -Wall -Wextra -Werror -Iinclude -I"$generated" -x c -fsyntax-only - ||
            { echo "FAIL $cc: $h"; failures=$((failures + 1)); }
    done
done
for cxx in g++ clang++; do
    if ! command -v $cxx > /dev/null; then echo "check_portable: $cxx missing"; failures=$((failures + 1)); continue; fi
    for h in include/crowdbake/*.h; do
        checked=$((checked + 1))
        printf '#include "crowdbake/%s"\nint main() { return 0; }\n' "$(basename "$h")" |
            $cxx -std=c++11 -Wall -Wextra -Wpedantic -Werror -Iinclude -I"$generated" -x c++ -fsyntax-only - ||
            { echo "FAIL $cxx: $h"; failures=$((failures + 1)); }
    done
done
echo "check_portable: $checked compiles, $failures failed"
[ "$failures" -eq 0 ]
