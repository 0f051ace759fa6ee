/*
 * bankmap.c - draw the docs' bank figures with the grader's own bank model.
 *
 *   bankmap OUTDIR      write every figure as OUTDIR/NAME.svg, one summary
 *                       line per figure on stdout
 *   bankmap --list      print the figure names, one per line
 *
 * Each figure shows one warp-wide shared-memory request: 32 lanes on top,
 * 32 banks below, a line from every lane to each bank it touches, lanes
 * coloured by the wavefront in which the model serves them, and a caption
 * with the wavefront count and conflict degree the model computes. The tile
 * figures build their accesses with tile_warp_access() and their block totals
 * with tile_model_cost(), exactly as the grader does, so a figure cannot
 * disagree with what `make grade` expects.
 *
 * Pure C11; link with grader/model/bank.c and grader/model/tile_model.c.
 */
#include "bank.h"
#include "tile_model.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* U+00D7 MULTIPLICATION SIGN, in UTF-8 (the SVG files are UTF-8). */
#define TIMES "\xc3\x97"

/* ------------------------------------------------------------ figures */

typedef enum fig_kind { FIG_TILE, FIG_WARP } fig_kind;

typedef struct figure {
    const char *name;  /* file name without .svg */
    const char *title; /* what the request is, as code */
    fig_kind kind;
    int kepler;        /* 1: Kepler's 8-byte bank mode (history) */
    /* FIG_TILE: one warp of a bdimx x bdimy block touching an int tile */
    tile_access tile;
    int bdimx, bdimy;
    int warp;
    /* FIG_WARP: lane i touches byte address addr_of(i), width bytes */
    uint32_t (*addr_of)(int lane);
    int width;
    const char *note; /* extra words for the caption, or NULL */
} figure;

static uint32_t addr_broadcast(int lane) { (void)lane; return 20 * 4; }          /* a[20] */
static uint32_t addr_stride2(int lane) { return (uint32_t)lane * 2 * 4; }        /* a[2*tx] */
static uint32_t addr_double(int lane) { return (uint32_t)lane * 8; }             /* d[tx] */
/* matmulTiled, TILE 16: warp 0 is threads (tx, ty) = (0..15, 0) and (0..15, 1); k = 0. */
static uint32_t addr_matmul_as(int lane) { return (uint32_t)((lane / 16) * 16 + 0) * 4; }  /* As[ty][k] */
static uint32_t addr_matmul_bs(int lane) { return (uint32_t)(0 * 16 + lane % 16) * 4; }    /* Bs[k][tx] */

#define TILEFIG(n, t, order, pitch, bx, by, k, note) \
    {n, t, FIG_TILE, k, {order, pitch}, bx, by, 0, NULL, 4, note}
#define WARPFIG(n, t, fn, width, note) \
    {n, t, FIG_WARP, 0, {TILE_ROW, 1}, 0, 0, 0, fn, width, note}

static const figure figures[] = {
    TILEFIG("row", "tile[threadIdx.y][threadIdx.x] in an int tile[32][32]",
            TILE_ROW, 32, 32, 32, 0, NULL),
    TILEFIG("column", "tile[threadIdx.x][threadIdx.y] in an int tile[32][32]",
            TILE_COL, 32, 32, 32, 0, NULL),
    TILEFIG("column-pad1", "tile[threadIdx.x][threadIdx.y] in an int tile[32][32 + 1]",
            TILE_COL, 33, 32, 32, 0, NULL),
    TILEFIG("rect-column", "tile[threadIdx.x][threadIdx.y] in an int tile[32][16], block 32 " TIMES " 16",
            TILE_COL, 16, 32, 16, 0, NULL),
    TILEFIG("rect-irow-pad0", "tile[icol][irow] in an int tile[16][32], block 32 " TIMES " 16",
            TILE_TRANSPOSED, 32, 32, 16, 0, NULL),
    TILEFIG("rect-irow-pad1", "tile[icol][irow] in an int tile[16][32 + 1], block 32 " TIMES " 16",
            TILE_TRANSPOSED, 33, 32, 16, 0, NULL),
    TILEFIG("rect-irow-pad2", "tile[icol][irow] in an int tile[16][32 + 2], block 32 " TIMES " 16",
            TILE_TRANSPOSED, 34, 32, 16, 0, NULL),
    TILEFIG("kepler-column", "Kepler, 8-byte banks: tile[threadIdx.x][threadIdx.y], int tile[32][32]",
            TILE_COL, 32, 32, 32, 1, "history: Kepler 8-byte bank mode"),
    TILEFIG("kepler-rect", "Kepler, 8-byte banks: tile[icol][irow], int tile[16][32], block 32 " TIMES " 16",
            TILE_TRANSPOSED, 32, 32, 16, 1, "history: Kepler 8-byte bank mode"),
    WARPFIG("broadcast", "float f = a[20]: every lane reads the same word", addr_broadcast, 4,
            "broadcast"),
    WARPFIG("stride2", "float f = a[2 * threadIdx.x]: every other word", addr_stride2, 4, NULL),
    WARPFIG("double", "double d = a[threadIdx.x]: 8 bytes per lane", addr_double, 8, NULL),
    WARPFIG("matmul-as", "As[ty][k] in matmulTiled (TILE 16): warp 0 = rows ty 0 and 1, k = 0",
            addr_matmul_as, 4, "broadcast within each half-warp"),
    WARPFIG("matmul-bs", "Bs[k][tx] in matmulTiled (TILE 16): warp 0 = rows ty 0 and 1, k = 0",
            addr_matmul_bs, 4, "each word read by 2 lanes"),
};
#define N_FIGURES ((int)(sizeof figures / sizeof figures[0]))

