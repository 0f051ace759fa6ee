# prebuilt.sh - sourced by the autograders (autolab-grade.sh, Gradescope's setup.sh):
# prebuilt_fits KIT says whether the grader make gradescope / make autolab shipped
# in KIT/build (KIT/build/PREBUILT) can grade on this machine; when it cannot, $why
# says why, and the caller removes KIT/build and builds the grader here.
prebuilt_fits() {
    local kit=$1 cc arch p
    why=
    [ -f "$kit/build/PREBUILT" ] || { why="none was shipped"; return 1; }
    "$kit/build/smemlab-grade" --version >/dev/null 2>&1 ||
        { why="it does not run on this machine (another distribution or library versions?)"; return 1; }
    cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d '. ')
    [ -n "$cc" ] || return 0 # no GPU: its device code is never loaded (the kernels are emulated)
    arch=$(cat "$kit/build/tools-arch" 2>/dev/null)
    [ -n "$arch" ] || { why="its GPU architectures are not recorded (build/tools-arch)"; return 1; }
    # machine code for this GPU (sm_CC), or PTX of a compute capability at most this one's
    case " $arch " in *"sm_$cc "* | *"sm_$cc,"*) return 0 ;; esac
    for p in $(grep -o 'code=compute_[0-9]*\|-arch=sm_[0-9]*' <<<"$arch" | grep -o '[0-9]*$'); do
        [ "$p" -le "$cc" ] && return 0
    done
    why="its device code ($arch) does not fit this GPU (sm_$cc): make it with NVCC_ARCH covering sm_$cc"
    return 1
}
