/*
 * bare.c - what running a tile lab's kernels costs with no grader around them
 * (make bench-loops): load the library, run each launcher given once on a
 * 1024-int buffer, synchronise, exit. `make grade` of labs 1-4 is held
 * against this program's wall time.
 *
 *   bare LIB.so launch_setRowReadRow [launch_... ...]
 */
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: bare LIB.so LAUNCHER...\n");
        return 2;
    }
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "bare: %s\n", dlerror());
        return 2;
    }
    int *out = NULL;
    if (cudaMalloc((void **)&out, 1 << 20) != cudaSuccess) {
        fprintf(stderr, "bare: no GPU\n");
        return 3;
    }
    for (int i = 2; i < argc; i++) {
        void (*launch)(int *) = (void (*)(int *))dlsym(lib, argv[i]);
        if (!launch) {
            fprintf(stderr, "bare: %s has no %s\n", argv[1], argv[i]);
            return 2;
        }
        launch(out);
    }
    cudaError_t err = cudaDeviceSynchronize();
    if (err != cudaSuccess) {
        fprintf(stderr, "bare: %s\n", cudaGetErrorString(err));
        return 1;
    }
    return 0;
}