/* ------------------------------------------------------------ model */

typedef struct evaluated {
    bank_geometry g;
    warp_access w;
    int wave[BANK_MAX_LANES];
    int wavefronts, ideal;
    double degree;
    int have_block; /* tile figures: totals over the whole block */
    smem_cost block;
} evaluated;

static int evaluate(const figure *f, evaluated *e)
{
    memset(e, 0, sizeof *e);
    if (bank_geometry_for(f->kepler ? 3 : 9, f->kepler ? 5 : 0, 32, f->kepler, &e->g) != 0)
        return -1;
    if (f->kind == FIG_TILE) {
        tile_warp_access(&e->g, f->tile, f->bdimx, f->bdimy, 4, f->warp, &e->w);
        if (tile_model_cost(&e->g, f->tile, f->bdimx, f->bdimy, 4, &e->block) != 0)
            return -1;
        e->have_block = 1;
    } else {
        e->w.active = 0xFFFFFFFFu;
        e->w.width = f->width;
        for (int lane = 0; lane < e->g.warp_size; lane++)
            e->w.addr[lane] = f->addr_of(lane);
    }
    e->wavefronts = bank_lane_wavefronts(&e->g, &e->w, e->wave);
    e->ideal = bank_ideal_wavefronts(&e->g, &e->w);
    smem_cost one = {1, e->wavefronts, e->ideal};
    e->degree = smem_degree(&one);
    return 0;
}

/* The grader's wording: "conflict-free", "32-way conflict", "1.50-way conflict". */
static const char *degree_words(double d, char *buf, size_t n)
{
    if (d < 1.005)
        snprintf(buf, n, "conflict-free");
    else if (fabs(d - round(d)) < 0.05)
        snprintf(buf, n, "%.0f-way conflict", round(d));
    else
        snprintf(buf, n, "%.2f-way conflict", d);
    return buf;
}

/* ------------------------------------------------------------ drawing */

/* Wavefront colours: a colour-blind-safe set for the first few, then hues. */
static void wave_colour(int wave, int total, char out[8])
{
    static const char *const base[] = {"#0072b2", "#e69f00", "#009e73", "#cc79a7",
                                       "#56b4e9", "#d55e00", "#8c6d1f", "#555555"};
    if (total <= 8) {
        snprintf(out, 8, "%s", base[wave % 8]);
        return;
    }
    /* hue around the wheel, fixed saturation and lightness (HSL -> RGB) */
    double h = 360.0 * wave / total, s = 0.65, l = 0.45;
    double c = (1 - fabs(2 * l - 1)) * s, x = c * (1 - fabs(fmod(h / 60.0, 2) - 1)), m = l - c / 2;
    double r = 0, g = 0, b = 0;
    if (h < 60) r = c, g = x;
    else if (h < 120) r = x, g = c;
    else if (h < 180) g = c, b = x;
    else if (h < 240) g = x, b = c;
    else if (h < 300) r = x, b = c;
    else r = c, b = x;
    snprintf(out, 8, "#%02x%02x%02x", (int)lround((r + m) * 255), (int)lround((g + m) * 255),
             (int)lround((b + m) * 255));
}

