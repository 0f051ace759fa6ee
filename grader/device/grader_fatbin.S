/* The grader's own kernels (grader_kernels.cu), compiled by nvcc --fatbin and
 * embedded here; GRADER_FATBIN is the path of that fatbin. */
    .section .rodata
    .balign 16
    .globl smemlab_grader_fatbin
smemlab_grader_fatbin:
    .incbin GRADER_FATBIN
    .globl smemlab_grader_fatbin_end
smemlab_grader_fatbin_end:
    .byte 0
    .section .note.GNU-stack,"",@progbits
