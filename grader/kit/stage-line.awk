# stage-line.awk - the one line a build stage prints (Makefile, stage_line):
# what its steps came to and how long they took. Each line of the stage's log
# is "START KIND what" (KIND: CC, NVCC, LINK); variables: name, since (when
# this make started: older lines are left over from one that failed), now.
$1 < since { next }
n == 0 || $1 < t0 { t0 = $1 }
{ kind[$2]++; n++; one = $0 }
END {
    if (n == 0) exit
    secs = sprintf("%.1f s", now - t0)
    if (n == 1) { sub(/^[^ ]+ [A-Z]+ /, "", one); printf "  %-8s %s (%s)\n", name, one, secs; exit }
    what = ""
    if (kind["CC"]) what = sprintf("%d C file%s", kind["CC"], kind["CC"] > 1 ? "s" : "")
    if (kind["NVCC"]) what = what (what ? ", " : "") sprintf("%d CUDA file%s", kind["NVCC"], kind["NVCC"] > 1 ? "s" : "")
    if (what) what = what " compiled"
    if (kind["LINK"]) what = what (what ? ", " : "") sprintf("%d program%s linked", kind["LINK"], kind["LINK"] > 1 ? "s" : "")
    printf "  %-8s %s (%s)\n", name, what, secs
}