/* Black or white text on a fill, whichever reads better. */
static const char *text_on(const char *fill)
{
    unsigned r, g, b;
    if (sscanf(fill, "#%02x%02x%02x", &r, &g, &b) != 3)
        return "#000";
    double lum = 0.2126 * r + 0.7152 * g + 0.0722 * b;
    return lum > 150 ? "#000" : "#fff";
}

static void xml_text(FILE *o, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", o); break;
        case '<': fputs("&lt;", o); break;
        case '>': fputs("&gt;", o); break;
        case '"': fputs("&quot;", o); break;
        default: fputc(*s, o);
        }
    }
}

#define W 1000
#define LEFT 78     /* x of lane 0's cell */
#define CELL 28     /* width of one lane / bank cell */
#define BOX 24      /* drawn box inside a cell */
#define Y_LANE 62   /* top of the lane boxes */
#define Y_BANK 222  /* top of the bank boxes */
#define BOX_H 24

static double cell_x(int i) { return LEFT + i * CELL + (CELL - BOX) / 2.0; }
static double cell_mid(int i) { return LEFT + i * CELL + CELL / 2.0; }

static void caption_lines(const figure *f, const evaluated *e, char *l1, char *l2, size_t n)
{
    char deg[48];
    int active = 0;
    for (int lane = 0; lane < e->g.warp_size; lane++)
        active += (int)(e->w.active >> lane & 1u);
    degree_words(e->degree, deg, sizeof deg);
    snprintf(l1, n, "Model: %d wavefront%s for this request of %d lanes (%d without conflicts): %s%s%s.",
             e->wavefronts, e->wavefronts == 1 ? "" : "s", active, e->ideal, deg,
             f->note ? "; " : "", f->note ? f->note : "");
    if (e->have_block)
        snprintf(l2, n, "Whole %d " TIMES " %d block: %ld requests, %ld wavefronts (%ld without conflicts). "
                 "Banks: %d " TIMES " %d bytes.", f->bdimx, f->bdimy, e->block.requests,
                 e->block.wavefronts, e->block.ideal, e->g.banks, e->g.bank_bytes);
    else
    {
        int per = e->w.width > 0 ? e->g.banks * e->g.bank_bytes / e->w.width : e->g.warp_size;
        if (per >= e->g.warp_size)
            snprintf(l2, n, "Banks: %d " TIMES " %d bytes; %d bytes per lane, so the whole warp is served "
                     "as one phase.", e->g.banks, e->g.bank_bytes, e->w.width);
        else
            snprintf(l2, n, "Banks: %d " TIMES " %d bytes; %d bytes per lane, so the warp is served in "
                     "phases of %d lanes, one after the other.", e->g.banks, e->g.bank_bytes,
                     e->w.width, per);
    }
}

