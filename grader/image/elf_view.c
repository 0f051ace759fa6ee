/* elf_view.c - checked reads of an ELF64 file in memory; see elf_view.h. */
#include "elf_view.h"

#include <string.h>

int elf_open(elf_view *v, const unsigned char *data, size_t size)
{
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)data;
    memset(v, 0, sizeof *v);
    if (size < sizeof *eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
        eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_ident[EI_DATA] != ELFDATA2LSB ||
        eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shoff % 8 != 0 ||
        !elf_in_bounds(size, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr)) ||
        eh->e_shstrndx >= eh->e_shnum)
        return -1;
    v->data = data;
    v->size = size;
    v->sh = (const Elf64_Shdr *)(data + eh->e_shoff);
    v->n_sh = eh->e_shnum;
    v->shstr = &v->sh[eh->e_shstrndx];
    if (v->shstr->sh_type == SHT_NOBITS || !elf_in_bounds(size, v->shstr->sh_offset, v->shstr->sh_size))
        return -1;
    return 0;
}

const unsigned char *elf_section(const elf_view *v, const Elf64_Shdr *s, size_t *len)
{
    if (s->sh_type == SHT_NOBITS || !elf_in_bounds(v->size, s->sh_offset, s->sh_size))
        return NULL;
    *len = s->sh_size;
    return v->data + s->sh_offset;
}

const char *elf_string(const elf_view *v, const Elf64_Shdr *s, uint64_t off)
{
    size_t len;
    const unsigned char *str = elf_section(v, s, &len);
    if (!str || off >= len || !memchr(str + off, '\0', len - off))
        return NULL;
    return (const char *)str + off;
}

const char *elf_section_name(const elf_view *v, const Elf64_Shdr *s)
{
    return elf_string(v, v->shstr, s->sh_name);
}

const Elf64_Shdr *elf_find(const elf_view *v, const char *name)
{
    for (unsigned i = 0; i < v->n_sh; i++) {
        const char *n = elf_section_name(v, &v->sh[i]);
        if (n && strcmp(n, name) == 0)
            return &v->sh[i];
    }
    return NULL;
}
