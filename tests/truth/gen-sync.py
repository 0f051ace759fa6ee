#!/usr/bin/env python3
"""gen-sync.py OUT_DIR [--expected FILE] - the synchronisation corpus: kernels
that synchronise right and wrong, for holding the emulator to what NVIDIA's
checkers say (docs/emulator.md#sync, make check-truth and check-truth-gpu).

Classes: block-wide barriers under uniform and divergent conditions, after
early returns (with and without work on the way out), in loops whose pass
counts are uniform, per warp or per lane, in a device function that stays a
call, __syncthreads_count/and under a branch, both sides of a branch, named
barriers with a count; full and partial member masks on each warp primitive
(shfl, vote, match, redux, __syncwarp), named and absent lanes, a lane
outside its own mask, masks made by __activemask and __ballot_sync; races
inside a warp with and without __syncwarp, between warps, only in the last
block, only in blocks >= 16, only at a matrix's edge; global reads and writes
just past and far past an allocation (outside every allocation).

Writes OUT_DIR/sync.cu (every kernel, extern "C" NAME(const int *in, int
*out, int n), and a host main: `sync-run NAME` launches NAME once with the
grid, block, n and buffers of its row, for compute-sanitizer), OUT_DIR/sync.tsv
(name gx gy bx by n ints class guide: what each kernel is given, and the CUDA
Programming Guide's verdict), and with --expected FILE the verdicts expected
of synccheck, racecheck and memcheck before anyone measured them (the facts of
issue 37 and the Guide's rules; tests/truth/sync-verdicts.tsv began as that).
"""
import os, sys

# name, (gx, gy), (bx, by), n, ints (buffer size; 0: every thread one), class, body,
# guide (the Programming Guide's verdict: barrier, mask, race, bounds, -),
# expected (synccheck, racecheck, memcheck) before measurement.
K = []


def k(name, grid, block, n, ints, cls, body, guide, sc="-", rc="-", mc="-"):
    K.append(dict(name=name, grid=grid, block=block, n=n, ints=ints, cls=cls, body=body,
                  guide=guide, sc=sc, rc=rc, mc=mc))


ONE, B128 = (1, 1), (128, 1)
TILE = "__shared__ int s[1024];\n    int t = threadIdx.x;\n"

# --- block-wide barriers ------------------------------------------------------------
k("bar_all", ONE, B128, 0, 0, "barrier",
  TILE + "s[t] = in[t];\n    __syncthreads();\n    out[t] = s[127 - t];", "-")
k("bar_uniform_true", ONE, B128, 1, 0, "barrier",
  TILE + "s[t] = in[t];\n    if (n) __syncthreads();\n    out[t] = s[127 - t];", "-")
k("bar_uniform_false", ONE, B128, 0, 0, "barrier",
  TILE + "s[t] = in[t];\n    if (n) __syncthreads();\n    out[t] = n ? s[127 - t] : in[t];",
  "-")
k("bar_uniform_blockidx", (4, 1), B128, 0, 512, "barrier",
  TILE + "int i = blockIdx.x * 128 + t;\n    s[t] = in[i];\n"
  "    if (blockIdx.x % 2) __syncthreads();\n    out[i] = blockIdx.x % 2 ? s[127 - t] : s[t];",
  "-")
k("bar_uniform_loop", ONE, B128, 4, 0, "barrier",
  TILE + "int a = in[t];\n    for (int p = 0; p < n; p++) {\n        s[t] = a;\n"
  "        __syncthreads();\n        a += s[127 - t];\n        __syncthreads();\n    }\n"
  "    out[t] = a;", "-")
k("bar_early_return_warps", ONE, B128, 64, 0, "barrier",
  TILE + "if (t >= n) return;\n    s[t] = in[t];\n    __syncthreads();\n"
  "    out[t] = s[n - 1 - t];", "-")
