# cluster.sh - a one-machine Slurm cluster for the tests, sourced by them.
#
#   . tests/slurm/cluster.sh
#   cluster_start DIR [GPUS]  # munged, slurmctld, slurmd on localhost, all state in DIR;
#                         # GPUS 1 (default): partition smemlab, one GPU in gres.conf;
#                         # GPUS 0: partition cpu, a node without any GPU
#   ... sbatch, squeue, sacct-free tests (SLURM_CONF is exported) ...
#   cluster_stop          # cancel jobs, stop the daemons started here, keep DIR
#
# Everything lives under DIR: the munge key and socket, slurm.conf, gres.conf,
# state, spool and logs. Nothing under /etc is read or written, so it neither
# needs nor disturbs a real Slurm or munge on the machine. Needs root (slurmd
# starts job steps as the submitting user) and Debian's slurm-wlm and munge.
#
# The node is "localhost" with the machine's real CPUs and memory (slurmd -C).
# GPUs cannot be auto-detected on a machine without one, so gres.conf says
# AutoDetect=off and declares one GPU backed by a plain file created here:
# jobs that ask --gres=gpu:1 are scheduled one at a time, as on a one-GPU node.
# With GPUS 0 the node has none, as the CPU nodes of most clusters: a job that
# asks for a GPU cannot run there.

CLUSTER_DIR=
CLUSTER_PARTITION=
CLUSTER_PIDS=()
CLUSTER_CTLD=

cluster_log() { echo "cluster: $*" >&2; }

# cluster_missing: prints what this machine lacks to run the cluster; empty if nothing.
cluster_missing() {
    local c missing=()
    for c in munged mungekey slurmctld slurmd sbatch squeue scontrol sinfo scancel; do
        command -v "$c" >/dev/null 2>&1 || missing+=("$c")
    done
    [ "$(id -u)" -eq 0 ] || missing+=("root (slurmd runs job steps as their user)")
    echo "${missing[*]}"
}

# free_port: a TCP port nothing listens on (checked with ss).
cluster_free_port() {
    local p i
    for i in $(seq 50); do
        p=$((20000 + RANDOM % 20000))
        if ! ss -Htln "sport = :$p" 2>/dev/null | grep -q .; then
            echo "$p"
            return 0
        fi
    done
    return 1
}

# cluster_wait SECONDS DESCRIPTION COMMAND...: poll COMMAND until it succeeds;
# give up early when the daemon started last has died.
cluster_wait() {
    local limit=$1 what=$2 t=0 last=${CLUSTER_PIDS[-1]:-}
    shift 2
    until "$@" >/dev/null 2>&1; do
        if [ -n "$last" ] && ! kill -0 "$last" 2>/dev/null; then
            cluster_log "the daemon started last (pid $last) died while waiting for $what"
            return 1
        fi
        t=$((t + 1))
        if [ "$t" -gt $((limit * 5)) ]; then
            cluster_log "timed out after ${limit}s waiting for $what"
            return 1
        fi
        sleep 0.2
    done
}

