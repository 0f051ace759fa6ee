# tests/planted/jailed.awk - which planted variants make check builds through the
# build jail (PLANTED_JAILED in tests/tests.mk): for each line a patch adds that the
# jail judges (an #include, #embed or #line, __has_include, #pragma GCC dependency,
# .incbin, inline asm), the first patch in name order that adds it. An #include is
# the header it names (every variant that reads cooperative_groups.h is proof of the
# same thing), any other line its text without comments. The rest build outside
# the jail, with the jail's environment (the Makefile's lab_lib, RUNNER nojail).
#   LC_ALL=C awk -f tests/planted/jailed.awk tests/planted/*.patch
FNR == 1 {
    name = FILENAME
    sub(/.*\//, "", name)
    sub(/\.patch$/, "", name)
}
/^\+/ && (/#[[:space:]]*(include|embed|line)/ || /__has_include|incbin/ ||
          /pragma[[:space:]]+GCC[[:space:]]+dependency/ || /(^|[^A-Za-z0-9_])asm([^A-Za-z0-9_]|$)/) {
    key = substr($0, 2)
    if (match(key, /#[[:space:]]*include[[:space:]]*[<"][^>"]*[>"]/)) {
        key = substr(key, RSTART, RLENGTH)
        sub(/^#[[:space:]]*include[[:space:]]*/, "include ", key)
    } else {
        gsub(/\/\*.*\*\/|\/\/.*$/, "", key)
        gsub(/^[[:space:]]+|[[:space:]]+$/, "", key)
    }
    if (!(key in seen)) {
        seen[key] = 1
        if (!(name in jailed)) {
            jailed[name] = 1
            print name
        }
    }
}
