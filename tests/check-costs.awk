# tests/check-costs.awk - what each stage of make check cost, from the lines
# tests/timed-shell wrote (target, start, end, CPU ticks of a recipe line):
# a stage's wall time runs from its first step's start to its last step's end
# (stages overlap under make -j), its CPU time is all its steps'. Stages are
# the check-* targets; what they build is counted with the stage that needs it.
# awk -v total=SECONDS -v ticks=$(getconf CLK_TCK) -f tests/check-costs.awk LOG
function stage(t) {
    sub(/\.linked$/, "", t) # a program's link runs under its stamp (the Makefile's relink)
    if (t ~ /^check-|^check$|^docs-browser$/) return t
    if (t ~ /\/compile-check\/|\/planted\/src\/|\/tests\/emulator\/labs\/|\/tests\/(trace-probe|truth-run)$/)
        return "check-compile"
    if (t ~ /\/tests\/(unit-tests|lab5-all-archs\.so|lab1-injected\.so|foreign\.fatbin)$|\/tests\/emulator\/|\/tests\/sass\//)
        return "check-unit"
    if (t ~ /\/tests\/gen-traces$/) return "check-traces"
    if (t ~ /\/tests\/expect$/) return "check-emulated"
    if (t ~ /\/docs\/|^docs/) return "check-docs"
    return "build (grader, jail, batch, support.o)"
}
BEGIN { FS = "\t" }
NF == 4 {
    s = stage($1)
    if (s == "check" || s == "check-full") next
    if (!(s in first) || $2 < first[s]) first[s] = $2
    if (!(s in last) || $3 > last[s]) last[s] = $3
    cpu[s] += $4 / ticks
    all_cpu += $4 / ticks
}
END {
    printf "make %s: what each stage cost (wall s: its first step to its last, the stages overlap; CPU s: all its steps)\n", tier ? tier : "check"
    n = 0
    for (s in cpu) order[++n] = s
    for (i = 2; i <= n; i++) # by CPU time, the most first
        for (j = i; j > 1 && cpu[order[j]] > cpu[order[j - 1]]; j--) {
            x = order[j]; order[j] = order[j - 1]; order[j - 1] = x
        }
    for (i = 1; i <= n; i++)
        printf "  %-40s %7.1f %7.1f\n", order[i], last[order[i]] - first[order[i]], cpu[order[i]]
    printf "  %-40s %7d %7.1f\n", "all (wall: make " (tier ? tier : "check") " from its start)", total, all_cpu
}
