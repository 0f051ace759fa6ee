// lineinfo.c - parsing `nvdisasm --print-line-info` output; see lineinfo.h.
//
// The format, as NVIDIA's "CUDA Binary Utilities" documents nvdisasm
// (https://docs.nvidia.com/cuda/cuda-binary-utilities/index.html, section
// "nvdisasm", option --print-line-info / -g: "Annotate disassembly with source
// line information obtained from .debug_line section, if present.") and as
// published disassemblies show it:
//
//   .text._Z13setRowReadColPi:
//           //## File "/home/u/smemlab/labs/lab1-square/lab1.cu", line 41
//           /*0000*/                   MOV R1, c[0x0][0x28] ;
//           //## File "/usr/local/cuda/include/x.h", line 10 inlined at "/home/u/lab1.cu", line 41
//           //## File "/home/u/lab1.cu", line 41
//           /*0010*/                   STS [R2], R3 ;
//
// A `.text.NAME:` label opens a function (offsets restart at 0). A block of
// consecutive `//## File` comments applies to the instructions after it, up
// to the next block; its first comment is the innermost frame, and an
// `inlined at` clause names the call site. An instruction line starts with
// its byte offset in a comment, /*HEX*/; encoding comments (/* 0x... */)
// have a space after the opening and are not instructions.
#define _POSIX_C_SOURCE 200809L
#include "lineinfo.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int intern(char ***list, int *n, const char *s, size_t len)
{
    for (int i = 0; i < *n; i++)
        if (strlen((*list)[i]) == len && strncmp((*list)[i], s, len) == 0)
            return i;
    char **nl = realloc(*list, (size_t)(*n + 1) * sizeof *nl);
    if (!nl)
        return -1;
    *list = nl;
    if (!(nl[*n] = strndup(s, len)))
        return -1;
    return (*n)++;
}

/* One more entry in t (cap: the room t->entries has); 0, or -1 out of memory. */
static int append_entry(line_table *t, size_t *cap, line_entry e)
{
    if (t->n_entries == *cap) {
        size_t ncap = *cap ? *cap * 2 : 256;
        line_entry *ne = realloc(t->entries, ncap * sizeof *ne);
        if (!ne)
            return -1;
        t->entries = ne;
        *cap = ncap;
    }
    t->entries[t->n_entries++] = e;
    return 0;
}

/* `"PATH", line N` at *p; advances past it. Returns 0 or -1. */
static int file_line(line_table *t, const char **p, const char **file, int *line)
{
    const char *s = *p, *q;
    while (*s == ' ' || *s == '\t')
        s++;
    if (*s != '"' || !(q = strchr(s + 1, '"')))
        return -1;
    int f = intern(&t->files, &t->n_files, s + 1, (size_t)(q - s - 1));
    if (f < 0)
        return -1;
    char *end;
    q++;
    if (strncmp(q, ", line ", 7) != 0)
        return -1;
    long n = strtol(q + 7, &end, 10);
    if (end == q + 7 || n < 0 || n > 10000000)
        return -1;
    *file = t->files[f];
    *line = (int)n;
    *p = end;
    return 0;
}

