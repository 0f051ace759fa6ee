// foreign.cu - device code the lab file did not write (test_image.c): built
// on its own into a fatbinary that lab1-injected.cu pulls in with .incbin.
__global__ void foreignKernel(int *out) { out[threadIdx.x] = 42; }