k("bar_early_return_lanes", ONE, B128, 40, 0, "barrier",
  TILE + "if (t >= n) return;\n    s[t] = in[t];\n    __syncthreads();\n"
  "    out[t] = s[n - 1 - t];", "-")
k("bar_early_return_2d", ONE, (32, 4), 20, 0, "barrier",
  TILE + "int x = threadIdx.x, y = threadIdx.y, i = y * 32 + x;\n"
  "    if (x >= n) return;\n    s[i] = in[i];\n    __syncthreads();\n"
  "    out[i] = s[(3 - y) * 32 + x];", "-")
k("bar_return_work_warps", ONE, B128, 64, 0, "barrier",
  TILE + "if (t >= n) { out[t] = -1; return; }\n    s[t] = in[t];\n    __syncthreads();\n"
  "    out[t] = s[n - 1 - t];", "-")
# an early return with a store on the way out (nvcc may merge that store with the one
# after the barrier, so that the returning lanes run it after the others' barrier)
k("bar_return_work_lanes", ONE, B128, 40, 0, "barrier",
  TILE + "if (t >= n) { out[t] = -1; return; }\n    s[t] = in[t];\n    __syncthreads();\n"
  "    out[t] = s[n - 1 - t];", "-")
k("bar_loop_return", ONE, (64, 1), 61, 0, "barrier",
  TILE + "int a = 0;\n    for (int p = 0; p < 4; p++) {\n        if (t >= n - 8 * p) return;\n"
  "        s[t] = a + p;\n        __syncthreads();\n        a += s[(t + 1) % (n - 8 * p)];\n"
  "        __syncthreads();\n        out[t] = a;\n    }", "-")
k("bar_half_block", ONE, B128, 0, 0, "barrier",
  TILE + "s[t] = in[t];\n    if (t < 64) __syncthreads();\n    out[t] = s[127 - t];",
  "barrier", sc="barrier", rc="error")
k("bar_half_block_1024", ONE, (32, 32), 0, 1024, "barrier",
  TILE + "int i = threadIdx.y * 32 + threadIdx.x;\n    s[i] = in[i];\n"
  "    if (threadIdx.y < 16) __syncthreads();\n    out[i] = s[threadIdx.x * 32 + threadIdx.y];",
  "barrier", sc="barrier", rc="error")
k("bar_half_warp", ONE, B128, 0, 0, "barrier",
  TILE + "s[t] = in[t];\n    if (t % 32 < 16) __syncthreads();\n    out[t] = s[127 - t];",
  "barrier", sc="barrier", rc="error")
k("bar_odd_lanes", ONE, (64, 1), 0, 0, "barrier",
  TILE + "s[t] = in[t];\n    if (t % 2) __syncthreads();\n    out[t] = s[63 - t];",
  "barrier", sc="barrier", rc="error")
k("bar_one_lane", ONE, (64, 1), 0, 0, "barrier",
  TILE + "s[t] = in[t];\n    if (t == 5) __syncthreads();\n    out[t] = s[63 - t];",
  "barrier", sc="barrier", rc="error")
# the threads that skip only leave: exited threads do not count (sm_70+)
# Threads that skip a barrier and then only leave (stores to global memory, no read of
# what the barrier orders, no later barrier) count as exited: sm_70 and later wait at a
# barrier for non-exited threads only, and synccheck and racecheck say nothing of these
# four (measured on an H200, driver 580): legal, guide "-".
k("bar_skip_then_leave", ONE, B128, 0, 0, "barrier",
  TILE + "if (t < 64) {\n        s[t] = in[t];\n        __syncthreads();\n"
  "        out[t] = s[63 - t];\n    }", "-")
k("bar_if_else_warps", ONE, B128, 0, 0, "barrier",
  TILE + "s[t] = in[t];\n    if (t < 64) {\n        __syncthreads();\n"
  "        out[t] = s[127 - t];\n    } else {\n        __syncthreads();\n"
  "        out[t] = -s[127 - t];\n    }", "barrier", sc="barrier")