cluster_dump_logs() {
    local f
    for f in "$CLUSTER_DIR"/log/*.log "$CLUSTER_DIR"/log/*.out; do
        [ -f "$f" ] || continue
        echo "---- last lines of $f" >&2
        tail -n 25 "$f" >&2
    done
}

cluster_start() {
    CLUSTER_DIR=$1
    local gpus=${2:-1}
    local d=$CLUSTER_DIR node_gres=" Gres=gpu:1"
    CLUSTER_PARTITION=smemlab
    [ "$gpus" -gt 0 ] || node_gres= CLUSTER_PARTITION=cpu
    mkdir -p "$d/etc" "$d/munge" "$d/state" "$d/spool" "$d/log" "$d/dev" || return 1
    chmod 755 "$d/munge" # clients need to reach the socket; the key itself is 0600

    # munge: a fresh key, a private socket.
    mungekey --create --keyfile="$d/munge/munge.key" 2>"$d/log/mungekey.log" || {
        cluster_log "mungekey failed: $(cat "$d/log/mungekey.log")"; return 1; }
    munged --foreground --force --key-file="$d/munge/munge.key" --socket="$d/munge/socket" \
        --pid-file="$d/munge/munged.pid" --log-file="$d/log/munged.log" \
        --seed-file="$d/munge/seed" >>"$d/log/munged.log" 2>&1 &
    CLUSTER_PIDS+=($!)
    cluster_wait 10 "munged's socket" test -S "$d/munge/socket" || { cluster_dump_logs; return 1; }

    # slurm.conf: one node with this machine's CPUs and memory, one GPU.
    local hw cpus mem ctl_port d_port
    hw=$(slurmd -C | head -n1) || { cluster_log "slurmd -C failed"; return 1; }
    hw=${hw#NodeName=* } # drop the host name: the node is called localhost
    ctl_port=$(cluster_free_port) && d_port=$(cluster_free_port) || {
        cluster_log "no free TCP port"; return 1; }
    [ "$ctl_port" != "$d_port" ] || d_port=$((ctl_port + 1))
    ln -sf /dev/null "$d/dev/nvidia0" # the GPU's device file: a character device, never opened
    cat >"$d/etc/slurm.conf" <<CONF
ClusterName=smemlabtest
SlurmctldHost=localhost
SlurmctldPort=$ctl_port
SlurmdPort=$d_port
AuthType=auth/munge
AuthInfo=socket=$d/munge/socket
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool
SlurmctldPidFile=$d/slurmctld.pid
SlurmdPidFile=$d/slurmd.pid
SlurmctldLogFile=$d/log/slurmctld.log
SlurmdLogFile=$d/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SchedulerType=sched/builtin
SchedulerParameters=sched_min_interval=0,batch_sched_delay=0
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
GresTypes=gpu
MaxArraySize=10001
NodeName=localhost $hw$node_gres State=UNKNOWN
PartitionName=$CLUSTER_PARTITION Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF
    echo "AutoDetect=off" >"$d/etc/gres.conf"
    [ -z "$node_gres" ] || echo "NodeName=localhost Name=gpu File=$d/dev/nvidia0" >>"$d/etc/gres.conf"
    export SLURM_CONF=$d/etc/slurm.conf

    slurmctld -D -i >>"$d/log/slurmctld.out" 2>&1 &
    CLUSTER_PIDS+=($!)
    CLUSTER_CTLD=$!
    cluster_wait 30 "slurmctld to answer" scontrol ping || { cluster_dump_logs; return 1; }
    slurmd -D -N localhost >>"$d/log/slurmd.out" 2>&1 &
    CLUSTER_PIDS+=($!)
    cluster_wait 30 "node localhost to be idle" cluster_node_idle || { cluster_dump_logs; return 1; }
    cluster_log "up in $d (slurmctld :$ctl_port, slurmd :$d_port, node: $hw${node_gres:- without a GPU}, partition $CLUSTER_PARTITION)"
}

cluster_node_idle() {
    sinfo -h -n localhost -o %t | grep -qx idle
}

cluster_stop() {
    [ -n "$CLUSTER_DIR" ] || return 0
    # jobs first, while the controller is there to cancel them
    if [ -n "${SLURM_CONF:-}" ] && [ -n "$CLUSTER_CTLD" ] && kill -0 "$CLUSTER_CTLD" 2>/dev/null; then
        scancel --quiet --full --partition="$CLUSTER_PARTITION" >/dev/null 2>&1
        # give running steps a moment to go before slurmd does
        local i
        for i in $(seq 25); do
            [ -z "$(squeue -h -o %i 2>/dev/null)" ] && break
            sleep 0.2
        done
    fi
    local pid i
    # slurmd, slurmctld, munged: the reverse of the order they were started in
    for ((i = ${#CLUSTER_PIDS[@]} - 1; i >= 0; i--)); do
        pid=${CLUSTER_PIDS[i]}
        kill "$pid" 2>/dev/null || continue
        for _ in $(seq 50); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        kill -9 "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
    done
    CLUSTER_PIDS=()
    CLUSTER_CTLD=
    unset SLURM_CONF
}
