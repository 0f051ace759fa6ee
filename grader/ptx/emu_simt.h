/*
 * emu_simt.h - a warp's control flow (emu_simt.c) and the block's barriers
 * (emu_barrier.c), as the interpreter loop (emu_exec.c) uses them.
 */
#ifndef SMEMLAB_EMU_SIMT_H
#define SMEMLAB_EMU_SIMT_H

#include "emu_internal.h"

/* Save the current entry and run {pc, rpc, mask, call}; -1 if the stack is full. */
int emu_simt_push(emu_warp *w, uint32_t pc, uint32_t rpc, uint32_t mask, uint32_t call);
/* Continue with the entry below that still has lanes; 0 if none is left. */
int emu_simt_pop(emu_warp *w);
/* Lanes taken go to target, the others on after pc; both meet at pc's reconvergence point. */
int emu_simt_diverge(emu_warp *w, uint32_t pc, uint32_t target, uint32_t taken);

/* The control instructions, for the lanes m that execute them (m may be 0).
   0 on, -1 the launch stopped; exit and ret: 1 when no lane of the warp is left. */
int emu_simt_branch(emu_warp *w, const ptx_instr *in, uint32_t pc, uint32_t m);
int emu_simt_brx(emu_warp *w, const ptx_instr *in, uint32_t pc, uint32_t m);
int emu_simt_call(emu_warp *w, const ptx_instr *in, uint32_t pc, uint32_t m);
int emu_simt_ret(emu_warp *w, const ptx_instr *in, uint32_t pc, uint32_t m);
int emu_simt_exit(emu_warp *w, uint32_t m);

/* Where lanes of w that are not running are (those exited are left out): `leaving`
   those that wait only to leave the kernel (at an exitish instruction), `waiting` the
   others; pc: where the first waiting ones wait, via: the branch that sent them
   there (PTX_NONE: unknown). */
typedef struct emu_lanes_at {
    uint32_t leaving, waiting;
    uint32_t pc, via;
} emu_lanes_at;
void emu_simt_whereabouts(const emu_warp *w, uint32_t lanes, emu_lanes_at *out);
/* Run a path of the warp still to run (in the current function's frame) before the
   current entry, which waits at barrier pc (parked): 1 when one was found, 0 when none is
   left. */
int emu_simt_run_another(emu_warp *w, uint32_t pc);
/* The parked entries go on past the barrier they waited at. */
void emu_simt_unpark(emu_warp *w);

/* bar.sync / bar.arrive / bar.red by lanes m (not 0): the warp may have to wait. 0 or -1. */
int emu_barrier_arrive(emu_warp *w, const ptx_instr *in, uint32_t pc, uint32_t m);
/* A warp has exited: barriers that waited for every warp may now complete. */
void emu_barrier_warp_done(emu_block *b, emu_warp *w);

#endif /* SMEMLAB_EMU_SIMT_H */