k("bar_if_else_lanes", ONE, (32, 1), 0, 0, "barrier",
  TILE + "s[t] = in[t];\n    if (t < 16) {\n        __syncthreads();\n"
  "        out[t] = s[31 - t];\n    } else {\n        __syncthreads();\n"
  "        out[t] = -s[31 - t];\n    }", "barrier", sc="barrier")
k("bar_loop_per_warp", ONE, B128, 0, 0, "barrier",
  TILE + "int a = 0;\n    s[t] = in[t];\n    for (int p = 0; p < t / 32; p++) {\n"
  "        __syncthreads();\n        a += s[127 - t];\n        __syncthreads();\n"
  "        s[t] = a;\n    }\n    out[t] = a + s[(t + 32) % 128];", "barrier", sc="barrier",
  rc="error")
k("bar_loop_per_lane", ONE, (32, 1), 0, 0, "barrier",
  TILE + "int a = 0;\n    s[t] = in[t];\n    for (int p = 0; p < t % 4; p++) {\n"
  "        __syncthreads();\n        a += s[31 - t];\n    }\n    out[t] = a;", "barrier",
  sc="barrier")
k("bar_loop_per_warp_leave", ONE, B128, 0, 0, "barrier",
  "int t = threadIdx.x;\n    for (int p = 0; p < t / 32; p++) {\n        out[t] = p;\n"
  "        __syncthreads();\n    }", "-")
k("bar_loop_per_warp_unrolled", ONE, (256, 1), 0, 256, "barrier",
  "int t = threadIdx.x;\n    for (int p = 0; p < t / 32; p++) {\n        out[t] = p;\n"
  "        __syncthreads();\n    }", "barrier", sc="barrier")
k("bar_loop_break_lanes", ONE, (32, 1), 0, 0, "barrier",
  TILE + "int a = in[t];\n    for (int p = 0; p < 4; p++) {\n        if (p > t % 4) break;\n"
  "        s[t] = a;\n        __syncthreads();\n        a += s[31 - t];\n    }\n    out[t] = a;",
  "barrier", sc="barrier", rc="warning")  # a lane that left read a word its mirror rewrites
k("bar_tree_in_branch", ONE, (256, 1), 0, 256, "barrier",
  TILE + "s[t] = in[t];\n    __syncthreads();\n"
  "    for (int stride = 128; stride > 0; stride >>= 1) {\n        if (t < stride) {\n"
  "            s[t] += s[t + stride];\n            __syncthreads();\n        }\n    }\n"
  "    if (t == 0) out[0] = s[0];", "barrier", sc="barrier")
k("bar_tree_right", ONE, (256, 1), 0, 256, "barrier",
  TILE + "s[t] = in[t];\n    __syncthreads();\n"
  "    for (int stride = 128; stride > 0; stride >>= 1) {\n        if (t < stride)\n"
  "            s[t] += s[t + stride];\n        __syncthreads();\n    }\n"
  "    if (t == 0) out[0] = s[0];", "-")
k("bar_guard_x_edge", ONE, (32, 4), 20, 0, "barrier",
  TILE + "int x = threadIdx.x, y = threadIdx.y, i = y * 32 + x;\n    if (x < n) {\n"
  "        s[i] = in[i];\n        __syncthreads();\n    }\n    out[i] = s[x * 4 % 128 + y];",
  "barrier", sc="barrier", rc="error")
k("bar_guard_y_edge", ONE, (32, 4), 2, 0, "barrier",
  TILE + "int x = threadIdx.x, y = threadIdx.y, i = y * 32 + x;\n    if (y < n) {\n"
  "        s[i] = in[i];\n        __syncthreads();\n    }\n    out[i] = s[x * 4 % 128 + y];",
  "barrier", sc="barrier", rc="error")
k("bar_guard_whole_body", ONE, (32, 4), 20, 0, "barrier",
  TILE + "int x = threadIdx.x, y = threadIdx.y, i = y * 32 + x;\n    if (x < n) {\n"
  "        s[i] = in[i];\n        __syncthreads();\n        out[i] = s[(3 - y) * 32 + x];\n"
  "    }", "-")