int lineinfo_parse(const char *text, line_table *t, char *why, size_t why_size)
{
    size_t cap = 0, line_no = 0;
    int function = -1, in_block = 0;
    line_loc cur = {0};

    memset(t, 0, sizeof *t);
    char buf[4096];
    for (const char *p = text; p && *p;) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        if (len >= sizeof buf)
            len = sizeof buf - 1; /* no line of interest is that long */
        memcpy(buf, p, len);
        buf[len] = '\0';
        p = eol ? eol + 1 : NULL;
        line_no++;
        const char *s = buf;
        while (*s == ' ' || *s == '\t')
            s++;

        if (strncmp(s, ".text.", 6) == 0) {
            const char *colon = strchr(s, ':');
            if (colon) {
                function = intern(&t->functions, &t->n_functions, s + 6, (size_t)(colon - s - 6));
                if (function < 0)
                    goto oom;
                memset(&cur, 0, sizeof cur);
                in_block = 0;
            }
            continue;
        }
        if (strncmp(s, "//## File ", 10) == 0) {
            const char *q = s + 10, *file;
            int line;
            if (file_line(t, &q, &file, &line) != 0) {
                snprintf(why, why_size, "nvdisasm output line %zu: expected //## File \"PATH\", "
                         "line N", line_no);
                goto bad;
            }
            if (!in_block) { /* a new block: its first comment is the innermost frame */
                memset(&cur, 0, sizeof cur);
                cur.file = file;
                cur.line = line;
                in_block = 1;
            }
            if (strncmp(q, " inlined at ", 12) == 0) {
                q += 12;
                if (file_line(t, &q, &file, &line) != 0) {
                    snprintf(why, why_size, "nvdisasm output line %zu: expected inlined at "
                             "\"PATH\", line N", line_no);
                    goto bad;
                }
                cur.call_file = file; /* the last frame's call site wins: the outermost */
                cur.call_line = line;
            }
            continue;
        }
        if (s[0] == '/' && s[1] == '*' && isxdigit((unsigned char)s[2])) {
            char *end;
            unsigned long long off = strtoull(s + 2, &end, 16);
            if (end[0] != '*' || end[1] != '/')
                continue;
            in_block = 0;
            if (function < 0) {
                snprintf(why, why_size, "nvdisasm output line %zu: an instruction before any "
                         ".text.FUNCTION: label (run nvdisasm on a cubin, not a fatbinary)",
                         line_no);
                goto bad;
            }
            if (!cur.file)
                continue; /* no line information yet */
            if (append_entry(t, &cap, (line_entry){function, off, cur}) != 0)
                goto oom;
        }
    }
    if (t->n_functions == 0) {
        snprintf(why, why_size, "no .text.FUNCTION: label in the nvdisasm output: is it the "
                 "disassembly of a cubin?");
        goto bad;
    }
    if (t->n_entries == 0) {
        snprintf(why, why_size, "no line information in the nvdisasm output: build the lab "
                 "with -lineinfo and run nvdisasm with --print-line-info");
        goto bad;
    }
    return 0;
oom:
    snprintf(why, why_size, "out of memory reading nvdisasm output");
bad:
    lineinfo_free(t);
    return -1;
}

void lineinfo_free(line_table *t)
{
    for (int i = 0; i < t->n_functions; i++)
        free(t->functions[i]);
    for (int i = 0; i < t->n_files; i++)
        free(t->files[i]);
    free(t->functions);
    free(t->files);
    free(t->entries);
    memset(t, 0, sizeof *t);
}

int lineinfo_lookup(const line_table *t, const char *function, uint64_t offset, line_loc *out)
{
    int f = -1;
    const line_entry *best = NULL;
    for (int i = 0; i < t->n_functions && f < 0; i++)
        if (strcmp(t->functions[i], function) == 0)
            f = i;
    if (f < 0)
        return -1;
    for (size_t i = 0; i < t->n_entries; i++) {
        const line_entry *e = &t->entries[i];
        if (e->function == f && e->offset <= offset && (!best || e->offset > best->offset))
            best = e;
    }
    if (!best)
        return -1;
    *out = best->loc;
    return 0;
}

static void name(const line_table *t, const char *function, uint64_t pc, const char **file,
                 int *line)
{
    line_loc loc;
    *file = NULL;
    *line = 0;
    if (lineinfo_lookup(t, function, pc, &loc) != 0)
        return;
    if (strstr(loc.file, "/include/") && loc.call_file) {
        *file = loc.call_file;
        *line = loc.call_line;
    } else {
        *file = loc.file;
        *line = loc.line;
    }
}

