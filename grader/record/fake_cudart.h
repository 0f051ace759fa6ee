/*
 * fake_cudart.h - how the recorder drives the fake runtime it loaded
 * (fake_cudart.c): the kernels' parameter layouts, and which call the
 * launches being made belong to. Looked up with dlsym by these names.
 */
#ifndef SMEMLAB_FAKE_CUDART_H
#define SMEMLAB_FAKE_CUDART_H

#include "record.h"

#define FAKE_MAX_PARAMS 32

typedef struct fake_layout {
    char name[REC_NAME];
    int n_params;
    struct { unsigned offset, size; } params[FAKE_MAX_PARAMS];
} fake_layout;

typedef void (*fake_setup_fn)(const fake_layout *layouts, int n);
typedef void (*fake_begin_fn)(rec_call *rec);
typedef void (*fake_end_fn)(void);

#endif