k("bar_count_uniform", ONE, B128, 0, 0, "barrier",
  "int t = threadIdx.x;\n    out[t] = __syncthreads_count(in[t] > 0);", "-")
k("bar_count_in_branch_lanes", ONE, (32, 1), 0, 0, "barrier",
  "int t = threadIdx.x, c = 0;\n    if (t < 16) c = __syncthreads_count(in[t] > 0);\n"
  "    out[t] = c;", "barrier", sc="barrier")
k("bar_and_in_branch_warps", ONE, B128, 0, 0, "barrier",
  "int t = threadIdx.x, c = 0;\n    if (t < 64) c = __syncthreads_and(in[t] > 0);\n"
  "    out[t] = c;", "-")
k("bar_named_count", ONE, (64, 1), 0, 0, "barrier",
  TILE + "s[t] = in[t];\n    if (t < 32) asm volatile(\"bar.sync 1, 32;\" ::: \"memory\");\n"
  "    else asm volatile(\"bar.sync 2, 32;\" ::: \"memory\");\n    out[t] = s[t ^ 1];", "-")
k("bar_producer_consumer", ONE, (64, 1), 0, 0, "barrier",
  TILE + "if (t >= 32) {\n        s[t - 32] = in[t];\n"
  "        asm volatile(\"bar.arrive 1, 64;\" ::: \"memory\");\n    } else {\n"
  "        asm volatile(\"bar.sync 1, 64;\" ::: \"memory\");\n        out[t] = s[31 - t];\n    }",
  "-")

# in a device function that stays a call
FN = ("__device__ __noinline__ int sync_exchange(int *s, int t, int v, int last)\n"
      "{\n    s[t] = v;\n    __syncthreads();\n    return s[last - t];\n}\n"
      "__device__ __noinline__ int sync_exchange_return(int *s, int t, int v, int keep)\n"
      "{\n    if (t >= keep) return v;\n    s[t] = v;\n    __syncthreads();\n"
      "    return s[keep - 1 - t];\n}\n")
k("bar_function_all", ONE, B128, 0, 0, "barrier",
  TILE + "out[t] = sync_exchange(s, t, in[t], 127);", "-")
k("bar_function_half_block", ONE, B128, 0, 0, "barrier",
  TILE + "int v = in[t];\n    if (t < 64) v = sync_exchange(s, t, v, 63);\n"
  "    out[t] = v + s[(t + 1) % 128];", "barrier", sc="barrier", rc="error")
k("bar_function_half_warp", ONE, (32, 1), 0, 0, "barrier",
  TILE + "int v = in[t];\n    if (t < 16) v = sync_exchange(s, t, v, 15);\n    out[t] = v;",
  "barrier", sc="barrier")
k("bar_function_returns_early", ONE, (32, 1), 0, 0, "barrier",
  TILE + "out[t] = sync_exchange_return(s, t, in[t], 16) + s[t % 16];", "barrier",
  sc="barrier", rc="warning")

# --- warp primitives ------------------------------------------------------------------
W = "int t = threadIdx.x, v = in[t];\n"
k("shfl_full_all", ONE, (64, 1), 0, 0, "mask",
  W + "for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);\n"
  "    out[t] = v;", "-")
k("shfl_full_8_lanes", ONE, (32, 1), 0, 0, "mask",
  W + "if (t < 8)\n        for (int o = 4; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);\n"
  "    out[t] = v;", "mask")
k("shfl_full_8_lanes_16", ONE, (32, 1), 0, 0, "mask",
  W + "if (t < 8)\n        for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);\n"
  "    out[t] = v;", "mask")
k("shfl_mask_8_lanes", ONE, (32, 1), 0, 0, "mask",
  W + "if (t < 8)\n        for (int o = 4; o > 0; o /= 2) v += __shfl_xor_sync(0xffu, v, o);\n"
  "    out[t] = v;", "-")