void trace_attribute(trace_summary *s, const line_table *t, const char *function)
{
    for (int i = 0; i < s->n_sites; i++)
        name(t, function, s->sites[i].pc, &s->sites[i].file, &s->sites[i].line);
    for (int i = 0; i < s->n_races; i++) {
        name(t, function, s->races[i].pc_a, &s->races[i].file_a, &s->races[i].line_a);
        name(t, function, s->races[i].pc_b, &s->races[i].file_b, &s->races[i].line_b);
    }
    if (s->global_repeats > 0)
        name(t, function, s->repeat_pc, &s->repeat_file, &s->repeat_line);
    for (int i = 0; i < s->global.n; i++)
        name(t, function, s->global.v[i].pc, &s->global.v[i].file, &s->global.v[i].line);
    if (s->oob_count > 0 && !s->oob.file)
        name(t, function, s->oob.pc, &s->oob.file, &s->oob.line);
    if (s->input_write_count > 0 && !s->input_write.file)
        name(t, function, s->input_write.pc, &s->input_write.file, &s->input_write.line);
}

/* --- the line table straight from a cubin's .debug_line (DWARF 2-4) ---------------------- */

#include "../../image/elf_view.h"

typedef struct reader {
    const unsigned char *p, *end;
    int bad;
} reader;

static uint64_t rd_fixed(reader *r, int bytes)
{
    uint64_t v = 0;
    if (r->end - r->p < bytes) {
        r->bad = 1;
        r->p = r->end;
        return 0;
    }
    for (int i = 0; i < bytes; i++)
        v |= (uint64_t)r->p[i] << (8 * i); /* cubins are little-endian (checked) */
    r->p += bytes;
    return v;
}

static uint64_t rd_uleb(reader *r)
{
    uint64_t v = 0;
    for (int shift = 0; r->p < r->end; shift += 7) {
        unsigned char b = *r->p++;
        if (shift < 64)
            v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            return v;
    }
    r->bad = 1;
    return v;
}

static int64_t rd_sleb(reader *r)
{
    int64_t v = 0;
    int shift = 0;
    unsigned char b = 0x80;
    while (r->p < r->end && (b & 0x80)) {
        b = *r->p++;
        if (shift < 64)
            v |= (int64_t)((uint64_t)(b & 0x7f) << shift);
        shift += 7;
    }
    if (b & 0x80)
        r->bad = 1;
    else if (shift < 64 && (b & 0x40))
        v |= -((int64_t)1 << shift);
    return v;
}

static const char *rd_str(reader *r)
{
    const char *s = (const char *)r->p;
    const unsigned char *nul = memchr(r->p, 0, (size_t)(r->end - r->p));
    if (!nul) {
        r->bad = 1;
        r->p = r->end;
        return "";
    }
    r->p = nul + 1;
    return s;
}

/*
 * Which function each sequence of the line program belongs to: in a cubin
 * every function is its own section at address 0, and the DW_LNE_set_address
 * that opens a sequence is relocated against the function's symbol
 * (.rela.debug_line). Returns the symbol's name for the operand at `offset`
 * of .debug_line, or NULL.
 */
static const char *relocated_symbol(const elf_view *v, uint64_t offset, int64_t *addend)
{
    const Elf64_Shdr *rela = elf_find(v, ".rela.debug_line");
    size_t rela_len, sym_len;
    const unsigned char *rp, *sp;
    if (!rela || rela->sh_link >= v->n_sh || !(rp = elf_section(v, rela, &rela_len)))
        return NULL;
    const Elf64_Shdr *sym = &v->sh[rela->sh_link];
    if (sym->sh_link >= v->n_sh || !(sp = elf_section(v, sym, &sym_len)))
        return NULL;
    const Elf64_Rela *r = (const Elf64_Rela *)rp;
    const Elf64_Sym *syms = (const Elf64_Sym *)sp;
    size_t n_sym = sym_len / sizeof *syms;
    for (size_t i = 0; i < rela_len / sizeof *r; i++) {
        if (r[i].r_offset != offset || ELF64_R_SYM(r[i].r_info) >= n_sym)
            continue;
        const Elf64_Sym *y = &syms[ELF64_R_SYM(r[i].r_info)];
        *addend = r[i].r_addend;
        if (ELF64_ST_TYPE(y->st_info) == STT_SECTION && y->st_shndx < v->n_sh) {
            const char *sec = elf_section_name(v, &v->sh[y->st_shndx]);
            return sec && strncmp(sec, ".text.", 6) == 0 ? sec + 6 : NULL;
        }
        return elf_string(v, &v->sh[sym->sh_link], y->st_name);
    }
    return NULL;
}

