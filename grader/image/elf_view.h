/*
 * elf_view.h - an ELF64 file held in memory, every offset checked before it
 * is used: the lab library and its cubins (lab_image.c) and a cubin's line
 * table (trace/lineinfo.c) are read through it, and all come from students.
 */
#ifndef SMEMLAB_ELF_VIEW_H
#define SMEMLAB_ELF_VIEW_H

#include <elf.h>
#include <stddef.h>
#include <stdint.h>

typedef struct elf_view {
    const unsigned char *data;
    size_t size;
    const Elf64_Shdr *sh;
    unsigned n_sh;
    const Elf64_Shdr *shstr;
} elf_view;

/* Whether len bytes at off lie within size bytes (no overflow). */
static inline int elf_in_bounds(size_t size, uint64_t off, uint64_t len)
{
    return off <= size && len <= size - off;
}

/* A 64-bit little-endian ELF with its section headers in the file: 0, else -1. */
int elf_open(elf_view *v, const unsigned char *data, size_t size);

/* A section's bytes, or NULL when it has none in the file or lies outside it. */
const unsigned char *elf_section(const elf_view *v, const Elf64_Shdr *s, size_t *len);

/* A NUL-terminated string at off in string section s, or NULL. */
const char *elf_string(const elf_view *v, const Elf64_Shdr *s, uint64_t off);

/* A section's name, or NULL. */
const char *elf_section_name(const elf_view *v, const Elf64_Shdr *s);

/* The first section called name, or NULL. */
const Elf64_Shdr *elf_find(const elf_view *v, const char *name);

#endif