k("shfl_mask_reads_outside", ONE, (32, 1), 0, 0, "mask",
  W + "if (t < 8) v = __shfl_down_sync(0xffu, v, 4);\n    out[t] = v;", "mask")
k("shfl_after_return_lanes", ONE, (32, 1), 20, 0, "mask",
  "int t = threadIdx.x;\n    if (t >= n) return;\n    int v = in[t];\n"
  "    for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);\n"
  "    out[t] = v;", "mask")
k("shfl_after_return_warps", ONE, (64, 1), 32, 0, "mask",
  "int t = threadIdx.x;\n    if (t >= n) return;\n    int v = in[t];\n"
  "    for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);\n"
  "    out[t] = v;", "-")
k("shfl_after_return_down", ONE, (32, 1), 24, 0, "mask",
  "int t = threadIdx.x;\n    if (t >= n) return;\n    int v = in[t];\n"
  "    for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffffu, v, o);\n"
  "    if (t == 0) out[0] = v;", "mask")
k("shfl_block_of_16", ONE, (16, 1), 0, 32, "mask",
  W + "for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);\n"
  "    out[t] = v;", "mask")
k("shfl_block_of_16_width16", ONE, (16, 1), 0, 32, "mask",
  W + "for (int o = 8; o > 0; o /= 2) v += __shfl_xor_sync(0xffffu, v, o, 16);\n"
  "    out[t] = v;", "-")
k("shfl_width16_full", ONE, (32, 1), 0, 0, "mask",
  W + "for (int o = 8; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o, 16);\n"
  "    out[t] = v;", "-")
k("shfl_idx_branch", ONE, (32, 1), 0, 0, "mask",
  W + "if (t < 16) v = __shfl_sync(0xffffffffu, v, 0);\n    out[t] = v;", "mask")
k("shfl_up_branch_mask", ONE, (32, 1), 0, 0, "mask",
  W + "if (t < 16) v = __shfl_up_sync(0xffffu, v, 1);\n    out[t] = v;", "-")
k("shfl_activemask", ONE, (32, 1), 0, 0, "mask",
  W + "if (t % 3 == 0) {\n        unsigned m = __activemask();\n"
  "        v = __shfl_sync(m, v, __ffs(m) - 1);\n    }\n    out[t] = v;", "-")
k("shfl_ballot_mask", ONE, (32, 1), 0, 0, "mask",
  W + "unsigned m = __ballot_sync(0xffffffffu, t < 12);\n    if (t < 12)\n"
  "        for (int o = 1; o < 12; o *= 2) v += __shfl_sync(m, v, (t + o) % 12);\n"
  "    out[t] = v;", "-")
k("vote_ballot_all", ONE, (32, 1), 0, 0, "mask",
  "int t = threadIdx.x;\n    out[t] = (int)__ballot_sync(0xffffffffu, in[t] > 0);", "-")
k("vote_ballot_branch", ONE, (32, 1), 0, 0, "mask",
  "int t = threadIdx.x, r = 0;\n    if (t < 16) r = (int)__ballot_sync(0xffffffffu, in[t] > 0);\n"
  "    out[t] = r;", "mask")
k("vote_ballot_branch_mask", ONE, (32, 1), 0, 0, "mask",
  "int t = threadIdx.x, r = 0;\n    if (t < 16) r = (int)__ballot_sync(0xffffu, in[t] > 0);\n"
  "    out[t] = r;", "-")
k("vote_any_after_return", ONE, (32, 1), 20, 0, "mask",
  "int t = threadIdx.x;\n    if (t >= n) return;\n"
  "    out[t] = __any_sync(0xffffffffu, in[t] > 0);", "-")
k("vote_all_without_self", ONE, (32, 1), 0, 0, "mask",
  "int t = threadIdx.x;\n    out[t] = __all_sync(0x0000ffffu, in[t] > -1000000);", "mask",
  sc="invalid-args")