typedef struct unit_files {
    const char *dirs[64], *names[256];
    uint64_t dir_of[256];
    const char *path[256]; /* interned in the table once a row names it; NULL before */
    int n_dirs, n_names;
} unit_files;

static int add_row(line_table *t, size_t *cap, int function, uint64_t address, unit_files *u,
                   uint64_t file, int64_t line)
{
    if (function < 0 || file < 1 || file > (uint64_t)u->n_names || line <= 0)
        return 0; /* nothing to name it by */
    if (!u->path[file - 1]) {
        char path[1024];
        const char *name = u->names[file - 1];
        uint64_t d = u->dir_of[file - 1];
        if (name[0] != '/' && d >= 1 && d <= (uint64_t)u->n_dirs)
            snprintf(path, sizeof path, "%s/%s", u->dirs[d - 1], name);
        else
            snprintf(path, sizeof path, "%s", name);
        int f = intern(&t->files, &t->n_files, path, strlen(path));
        if (f < 0)
            return -1;
        u->path[file - 1] = t->files[f];
    }
    return append_entry(t, cap, (line_entry){function, address, {u->path[file - 1], (int)line, NULL, 0}});
}

/* One unit's line program, from its header on. Returns 0, -1 (malformed, why), -2 (out of memory). */
static int line_program(const elf_view *v, const unsigned char *base, reader *r, line_table *t,
                        size_t *cap, char *why, size_t why_size)
{
    uint64_t unit_length = rd_fixed(r, 4);
    int offset_size = 4;
    if (unit_length == 0xffffffffu) {
        unit_length = rd_fixed(r, 8);
        offset_size = 8;
    }
    if (r->bad || unit_length > (uint64_t)(r->end - r->p))
        goto bad;
    reader u = {r->p, r->p + unit_length, 0};
    r->p += unit_length;
    unsigned version = (unsigned)rd_fixed(&u, 2);
    if (version < 2 || version > 4) {
        snprintf(why, why_size, ".debug_line version %u: only DWARF 2 to 4 are read", version);
        return -1;
    }
    uint64_t header_length = rd_fixed(&u, offset_size);
    const unsigned char *program = u.p + header_length;
    unsigned min_inst = (unsigned)rd_fixed(&u, 1);
    if (version >= 4)
        rd_fixed(&u, 1); /* maximum operations per instruction: 1 on every GPU */
    rd_fixed(&u, 1);     /* default_is_stmt */
    int line_base = (signed char)rd_fixed(&u, 1);
    unsigned line_range = (unsigned)rd_fixed(&u, 1), opcode_base = (unsigned)rd_fixed(&u, 1);
    unsigned char arg_count[256] = {0};
    for (unsigned i = 1; i < opcode_base; i++)
        arg_count[i] = (unsigned char)rd_fixed(&u, 1);
    unit_files files = {0};
    for (const char *d; *(d = rd_str(&u)) && !u.bad;)
        if (files.n_dirs < 64)
            files.dirs[files.n_dirs++] = d;
    for (const char *n; *(n = rd_str(&u)) && !u.bad;) {
        uint64_t dir = rd_uleb(&u);
        rd_uleb(&u), rd_uleb(&u); /* time, size */
        if (files.n_names < 256) {
            files.dir_of[files.n_names] = dir;
            files.names[files.n_names++] = n;
        }
    }
    if (u.bad || line_range == 0 || opcode_base == 0 || program > u.end || program < u.p)
        goto bad;
    u.p = program;

    uint64_t address = 0, file = 1;
    int64_t line = 1;
    int function = -1;
    while (u.p < u.end && !u.bad) {
        unsigned op = *u.p++;
        int emit = 0;
        if (op >= opcode_base) { /* special: address and line together, then a row */
            unsigned adj = op - opcode_base;
            address += (uint64_t)(adj / line_range) * min_inst;
            line += line_base + (int)(adj % line_range);
            emit = 1;
        } else if (op == 0) { /* extended */
            uint64_t len = rd_uleb(&u);
            if (len == 0 || len > (uint64_t)(u.end - u.p))
                goto bad;
            const unsigned char *next = u.p + len;
            unsigned sub = *u.p++;
            if (sub == 1) { /* DW_LNE_end_sequence */
                address = 0, file = 1, line = 1, function = -1;
            } else if (sub == 2) { /* DW_LNE_set_address, relocated to a function */
                uint64_t at = (uint64_t)(u.p - base);
                address = rd_fixed(&u, (int)(len - 1 > 8 ? 8 : len - 1));
                int64_t addend = 0;
                const char *fn = relocated_symbol(v, at, &addend);
                function = fn ? intern(&t->functions, &t->n_functions, fn, strlen(fn)) : -1;
                if (fn && function < 0)
                    return -2;
                address += (uint64_t)addend;
            }
            u.p = next; /* DW_LNE_define_file and vendor opcodes: skipped */
        } else if (op == 1) { /* DW_LNS_copy */
            emit = 1;
        } else if (op == 2) {
            address += rd_uleb(&u) * min_inst;
        } else if (op == 3) {
            line += rd_sleb(&u);
        } else if (op == 4) {
            file = rd_uleb(&u);
        } else if (op == 8) { /* DW_LNS_const_add_pc */
            address += (uint64_t)((255 - opcode_base) / line_range) * min_inst;
        } else if (op == 9) {
            address += rd_fixed(&u, 2);
        } else { /* set_column, negate_stmt, ...: their operands are skipped */
            for (unsigned i = 0; i < arg_count[op]; i++)
                rd_uleb(&u);
        }
        if (emit && add_row(t, cap, function, address, &files, file, line) != 0)
            return -2;
    }
    if (u.bad)
        goto bad;
    return 0;
bad:
    snprintf(why, why_size, "the cubin's .debug_line is malformed");
    return -1;
}

int lineinfo_from_cubin(const void *data, size_t size, line_table *t, char *why, size_t why_size)
{
    elf_view v;
    size_t cap = 0, len = 0;
    const unsigned char *lines;
    memset(t, 0, sizeof *t);
    if (elf_open(&v, data, size) != 0) {
        snprintf(why, why_size, "not a 64-bit little-endian ELF cubin");
        return -1;
    }
    const Elf64_Shdr *dl = elf_find(&v, ".debug_line");
    if (!dl || !(lines = elf_section(&v, dl, &len)) || len == 0) {
        snprintf(why, why_size, "the cubin has no line table (.debug_line): build the lab with "
                 "-lineinfo, as the kit's Makefile does");
        return -1;
    }
    reader r = {lines, lines + len, 0};
    while (r.p < r.end) {
        int rc = line_program(&v, lines, &r, t, &cap, why, why_size);
        if (rc == -2)
            snprintf(why, why_size, "out of memory reading the cubin's line table");
        if (rc != 0) {
            lineinfo_free(t);
            return -1;
        }
    }
    if (t->n_entries == 0) {
        snprintf(why, why_size, "the cubin's line table names no instruction of a function");
        lineinfo_free(t);
        return -1;
    }
    return 0;
}
