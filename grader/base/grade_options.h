/*
 * grade_options.h - how to grade: the options of one run of the grader, as
 * the command line (cli/) sets them. Every stage reads them: the recorder's
 * user and limits (record/), the worker's device and meter (grade/), the
 * problems' repeats and seed (problems/).
 */
#ifndef SMEMLAB_GRADE_OPTIONS_H
#define SMEMLAB_GRADE_OPTIONS_H

/* --timeout's default: seconds a launch may run (the emulator's instruction budget,
   measure/emulator/emu_device.h, is set for it and follows another limit). */
#define GRADE_DEFAULT_TIMEOUT_S 10.0

typedef struct grade_options {
    const char *lib_path;
    int device;
    int repeats;          /* correctness runs per kernel */
    int use_counters;     /* 0: --no-counters */
    int measure;          /* measure_mode: --measure auto|counters|trace */
    double timeout_s;     /* per launch */
    unsigned long long seed;
    const char *run_as;   /* --run-as: the user the recorder runs as (when root) */
    const char *recorder; /* the recorder program; NULL: next to the grader */
    double kernel_budget_s; /* a worker's whole time for one kernel; 0: kernel_budget_s() */
    double gpu_wait_s;    /* how long to wait for another grader's GPU; 0: 30 minutes */
    int status_fd;        /* --status-fd: "gpu\n" written when the GPU is held; 0: none */
    const char *meter_socket; /* --meter-socket: measure through this meter server */
    const char *only_kernel;  /* --kernel: grade this kernel of the lab alone (NULL: all) */
    const char *gpu;          /* --gpu: the GPU the emulator grades as (measure/emulator/
                                 emu_gpu.h: "kepler"); NULL: the GPU at hand */
} grade_options;

#endif /* SMEMLAB_GRADE_OPTIONS_H */