k("match_any_all", ONE, (32, 1), 0, 0, "mask",
  "int t = threadIdx.x;\n    out[t] = (int)__match_any_sync(0xffffffffu, in[t] % 4);", "-")
k("match_any_branch", ONE, (32, 1), 0, 0, "mask",
  "int t = threadIdx.x, r = 0;\n    if (t < 8) r = (int)__match_any_sync(0xffffffffu, in[t] % 4);\n"
  "    out[t] = r;", "mask")
k("match_all_branch_mask", ONE, (32, 1), 0, 0, "mask",
  "int t = threadIdx.x, r = 0, p;\n"
  "    if (t < 8) r = (int)__match_all_sync(0xffu, in[t] % 4, &p);\n    out[t] = r + p;", "-")
k("redux_add_all", ONE, (32, 1), 0, 0, "mask",
  "int t = threadIdx.x;\n    out[t] = (int)__reduce_add_sync(0xffffffffu, (unsigned)in[t]);", "-")
k("redux_add_branch", ONE, (32, 1), 0, 0, "mask",
  "int t = threadIdx.x, r = 0;\n"
  "    if (t < 8) r = (int)__reduce_add_sync(0xffffffffu, (unsigned)in[t]);\n    out[t] = r;",
  "mask")
k("redux_min_branch_mask", ONE, (32, 1), 0, 0, "mask",
  "int t = threadIdx.x, r = 0;\n    if (t < 8) r = __reduce_min_sync(0xffu, in[t]);\n"
  "    out[t] = r;", "-")
k("syncwarp_all", ONE, (64, 1), 0, 0, "mask",
  TILE + "s[t] = in[t];\n    __syncwarp();\n    out[t] = s[t ^ 1];", "-")
k("syncwarp_full_half", ONE, (32, 1), 0, 0, "mask",
  TILE + "int v = -1;\n    s[t] = in[t];\n    if (t < 16) {\n        __syncwarp();\n"
  "        v = s[t ^ 1];\n    }\n    out[t] = v;", "mask")
k("syncwarp_mask_half", ONE, (32, 1), 0, 0, "mask",
  TILE + "int v = -1;\n    s[t] = in[t];\n    if (t < 16) {\n        __syncwarp(0xffffu);\n"
  "        v = s[t ^ 1];\n    }\n    out[t] = v;", "-")
k("syncwarp_without_self", ONE, (32, 1), 0, 0, "mask",
  TILE + "s[t] = in[t];\n    __syncwarp(0xfffffffeu);\n    out[t] = s[t ^ 1];", "mask",
  sc="invalid-args")

# --- races ------------------------------------------------------------------------------
k("race_syncwarp_missing", ONE, (32, 1), 0, 0, "race",
  TILE + "s[t] = in[t];\n    out[t] = s[31 - t];", "race", rc="warning")
k("race_syncwarp_fixed", ONE, (32, 1), 0, 0, "race",
  TILE + "s[t] = in[t];\n    __syncwarp();\n    out[t] = s[31 - t];", "-")
k("race_syncwarp_partial", ONE, (32, 1), 0, 0, "race",
  TILE + "s[t] = in[t];\n    if (t < 16) __syncwarp(0xffffu);\n    out[t] = s[(t + 16) % 32];",
  "race", rc="warning")
k("race_between_warps", ONE, B128, 0, 0, "race",
  TILE + "s[t] = in[t];\n    out[t] = s[127 - t];", "race", rc="error")
k("race_last_block", (8, 1), B128, 0, 1024, "race",
  TILE + "int i = blockIdx.x * 128 + t;\n    s[t] = in[i];\n"
  "    if (blockIdx.x != gridDim.x - 1) __syncthreads();\n    out[i] = s[127 - t];",
  "race", rc="error")