static int write_svg(const figure *f, const evaluated *e, FILE *o)
{
    const bank_geometry *g = &e->g;
    int words_in_bank[64] = {0};
    uint32_t seen[BANK_MAX_LANES * 4];
    int nseen = 0, span = e->w.width > g->bank_bytes ? e->w.width / g->bank_bytes : 1;
    char l1[256], l2[256];
    const int H = 360;

    /* Distinct bank words per bank within one phase (the most over all
     * phases): what makes an n-way conflict. */
    int per_phase = g->banks * g->bank_bytes / (e->w.width > 0 ? e->w.width : 4);
    if (per_phase > g->warp_size)
        per_phase = g->warp_size;
    for (int first = 0; first < g->warp_size; first += per_phase) {
        int in_phase[64] = {0};
        nseen = 0;
        for (int lane = first; lane < first + per_phase && lane < g->warp_size; lane++) {
            if (!(e->w.active >> lane & 1u))
                continue;
            for (int s = 0; s < span; s++) {
                uint32_t word = e->w.addr[lane] / (uint32_t)g->bank_bytes + (uint32_t)s;
                int dup = 0;
                for (int i = 0; i < nseen; i++)
                    dup |= seen[i] == word;
                if (!dup) {
                    seen[nseen++] = word;
                    in_phase[word % (uint32_t)g->banks]++;
                }
            }
        }
        for (int b = 0; b < g->banks; b++)
            if (in_phase[b] > words_in_bank[b])
                words_in_bank[b] = in_phase[b];
    }
    caption_lines(f, e, l1, l2, sizeof l1);

    fprintf(o, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    fprintf(o, "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" width=\"%d\" "
               "height=\"%d\" role=\"img\" aria-labelledby=\"title desc\" "
               "font-family=\"'DejaVu Sans', 'Segoe UI', Helvetica, Arial, sans-serif\">\n",
            W, H, W, H);
    fprintf(o, "<title id=\"title\">Which bank each lane of a warp hits: ");
    xml_text(o, f->title);
    fprintf(o, "</title>\n<desc id=\"desc\">");
    xml_text(o, l1);
    fputc(' ', o);
    xml_text(o, l2);
    fprintf(o, " Generated by docs/tools/bankmap.c from the grader's bank model.</desc>\n");
    fprintf(o, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n", W, H);

    /* heading */
    fprintf(o, "<text x=\"%d\" y=\"28\" font-size=\"17\" font-weight=\"bold\" fill=\"#1a1a1a\">", 14);
    xml_text(o, f->title);
    fprintf(o, "</text>\n");

    /* row labels */
    fprintf(o, "<g font-size=\"14\" fill=\"#333\" text-anchor=\"end\">\n");
    fprintf(o, "<text x=\"%d\" y=\"%d\">lane</text>\n", LEFT - 8, Y_LANE + 17);
    fprintf(o, "<text x=\"%d\" y=\"%d\">%s</text>\n", LEFT - 8, Y_LANE + BOX_H + 18,
            g->bank_bytes == 4 ? "word" : "8B word");
    fprintf(o, "<text x=\"%d\" y=\"%d\">bank</text>\n", LEFT - 8, Y_BANK + 17);
    fprintf(o, "<text x=\"%d\" y=\"%d\">words</text>\n", LEFT - 8, Y_BANK + BOX_H + 18);
    if (per_phase < g->warp_size)
        fprintf(o, "<text x=\"%d\" y=\"%d\" font-size=\"11\">per phase</text>\n", LEFT - 8,
                Y_BANK + BOX_H + 31);
    fprintf(o, "</g>\n");

    /* phase brackets, when wide accesses split the warp */
    if (per_phase < g->warp_size) {
        for (int p = 0; p * per_phase < g->warp_size; p++) {
            double x0 = cell_x(p * per_phase), x1 = cell_x((p + 1) * per_phase - 1) + BOX;
            fprintf(o, "<path d=\"M%.1f 54 V48 H%.1f V54\" fill=\"none\" stroke=\"#333\"/>\n", x0, x1);
            fprintf(o, "<text x=\"%.1f\" y=\"44\" font-size=\"13\" text-anchor=\"middle\" "
                       "fill=\"#333\">phase %d: lanes %d-%d</text>\n",
                    (x0 + x1) / 2, p + 1, p * per_phase, (p + 1) * per_phase - 1);
        }
    }

    /* lines first, so the boxes sit on top of them */
    fprintf(o, "<g stroke-width=\"1.6\" stroke-opacity=\"0.85\">\n");
    for (int lane = 0; lane < g->warp_size; lane++) {
        if (!(e->w.active >> lane & 1u))
            continue;
        char col[8];
        wave_colour(e->wave[lane], e->wavefronts, col);
        for (int s = 0; s < span; s++) {
            int bank = bank_of(g, e->w.addr[lane] + (uint32_t)(s * g->bank_bytes));
            fprintf(o, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"%s\"/>\n",
                    cell_mid(lane), Y_LANE + BOX_H + 26, cell_mid(bank), Y_BANK, col);
        }
    }
    fprintf(o, "</g>\n");

    /* lanes, with the word each one touches */
    fprintf(o, "<g font-size=\"12\" text-anchor=\"middle\">\n");
    for (int lane = 0; lane < g->warp_size; lane++) {
        int on = e->w.active >> lane & 1u;
        char col[8] = "#dddddd";
        if (on)
            wave_colour(e->wave[lane], e->wavefronts, col);
        fprintf(o, "<rect x=\"%.1f\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"3\" fill=\"%s\"/>\n",
                cell_x(lane), Y_LANE, BOX, BOX_H, col);
        fprintf(o, "<text x=\"%.1f\" y=\"%d\" fill=\"%s\">%d</text>\n", cell_mid(lane),
                Y_LANE + 16, text_on(col), lane);
        if (on)
            fprintf(o, "<text x=\"%.1f\" y=\"%d\" font-size=\"%d\" fill=\"#333\">%u</text>\n",
                    cell_mid(lane), Y_LANE + BOX_H + 17,
                    e->w.addr[lane] / (uint32_t)g->bank_bytes >= 1000 ? 10 : 11,
                    e->w.addr[lane] / (uint32_t)g->bank_bytes);
    }
    fprintf(o, "</g>\n");

    /* banks, with how many distinct words of each the request touches */
    fprintf(o, "<g font-size=\"12\" text-anchor=\"middle\">\n");
    for (int b = 0; b < g->banks; b++) {
        int n = words_in_bank[b];
        const char *fill = n == 0 ? "#f4f4f4" : n == 1 ? "#d9e8d2" : "#f3c6c0";
        fprintf(o, "<rect x=\"%.1f\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"3\" fill=\"%s\" "
                   "stroke=\"#777\" stroke-width=\"0.8\"/>\n", cell_x(b), Y_BANK, BOX, BOX_H, fill);
        fprintf(o, "<text x=\"%.1f\" y=\"%d\" fill=\"#000\">%d</text>\n", cell_mid(b),
                Y_BANK + 16, b);
        if (n > 0)
            fprintf(o, "<text x=\"%.1f\" y=\"%d\" fill=\"%s\"%s>%d</text>\n", cell_mid(b),
                    Y_BANK + BOX_H + 17, n > 1 ? "#a61b0b" : "#333",
                    n > 1 ? " font-weight=\"bold\"" : "", n);
    }
    fprintf(o, "</g>\n");

    /* legend: the wavefront colours in use */
    int ly = 296, sw = e->wavefronts <= 8 ? 22 : e->wavefronts <= 16 ? 14 : 9, sx;
    if (e->wavefronts == 1)
        fprintf(o, "<text x=\"14\" y=\"%d\" font-size=\"13\" fill=\"#333\">Lane colour = "
                   "wavefront that serves it: all lanes in the 1st</text>\n", ly);
    else
        fprintf(o, "<text x=\"14\" y=\"%d\" font-size=\"13\" fill=\"#333\">Lane colour = "
                   "wavefront that serves it, 1st to %d%s:</text>\n", ly, e->wavefronts,
                e->wavefronts % 10 == 2 && e->wavefronts != 12 ? "nd"
                : e->wavefronts % 10 == 3 && e->wavefronts != 13 ? "rd" : "th");
    sx = e->wavefronts == 1 ? 400 : 390;
    for (int w = 0; w < e->wavefronts && w < 64; w++) {
        char col[8];
        wave_colour(w, e->wavefronts, col);
        fprintf(o, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"14\" fill=\"%s\"/>\n",
                sx + w * (sw + 2), ly - 11, sw, col);
    }

    /* caption computed by the model */
    fprintf(o, "<text x=\"14\" y=\"322\" font-size=\"14\" fill=\"#1a1a1a\" font-weight=\"bold\">");
    xml_text(o, l1);
    fprintf(o, "</text>\n<text x=\"14\" y=\"344\" font-size=\"14\" fill=\"#1a1a1a\">");
    xml_text(o, l2);
    fprintf(o, "</text>\n</svg>\n");
    return ferror(o) ? -1 : 0;
}

/* ------------------------------------------------------------ main */

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--list") == 0) {
        for (int i = 0; i < N_FIGURES; i++)
            printf("%s\n", figures[i].name);
        return 0;
    }
    if (argc != 2 || argv[1][0] == '-') {
        fprintf(stderr, "usage: bankmap OUTDIR | bankmap --list\n");
        return 2;
    }
    for (int i = 0; i < N_FIGURES; i++) {
        const figure *f = &figures[i];
        evaluated e;
        char path[4096], deg[48];
        if (evaluate(f, &e) != 0) {
            fprintf(stderr, "bankmap: %s: the bank model rejected the figure\n", f->name);
            return 1;
        }
        snprintf(path, sizeof path, "%s/%s.svg", argv[1], f->name);
        FILE *o = fopen(path, "w");
        if (!o) {
            fprintf(stderr, "bankmap: cannot write %s: %s\n", path, strerror(errno));
            return 1;
        }
        int bad = write_svg(f, &e, o);
        if (fclose(o) != 0 || bad) {
            fprintf(stderr, "bankmap: error writing %s\n", path);
            return 1;
        }
        printf("%-15s %2d wavefronts / %d ideal  %-18s", f->name, e.wavefronts, e.ideal,
               degree_words(e.degree, deg, sizeof deg));
        if (e.have_block)
            printf("  block: %ld wavefronts / %ld requests", e.block.wavefronts, e.block.requests);
        printf("\n");
    }
    return 0;
}