k("race_blocks_from_16", (20, 1), B128, 0, 2560, "race",
  TILE + "int i = blockIdx.x * 128 + t;\n    s[t] = in[i];\n"
  "    if (blockIdx.x < 16) __syncthreads();\n    out[i] = s[127 - t];", "race", rc="error")
k("race_matrix_edge", (3, 3), (32, 4), 0, 1152, "race",
  TILE + "int i = (blockIdx.y * 3 + blockIdx.x) * 128 + threadIdx.y * 32 + threadIdx.x;\n"
  "    int j = threadIdx.y * 32 + threadIdx.x;\n    s[j] = in[i];\n"
  "    if (blockIdx.x < 2 && blockIdx.y < 2) __syncthreads();\n    out[i] = s[127 - j];",
  "race", rc="error")
# cooperative groups' tiles of more than one warp: tile.sync() is a barrier of the tile's
# warps alone (release and acquire on a word of the reserved shared memory), which orders
# them and no others
CG = "    cg::thread_block_tile<64> tile = cg::tiled_partition<64>(cg::this_thread_block());\n    "
k("race_tile_orders_its_warps", ONE, B128, 0, 0, "race",
  TILE + CG + "s[t] = in[t];\n    tile.sync();\n    out[t] = s[t ^ 32];", "-")
k("race_tile_other_tile", ONE, B128, 0, 0, "race",
  TILE + CG + "s[t] = in[t];\n    tile.sync();\n    out[t] = s[t ^ 64];", "race", rc="error")
k("race_tile_levels", ONE, (256, 1), 0, 0, "race",
  TILE + "    cg::thread_block_tile<128> tile = cg::tiled_partition<128>(cg::this_thread_block());\n"
  "    int v = in[t];\n    for (int d = 64; d > 0; d >>= 1) {\n        s[t] = v;\n"
  "        tile.sync();\n        v += s[t ^ d];\n        tile.sync();\n    }\n    out[t] = v;",
  "-")
k("race_tile_second_missing", ONE, (256, 1), 0, 0, "race",
  TILE + "    cg::thread_block_tile<128> tile = cg::tiled_partition<128>(cg::this_thread_block());\n"
  "    int v = in[t];\n    for (int d = 64; d > 0; d >>= 1) {\n        s[t] = v;\n"
  "        tile.sync();\n        v += s[t ^ d];\n    }\n    out[t] = v;", "race", rc="error")
k("race_free_tiles", (4, 1), B128, 0, 512, "race",
  TILE + "int i = blockIdx.x * 128 + t;\n    s[t] = in[i];\n    __syncthreads();\n"
  "    out[i] = s[127 - t];", "-")

# --- global bounds ---------------------------------------------------------------------
k("oob_read_just_past", ONE, (32, 1), 32, 32, "bounds",
  "int t = threadIdx.x;\n    out[t] = in[t + (t == 31)];", "bounds", mc="error")
k("oob_write_just_past", ONE, (32, 1), 32, 32, "bounds",
  "int t = threadIdx.x;\n    out[t + (t == 31)] = in[t];", "bounds", mc="error")
k("oob_read_far_past", ONE, (32, 1), 32, 32, "bounds",
  "int t = threadIdx.x;\n    out[t] = in[t + (t == 31 ? (1 << 24) : 0)];", "bounds", mc="error")
k("oob_write_far_past", ONE, (32, 1), 32, 32, "bounds",
  "int t = threadIdx.x;\n    out[t + (t == 31 ? (1 << 24) : 0)] = in[t];", "bounds", mc="error")
k("oob_guarded", ONE, (64, 1), 40, 40, "bounds",
  "int t = threadIdx.x;\n    if (t < n) out[t] = in[t];", "-")

HOST = r"""
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

typedef void (*kernel_fn)(const int *, int *, int);
struct row { const char *name; kernel_fn fn; int gx, gy, bx, by, n, ints; };
static const row rows[] = {
%s
};

/* sync-run NAME: launch NAME once, as its row says, on buffers of exactly its ints. */
int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: sync-run KERNEL\n");
        return 2;
    }
    for (const row &r : rows) {
        if (strcmp(r.name, argv[1]) != 0)
            continue;
        int threads = r.gx * r.gy * r.bx * r.by, ints = r.ints ? r.ints : threads;
        int *host = (int *)malloc(ints * sizeof(int)), *in = 0, *out = 0;
        for (int i = 0; i < ints; i++)
            host[i] = (int)((unsigned)i * 2654435761u >> 9) - (1 << 22);
        if (cudaMalloc(&in, ints * sizeof(int)) != cudaSuccess ||
            cudaMalloc(&out, ints * sizeof(int)) != cudaSuccess) {
            fprintf(stderr, "sync-run: no device memory: is there a GPU?\n");
            return 3;
        }
        cudaMemcpy(in, host, ints * sizeof(int), cudaMemcpyHostToDevice);
        cudaMemset(out, 0, ints * sizeof(int));
        r.fn<<<dim3(r.gx, r.gy), dim3(r.bx, r.by)>>>(in, out, r.n);
        cudaError_t err = cudaDeviceSynchronize();
        printf("%%s: %%s\n", r.name, cudaGetErrorString(err));
        return err == cudaSuccess ? 0 : 1;
    }
    fprintf(stderr, "sync-run: no kernel %%s\n", argv[1]);
    return 2;
}
"""


def main():
    args = sys.argv[1:]
    expected = None
    if "--expected" in args:
        i = args.index("--expected")
        expected = args[i + 1]
        del args[i:i + 2]
    if len(args) != 1:
        sys.exit("usage: gen-sync.py OUT_DIR [--expected FILE]")
    out = args[0]
    os.makedirs(out, exist_ok=True)
    names = [r["name"] for r in K]
    assert len(set(names)) == len(names), "a kernel name twice"
    with open(os.path.join(out, "sync.cu"), "w") as f:
        f.write("/* sync.cu - the synchronisation corpus (generated by tests/truth/gen-sync.py) */\n")
        f.write("#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n")
        f.write(FN)
        for r in K:
            f.write('\nextern "C" __global__ void %s(const int *in, int *out, int n)\n{\n    %s\n}\n'
                    % (r["name"], r["body"]))
        f.write(HOST % "\n".join('    {"%s", %s, %d, %d, %d, %d, %d, %d},' % (
            r["name"], r["name"], r["grid"][0], r["grid"][1], r["block"][0], r["block"][1],
            r["n"], r["ints"]) for r in K))
    with open(os.path.join(out, "sync.tsv"), "w") as f:
        f.write("name\tgx\tgy\tbx\tby\tn\tints\tclass\tguide\n")
        for r in K:
            f.write("%s\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t%s\n" % (
                r["name"], r["grid"][0], r["grid"][1], r["block"][0], r["block"][1], r["n"],
                r["ints"], r["cls"], r["guide"]))
    if expected:
        with open(expected, "w") as f:
            f.write("# expected, not yet measured: what synccheck, racecheck and memcheck are "
                    "expected to report\n# for each kernel of tests/truth/gen-sync.py, from the "
                    "CUDA Programming Guide's rules\n# and the facts of issue 37; make "
                    "check-truth-gpu measures them and writes build/truth/sync-verdicts.tsv,\n"
                    "# which replaces this file. synccheck: barrier (\"Barrier error detected. "
                    "Divergent thread(s)\"),\n# invalid-args (\"Invalid arguments\"), -; "
                    "racecheck: error, warning (its hazards' severity), -;\n# memcheck: error, -; "
                    "guide: the Programming Guide's verdict (barrier, mask, race, bounds, -).\n")
            f.write("name\tsynccheck\tracecheck\tmemcheck\tguide\n")
            for r in K:
                f.write("%s\t%s\t%s\t%s\t%s\n" % (r["name"], r["sc"], r["rc"], r["mc"], r["guide"]))
    print("gen-sync: %d kernels" % len(K))


if __name__ == "__main__":
    main()
