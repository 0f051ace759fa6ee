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
 * The reduction figures of lab 7 take each level's accesses and wavefronts
 * from grader/model/reduce_model.c, the grader's model of the tree; lab 8's
 * shuffle arrows come from the grader's host reference (reduce_ref.c); lab
 * 10's constant figure from the keys the grader draws and its model of the
 * constant cache (lookup_ref.c).
 *
 * Pure C11; link with grader/model/bank.c, tile_model.c, reduce_model.c and
 * grader/reference/reduce_ref.c, reduce_sizes.c, lookup_ref.c, prng.c.
 */
#include "bank.h"
#include "reduce_model.h"
#include "sector.h"
#include "tile_model.h"
#include "../reference/lookup_ref.h"
#include "../reference/prng.h"
#include "../reference/reduce_ref.h"

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

#define TILEFIG(n, t, ord, pit, bx, by, k, note) \
    {n, t, FIG_TILE, k, {.order = ord, .pitch = pit}, bx, by, 0, NULL, 4, note}
#define WARPFIG(n, t, fn, width, note) \
    {n, t, FIG_WARP, 0, {.order = TILE_ROW, .pitch = 1}, 0, 0, 0, fn, width, note}

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
        tile_warp_access(&e->g, &f->tile, f->bdimx, f->bdimy, 4, 1, f->warp, &e->w);
        if (tile_model_cost(&e->g, &f->tile, f->bdimx, f->bdimy, 4, 1, &e->block) != 0)
            return -1;
        e->have_block = 1;
    } else {
        e->w.active = 0xFFFFFFFFu;
        e->w.width = f->width;
        e->w.load = 1; /* the figures show reads */
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

/*
 * A sequential colour map after matplotlib's viridis: dark purple to yellow,
 * readable with the common colour-vision deficiencies and in grey, and its
 * two ends are far apart (wavefront 1 and wavefront 32 never look alike).
 * t in [0, 1].
 */
static void viridis(double t, char out[8])
{
    static const unsigned char stops[9][3] = {
        {0x44, 0x01, 0x54}, {0x47, 0x2c, 0x7a}, {0x3b, 0x51, 0x8b}, {0x2c, 0x71, 0x8e},
        {0x21, 0x90, 0x8d}, {0x27, 0xad, 0x81}, {0x5c, 0xc8, 0x63}, {0xaa, 0xdc, 0x32},
        {0xfd, 0xe7, 0x25}};
    if (!(t > 0.0))
        t = 0.0;
    if (t > 1.0)
        t = 1.0;
    double x = t * 8.0;
    int i = (int)x;
    if (i > 7)
        i = 7;
    double f = x - i;
    int c[3];
    for (int k = 0; k < 3; k++)
        c[k] = (int)lround(stops[i][k] + f * (stops[i + 1][k] - stops[i][k]));
    snprintf(out, 8, "#%02x%02x%02x", c[0], c[1], c[2]);
}

/* Wavefront colours: the Okabe-Ito colour-blind-safe set for up to 8, viridis beyond. */
static void wave_colour(int wave, int total, char out[8])
{
    static const char *const base[] = {"#0072b2", "#e69f00", "#009e73", "#cc79a7",
                                       "#56b4e9", "#d55e00", "#8c6d1f", "#555555"};
    if (total <= 8) {
        snprintf(out, 8, "%s", base[wave % 8]);
        return;
    }
    viridis(total > 1 ? (double)wave / (total - 1) : 0.0, out);
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
        const char *fill = n == 0 ? "#f4f4f4" : n == 1 ? "#d6e6f4" : "#f6c28b"; /* blue/orange, not red/green */
        fprintf(o, "<rect x=\"%.1f\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"3\" fill=\"%s\" "
                   "stroke=\"#777\" stroke-width=\"0.8\"/>\n", cell_x(b), Y_BANK, BOX, BOX_H, fill);
        fprintf(o, "<text x=\"%.1f\" y=\"%d\" fill=\"#000\">%d</text>\n", cell_mid(b),
                Y_BANK + 16, b);
        if (n > 0)
            fprintf(o, "<text x=\"%.1f\" y=\"%d\" fill=\"%s\"%s>%d</text>\n", cell_mid(b),
                    Y_BANK + BOX_H + 17, n > 1 ? "#8a3b00" : "#333",
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

/* ------------------------------------------------------------ diagrams */

/*
 * The other pictures: a tile coloured by bank with one warp's cells
 * outlined (the bank of every cell and the warp's cells come from the
 * model, as above), and the geometry of the matrix-product and convolution
 * tiles. Each writes one SVG and a one-line summary for model.txt.
 */
typedef struct diagram {
    const char *name;
    int (*draw)(const struct diagram *d, FILE *o, char *summary, size_t n);
    /* tile maps */
    tile_access tile;
    int bdimx, bdimy, warp;
    const char *title;
    int quiz; /* 1: shown before the exercise, so the caption asks instead of telling */
} diagram;

#define OKABE_BLUE "#0072b2"
#define OKABE_ORANGE "#e69f00"
#define OKABE_GREEN "#009e73"
#define OKABE_PINK "#cc79a7"
#define OKABE_SKY "#56b4e9"
#define OKABE_VERMILION "#d55e00"
#define GHOST_FILL "url(#ghost)"

static void svg_open(FILE *o, int w, int h, const char *title, const char *desc)
{
    fprintf(o, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    fprintf(o, "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" width=\"%d\" "
               "height=\"%d\" role=\"img\" aria-labelledby=\"title desc\" "
               "font-family=\"'DejaVu Sans', 'Segoe UI', Helvetica, Arial, sans-serif\">\n",
            w, h, w, h);
    fprintf(o, "<title id=\"title\">");
    xml_text(o, title);
    fprintf(o, "</title>\n<desc id=\"desc\">");
    xml_text(o, desc);
    fprintf(o, " Generated by docs/tools/bankmap.c.</desc>\n");
    /* ghost cells: grey with diagonal hatching, told apart without colour */
    fprintf(o, "<defs><pattern id=\"ghost\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
               "patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"#e4e4e4\"/>"
               "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#8a8a8a\" stroke-width=\"2\"/>"
               "</pattern></defs>\n");
    fprintf(o, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n", w, h);
}

static void svg_text(FILE *o, double x, double y, int size, const char *anchor, const char *extra,
                     const char *text)
{
    int own_fill = extra != NULL && strstr(extra, "fill=") != NULL;
    fprintf(o, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%d\" text-anchor=\"%s\"%s%s%s>", x, y,
            size, anchor, own_fill ? "" : " fill=\"#1a1a1a\"", extra ? " " : "", extra ? extra : "");
    xml_text(o, text);
    fprintf(o, "</text>\n");
}

static void svg_rect(FILE *o, double x, double y, double w, double h, const char *fill,
                     const char *stroke, double sw)
{
    fprintf(o, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\" stroke=\"%s\" "
               "stroke-width=\"%.1f\"/>\n", x, y, w, h, fill, stroke, sw);
}

/* --- a tile coloured by bank, one warp outlined (labs 1, 3, 4) --- */
static int draw_tile_map(const diagram *d, FILE *o, char *summary, size_t n)
{
    bank_geometry g;
    if (bank_geometry_for(9, 0, 32, 0, &g) != 0)
        return -1;
    int rows = d->tile.order == TILE_COL ? d->bdimx : d->bdimy;
    int cols = d->tile.order == TILE_COL ? d->bdimy : d->bdimx;
    int pitch = d->tile.pitch;
    if (pitch < cols || rows > 64 || pitch > 64)
        return -1;
    warp_access w;
    tile_warp_access(&g, &d->tile, d->bdimx, d->bdimy, 4, 1, d->warp, &w);
    int waves = bank_wavefronts(&g, &w), ideal = bank_ideal_wavefronts(&g, &w);
    smem_cost one = {1, waves, ideal};
    char deg[48], l1[256];
    degree_words(smem_degree(&one), deg, sizeof deg);

    unsigned char mine[64][64] = {{0}};
    int lane_at[64][64];
    for (int lane = 0; lane < g.warp_size; lane++) {
        if (!(w.active >> lane & 1u))
            continue;
        long off = (long)(w.addr[lane] / 4u);
        int r = (int)(off / pitch), c = (int)(off % pitch);
        if (r < 0 || r >= rows)
            return -1;
        mine[r][c] = 1;
        lane_at[r][c] = lane;
    }
    const int CW = 22, CH = 20, X0 = 64, Y0 = 84;
    int fw = X0 + pitch * CW + 30, fh = Y0 + rows * CH + 112;
    if (fw < 760)
        fw = 760;
    if (d->quiz)
        snprintf(l1, sizeof l1, "Outlined: the cells warp %d touches. How many wavefronts does it "
                 "take? Count the lanes per bank.", d->warp);
    else
        snprintf(l1, sizeof l1, "Outlined: the cells warp %d touches. Model: %d wavefront%s (%d "
                 "without conflicts), %s.", d->warp, waves, waves == 1 ? "" : "s", ideal, deg);
    snprintf(summary, n, "%d wavefronts / %d ideal  %s", waves, ideal, deg);
    svg_open(o, fw, fh, d->title, l1);
    svg_text(o, 14, 26, 17, "start", "font-weight=\"bold\"", d->title);
    svg_text(o, 14, 48, 13, "start", NULL,
             "Each cell is one int of the tile, coloured by its bank (the number in it); "
             "hatched grey: pad columns.");
    /* column numbers every 4, row numbers every 2 */
    for (int c = 0; c < pitch; c += 4) {
        char t[8];
        snprintf(t, sizeof t, "%d", c);
        svg_text(o, X0 + c * CW + CW / 2.0, Y0 - 8, 11, "middle", "fill=\"#555\"", t);
    }
    svg_text(o, X0 - 8, Y0 - 8, 11, "end", "fill=\"#555\"", "col");
    for (int r = 0; r < rows; r += (rows > 16 ? 2 : 1)) {
        char t[8];
        snprintf(t, sizeof t, "%d", r);
        svg_text(o, X0 - 8, Y0 + r * CH + 14, 11, "end", "fill=\"#555\"", t);
    }
    fprintf(o, "<g font-size=\"9\" text-anchor=\"middle\">\n");
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < pitch; c++) {
            double x = X0 + c * CW, y = Y0 + r * CH;
            if (c >= cols) {
                svg_rect(o, x, y, CW, CH, GHOST_FILL, "#ffffff", 0.6);
                continue;
            }
            char fill[8];
            int bank = bank_of(&g, (uint32_t)((r * pitch + c) * 4));
            viridis(bank / 31.0, fill);
            svg_rect(o, x, y, CW, CH, fill, "#ffffff", 0.6);
            fprintf(o, "<text x=\"%.1f\" y=\"%.1f\" fill=\"%s\">%d</text>\n", x + CW / 2.0,
                    y + 13.5, text_on(fill), bank);
        }
    fprintf(o, "</g>\n");
    /* the warp: a black frame with a white inner line, readable on every colour */
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < pitch; c++)
            if (mine[r][c]) {
                double x = X0 + c * CW, y = Y0 + r * CH;
                svg_rect(o, x + 1.5, y + 1.5, CW - 3, CH - 3, "none", "#000000", 3);
                svg_rect(o, x + 3.5, y + 3.5, CW - 7, CH - 7, "none", "#ffffff", 1);
            }
    (void)lane_at;
    /* legend: the bank colours */
    int ly = Y0 + rows * CH + 30;
    svg_text(o, 14, ly + 11, 13, "start", NULL, "bank");
    for (int b = 0; b < 32; b++) {
        char fill[8], t[8];
        viridis(b / 31.0, fill);
        svg_rect(o, 60 + b * 20, ly, 20, 14, fill, "none", 0);
        if (b % 4 == 0 || b == 31) {
            snprintf(t, sizeof t, "%d", b);
            svg_text(o, 70 + b * 20, ly + 28, 10, "middle", "fill=\"#555\"", t);
        }
    }
    svg_text(o, 14, ly + 58, 14, "start", "font-weight=\"bold\"", l1);
    fprintf(o, "</svg>\n");
    return ferror(o) ? -1 : 0;
}

/* --- lab 5: the phases of the tiled product --- */
static const char *const phase_colour[] = {OKABE_BLUE, OKABE_ORANGE, OKABE_GREEN, OKABE_PINK};

static void tile_grid(FILE *o, double x, double y, int nr, int nc, double cs, const char *label)
{
    for (int r = 0; r < nr; r++)
        for (int c = 0; c < nc; c++)
            svg_rect(o, x + c * cs, y + r * cs, cs, cs, "#f4f4f4", "#9a9a9a", 1);
    svg_text(o, x + nc * cs / 2, y - 8, 15, "middle", "font-weight=\"bold\"", label);
}

static int draw_matmul_phases(const diagram *d, FILE *o, char *summary, size_t n)
{
    (void)d;
    const int T = 4; /* tiles along each dimension */
    const double cs = 46;
    const double ax = 40, ay = 300, bx = 300, by = 70, cx = 300, cy = 300;
    const int brow = 1, bcol = 2; /* the block: blockIdx.y = 1, blockIdx.x = 2 */
    int fw = 980, fh = 560;
    svg_open(o, fw, fh, "The tiled matrix product, phase by phase",
             "Block (1, 2) of C walks along K: in phase p it loads tile (1, p) of A and "
             "tile (p, 2) of B into shared memory.");
    svg_text(o, 14, 26, 17, "start", "font-weight=\"bold\"",
             "matmulTiled: block (blockIdx.y, blockIdx.x) = (1, 2) computes one TILE " TIMES
             " TILE tile of C");
    tile_grid(o, ax, ay, T, T, cs, "A  (M " TIMES " K)");
    tile_grid(o, bx, by, T, T, cs, "B  (K " TIMES " N)");
    tile_grid(o, cx, cy, T, T, cs, "C  (M " TIMES " N)");
    for (int p = 0; p < T; p++) {
        char t[16];
        snprintf(t, sizeof t, "p%d", p);
        svg_rect(o, ax + p * cs, ay + brow * cs, cs, cs, phase_colour[p], "#1a1a1a", 1.5);
        char fillattr[48];
        snprintf(fillattr, sizeof fillattr, "fill=\"%s\" font-weight=\"bold\"", text_on(phase_colour[p]));
        svg_text(o, ax + p * cs + cs / 2, ay + brow * cs + 29, 15, "middle", fillattr, t);
        svg_rect(o, bx + bcol * cs, by + p * cs, cs, cs, phase_colour[p], "#1a1a1a", 1.5);
        svg_text(o, bx + bcol * cs + cs / 2, by + p * cs + 29, 15, "middle", fillattr, t);
    }
    svg_rect(o, cx + bcol * cs, cy + brow * cs, cs, cs, "#1a1a1a", "#1a1a1a", 1.5);
    svg_text(o, cx + bcol * cs + cs / 2, cy + brow * cs + 29, 13, "middle",
             "fill=\"#ffffff\" font-weight=\"bold\"", "C tile");
    svg_text(o, ax + T * cs / 2, ay + T * cs + 24, 13, "middle", NULL, "K " "\xe2\x86\x92");
    svg_text(o, bx - 12, by + T * cs / 2, 13, "end", NULL, "K " "\xe2\x86\x93");
    /* the steps, on the right */
    double tx = 540;
    svg_text(o, tx, 92, 15, "start", "font-weight=\"bold\"", "Phase p = 0, 1, 2, 3 (K / TILE phases):");
    static const char *const steps[] = {
        "1. every thread copies one element of A tile (1, p)",
        "    into As and one of B tile (p, 2) into Bs",
        "2. __syncthreads(): the tiles are complete",
        "3. each thread adds TILE products:",
        "    its row of As times its column of Bs",
        "4. __syncthreads(): nobody still reads As, Bs",
        "    when the next phase overwrites them",
        "",
        "Each element of A and B is loaded from global",
        "memory once per block and used TILE times from",
        "shared memory: TILE times fewer global loads.",
        "A tile that sticks out of A or B is filled",
        "with zeros (they add nothing to the sum).",
    };
    for (int i = 0; i < (int)(sizeof steps / sizeof steps[0]); i++)
        svg_text(o, tx, 120 + i * 22, 14, "start", "xml:space=\"preserve\"", steps[i]);
    /* shared-memory boxes */
    svg_rect(o, tx, 420, 120, 90, "#ffffff", "#1a1a1a", 1.5);
    svg_rect(o, tx + 160, 420, 120, 90, "#ffffff", "#1a1a1a", 1.5);
    svg_text(o, tx + 60, 470, 14, "middle", NULL, "As[TILE][TILE]");
    svg_text(o, tx + 220, 470, 14, "middle", NULL, "Bs[TILE][TILE]");
    svg_text(o, tx + 140, 535, 13, "middle", "fill=\"#444\"",
             "shared memory: one A tile and one B tile at a time");
    snprintf(summary, n, "%d phases, block (%d, %d)", T, brow, bcol);
    fprintf(o, "</svg>\n");
    return ferror(o) ? -1 : 0;
}

/* --- lab 5 step 3: block tile against thread tile --- */
static int draw_coarse_tiles(const diagram *d, FILE *o, char *summary, size_t n)
{
    (void)d;
    const int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8;
    const double s = 2.5; /* pixels per element */
    const double cx = 150, cy = 150;
    const int tr = 5, tc = 9; /* the thread drawn: row 5, column 9 of the thread grid */
    int fw = 980, fh = 590;
    svg_open(o, fw, fh, "Step 3: a block tile of C and the thread tiles in it",
             "A 128 x 128 block tile of C split into 16 x 16 thread tiles of 8 x 8; one thread "
             "reads 8 values of As and 8 of Bs per k and does 64 multiply-adds.");
    svg_text(o, 14, 26, 17, "start", "font-weight=\"bold\"",
             "matmulCoarse: block tile BM " TIMES " BN = 128 " TIMES " 128, thread tile TM "
             TIMES " TN = 8 " TIMES " 8, BK = 8");
    /* As (BM x BK) to the left, Bs (BK x BN) above */
    svg_rect(o, cx - BK * s * 3 - 20, cy, BK * s * 3, BM * s, "#f4f4f4", "#777", 1);
    svg_text(o, cx - BK * s * 1.5 - 20, cy - 8, 13, "middle", NULL, "As (3" TIMES " wider)");
    svg_rect(o, cx, cy - BK * s * 3 - 20, BN * s, BK * s * 3, "#f4f4f4", "#777", 1);
    svg_text(o, cx + BN * s / 2, cy - BK * s * 3 - 28, 13, "middle", NULL,
             "Bs: BK " TIMES " BN (drawn 3" TIMES " taller)");
    /* the thread's rows of As and columns of Bs */
    svg_rect(o, cx - BK * s * 3 - 20, cy + tr * TM * s, BK * s * 3, TM * s, OKABE_ORANGE, "#1a1a1a", 1);
    svg_rect(o, cx + tc * TN * s, cy - BK * s * 3 - 20, TN * s, BK * s * 3, OKABE_SKY, "#1a1a1a", 1);
    /* C block tile with its thread grid */
    svg_rect(o, cx, cy, BN * s, BM * s, "#ffffff", "#1a1a1a", 1.5);
    for (int i = 1; i < BM / TM; i++)
        fprintf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#c8c8c8\"/>\n",
                cx, cy + i * TM * s, cx + BN * s, cy + i * TM * s);
    for (int j = 1; j < BN / TN; j++)
        fprintf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#c8c8c8\"/>\n",
                cx + j * TN * s, cy, cx + j * TN * s, cy + BM * s);
    /* step 2's thread tile for comparison: 1 x 1 in a 16 x 16 block tile (top-left corner) */
    svg_rect(o, cx, cy, 16 * s, 16 * s, "none", OKABE_GREEN, 2.5);
    svg_rect(o, cx + tc * TN * s, cy + tr * TM * s, TN * s, TM * s, OKABE_PINK, "#1a1a1a", 1.5);
    /* zoom of the thread tile */
    double zx = 560, zy = 190, zc = 22;
    svg_text(o, zx + 4 * zc, zy - zc - 22, 14, "middle", "font-weight=\"bold\"",
             "one thread: float acc[8][8] in registers");
    for (int i = 0; i < TM; i++)
        for (int j = 0; j < TN; j++)
            svg_rect(o, zx + j * zc, zy + i * zc, zc, zc, OKABE_PINK, "#ffffff", 1);
    for (int i = 0; i < TM; i++)
        svg_rect(o, zx - zc - 8, zy + i * zc, zc, zc, OKABE_ORANGE, "#ffffff", 1);
    for (int j = 0; j < TN; j++)
        svg_rect(o, zx + j * zc, zy - zc - 8, zc, zc, OKABE_SKY, "#ffffff", 1);
    fprintf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#1a1a1a\" "
               "stroke-dasharray=\"4 3\"/>\n", cx + (tc + 1) * TN * s, cy + tr * TM * s, zx, zy);
    static const char *const notes[] = {
        "At each k of the BK steps a thread reads",
        "8 values of As (orange) and 8 of Bs (blue)",
        "into registers and does 8 " TIMES " 8 = 64 multiply-adds",
        "into its tile (pink): 64 FMAs for 16 shared reads",
        "(step 2: 1 FMA for 2 shared reads).",
        "",
        "Green square: the whole block tile of step 2",
        "(16 " TIMES " 16 outputs, one per thread), to scale.",
        "Step 3: 256 threads, 64 outputs each.",
    };
    for (int i = 0; i < (int)(sizeof notes / sizeof notes[0]); i++)
        svg_text(o, 540, 398 + i * 21, 14, "start", NULL, notes[i]);
    snprintf(summary, n, "block %dx%d, thread %dx%d, BK %d", BM, BN, TM, TN, BK);
    fprintf(o, "</svg>\n");
    return ferror(o) ? -1 : 0;
}

/* --- lab 6: input tile, halo and ghost cells --- */
static void halo_legend(FILE *o, double x, double y)
{
    svg_rect(o, x, y, 18, 14, OKABE_BLUE, "#1a1a1a", 0.8);
    svg_text(o, x + 24, y + 12, 13, "start", NULL, "the block's outputs (its tile)");
    svg_rect(o, x + 250, y, 18, 14, OKABE_ORANGE, "#1a1a1a", 0.8);
    svg_text(o, x + 274, y + 12, 13, "start", NULL, "halo: inputs of neighbouring tiles");
    svg_rect(o, x + 530, y, 18, 14, GHOST_FILL, "#1a1a1a", 0.8);
    svg_text(o, x + 554, y + 12, 13, "start", NULL, "ghost cells: outside, read as 0");
}

static int draw_conv1d_halo(const diagram *d, FILE *o, char *summary, size_t n)
{
    (void)d;
    const int N = 24, TILE = 8, R = 2;
    const double cs = 28, x0 = 150 + R * cs;
    int fw = 980, fh = 330;
    svg_open(o, fw, fh, "1-D tiled convolution: each block's inputs are its tile plus a halo",
             "Signal of 24 elements, tiles of 8 outputs, mask width 5 (r = 2): each block loads "
             "8 + 4 inputs; block 0 and block 2 reach outside the signal (ghost cells).");
    svg_text(o, 14, 26, 17, "start", "font-weight=\"bold\"",
             "conv1dTiled with TILE1D = 8 and mask_width = 5 (r = 2): inputs of each block");
    svg_text(o, 140, 72, 13, "end", NULL, "signal index");
    for (int i = 0; i < N; i++) {
        char t[8];
        snprintf(t, sizeof t, "%d", i);
        svg_rect(o, x0 + i * cs, 56, cs, 24, "#f4f4f4", "#9a9a9a", 1);
        svg_text(o, x0 + i * cs + cs / 2, 73, 11, "middle", NULL, t);
    }
    for (int b = 0; b < N / TILE; b++) {
        double y = 110 + b * 50;
        char t[32];
        snprintf(t, sizeof t, "block %d", b);
        svg_text(o, 140, y + 18, 13, "end", NULL, t);
        for (int i = b * TILE - R; i < (b + 1) * TILE + R; i++) {
            int ghost = i < 0 || i >= N, own = i >= b * TILE && i < (b + 1) * TILE;
            svg_rect(o, x0 + i * cs, y, cs, 26, ghost ? GHOST_FILL : own ? OKABE_BLUE : OKABE_ORANGE,
                     "#1a1a1a", 0.8);
        }
    }
    halo_legend(o, 14, 272);
    svg_text(o, 14, 314, 14, "start", "font-weight=\"bold\"",
             "Each block loads TILE1D + mask_width - 1 = 12 inputs for 8 outputs; the halos are "
             "loaded twice, by both neighbours.");
    snprintf(summary, n, "n %d, tile %d, r %d", N, TILE, R);
    fprintf(o, "</svg>\n");
    return ferror(o) ? -1 : 0;
}

static int draw_conv2d_halo(const diagram *d, FILE *o, char *summary, size_t n)
{
    (void)d;
    const int IW = 18, IH = 13, TILE = 4, R = 2;
    const double cs = 26, x0 = 80 + R * cs, y0 = 80 + R * cs;
    int fw = 980, fh = 560;
    svg_open(o, fw, fh, "2-D tiled convolution: input square, halo and ghost cells",
             "An 18 x 13 image, tiles of 4 x 4 outputs, a 5 x 5 mask (r = 2): each block loads an "
             "8 x 8 input square; the corner block reaches outside the image.");
    svg_text(o, 14, 26, 17, "start", "font-weight=\"bold\"",
             "conv2dTiled with TILE2D = 4 and a 5 " TIMES " 5 mask (r = 2): two blocks' input squares");
    for (int y = 0; y < IH; y++)
        for (int x = 0; x < IW; x++)
            svg_rect(o, x0 + x * cs, y0 + y * cs, cs, cs, "#f4f4f4", "#b0b0b0", 0.8);
    const int blocks[2][2] = {{0, 0}, {3, 1}}; /* (bx, by): a corner and an inner block */
    for (int k = 0; k < 2; k++) {
        int bx = blocks[k][0], by = blocks[k][1];
        for (int y = by * TILE - R; y < (by + 1) * TILE + R; y++)
            for (int x = bx * TILE - R; x < (bx + 1) * TILE + R; x++) {
                int ghost = x < 0 || y < 0 || x >= IW || y >= IH;
                int own = x >= bx * TILE && x < (bx + 1) * TILE && y >= by * TILE &&
                          y < (by + 1) * TILE;
                svg_rect(o, x0 + x * cs, y0 + y * cs, cs, cs,
                         ghost ? GHOST_FILL : own ? OKABE_BLUE : OKABE_ORANGE, "#1a1a1a", 0.8);
            }
        char t[48];
        snprintf(t, sizeof t, "block (%d, %d)", bx, by);
        svg_text(o, x0 + (bx * TILE + TILE / 2.0) * cs, y0 + (by * TILE + TILE / 2.0) * cs + 5, 12,
                 "middle", "fill=\"#ffffff\" font-weight=\"bold\"", t);
    }
    svg_rect(o, x0, y0, IW * cs, IH * cs, "none", "#1a1a1a", 2);
    svg_text(o, x0 + IW * cs / 2, y0 + IH * cs + 22, 13, "middle", NULL,
             "the image (18 " TIMES " 13 pixels); outside it, ghost cells");
    halo_legend(o, 14, 505);
    svg_text(o, 14, 545, 14, "start", "font-weight=\"bold\"",
             "Each block loads (TILE2D + mask_width - 1)\xc2\xb2 = 64 inputs for 16 outputs "
             "(TILE2D = 32, 7 " TIMES " 7 mask: 1444 for 1024).");
    snprintf(summary, n, "image %dx%d, tile %d, r %d", IW, IH, TILE, R);
    fprintf(o, "</svg>\n");
    return ferror(o) ? -1 : 0;
}

/* --- lab 7: the reduction tree, warp 0's banks at each level --- */
static int draw_reduce_tree(int interleaved, FILE *o, char *summary, size_t n)
{
    bank_geometry g;
    tree_cost cost;
    const int dim = 256;
    if (bank_geometry_for(9, 0, 32, 0, &g) != 0 || reduce_tree_model(&g, dim, interleaved, &cost))
        return -1;
    const double cs = 26, x0 = 132, row = 50, y0 = 96;
    int fw = 980, fh = (int)(y0 + cost.levels * row + 82);
    char t[200], d[400];
    snprintf(t, sizeof t, "The %s tree of a block of %d threads: warp 0's loads, level by level",
             interleaved ? "interleaved" : "sequential", dim);
    snprintf(d, sizeof d, "For each level (stride) of the tree, the bank each lane of warp 0 reads "
             "(smem[%s + stride]) and the wavefront the bank model serves it in; grey lanes sit "
             "the level out.", interleaved ? "2 * stride * tid" : "tid");
    svg_open(o, fw, fh, t, d);
    svg_text(o, 14, 26, 17, "start", "font-weight=\"bold\"", interleaved
             ? "Interleaved: if (index < DIM) smem[index] += smem[index + stride], index = 2 * stride * tid"
             : "Sequential: if (tid < stride) smem[tid] += smem[tid + stride], stride halving");
    svg_text(o, 14, 50, 13, "start", NULL, "Each box is a lane of warp 0 at one level: the "
             "number is the bank of the word smem[... + stride] it reads, the colour the "
             "wavefront that serves it.");
    for (int lane = 0; lane < 32; lane++) {
        snprintf(t, sizeof t, "%d", lane);
        svg_text(o, x0 + lane * cs + cs / 2, y0 - 8, 10, "middle", NULL, t);
    }
    svg_text(o, x0 - 10, y0 - 8, 11, "end", NULL, "lane");
    long waves_total = 0;
    for (int l = 0; l < cost.levels; l++) {
        const tree_level *L = &cost.level[l];
        warp_access a;
        int wave[BANK_MAX_LANES];
        reduce_tree_access(dim, interleaved, L->stride, 1, 0, &a);
        int total = bank_lane_wavefronts(&g, &a, wave);
        int ideal = bank_ideal_wavefronts(&g, &a);
        double y = y0 + l * row;
        snprintf(t, sizeof t, "stride %d", L->stride);
        svg_text(o, x0 - 10, y + 17, 13, "end", "font-weight=\"bold\"", t);
        for (int lane = 0; lane < 32; lane++) {
            char fill[8] = "#eeeeee";
            int on = a.active >> lane & 1u;
            if (on)
                wave_colour(wave[lane], total, fill);
            svg_rect(o, x0 + lane * cs + 1, y, cs - 2, 24, fill, "#7a7a7a", 0.6);
            if (on) {
                char b[8], style[40];
                snprintf(b, sizeof b, "%d", bank_of(&g, a.addr[lane]));
                snprintf(style, sizeof style, "fill=\"%s\"", text_on(fill));
                svg_text(o, x0 + lane * cs + cs / 2, y + 16, 11, "middle", style, b);
            }
        }
        snprintf(t, sizeof t, "%d lane%s of warp 0 and %d warp%s in all take part: %d wavefront%s "
                 "for %d (%s)", L->lanes, L->lanes == 1 ? "" : "s", L->warps,
                 L->warps == 1 ? "" : "s", total, total == 1 ? "" : "s", ideal,
                 total == ideal ? "conflict-free" : "");
        if (total != ideal) {
            char deg[32];
            snprintf(deg, sizeof deg, "%d-way conflict", total / (ideal > 0 ? ideal : 1));
            snprintf(t + strlen(t) - 1, sizeof t - strlen(t) + 1, "%s)", deg);
        }
        svg_text(o, x0, y + 39, 12, "start", NULL, t);
        waves_total += total;
    }
    double yb = y0 + cost.levels * row + 18;
    snprintf(t, sizeof t, "All warps of a block, all levels: %ld load requests needing %ld "
             "wavefronts where %ld would do, %ld store requests;", cost.ld_requests,
             cost.ld_wavefronts, cost.ld_ideal, cost.st_requests);
    svg_text(o, 14, yb + 6, 13, "start", NULL, t);
    if (interleaved)
        snprintf(t, sizeof t, "with the tile's fill and the read of the sum: %ld shared requests, "
                 "loads %.2f-way (%.2f-way where nvcc merges stride 1's pair into one 8-byte load).",
                 cost.block_requests, reduce_tree_load_degree(&cost),
                 reduce_tree_load_degree_merged(&cost));
    else
        snprintf(t, sizeof t, "with the tile's fill and the read of the sum: %ld shared requests, "
                 "loads %.2f-way (what the grader expects of this tree).", cost.block_requests,
                 reduce_tree_load_degree(&cost));
    svg_text(o, 14, yb + 24, 13, "start", NULL, t);
    svg_text(o, 14, yb + 50, 14, "start", "font-weight=\"bold\"", interleaved
             ? "Lane t reads word 2 * stride * t: the lanes crowd into fewer banks as the stride grows."
             : "Active lanes are the first ones, on consecutive words: every level conflict-free.");
    snprintf(summary, n, "dim %d: %ld load wavefronts / %ld ideal, warp 0 %ld, %ld requests a "
             "block", dim, cost.ld_wavefronts, cost.ld_ideal, waves_total, cost.block_requests);
    fprintf(o, "</svg>\n");
    return ferror(o) ? -1 : 0;
}

static int draw_reduce_sequential(const struct diagram *d, FILE *o, char *summary, size_t n)
{
    (void)d;
    return draw_reduce_tree(0, o, summary, n);
}

static int draw_reduce_interleaved(const struct diagram *d, FILE *o, char *summary, size_t n)
{
    (void)d;
    return draw_reduce_tree(1, o, summary, n);
}

/* --- lab 8: the shuffles, lane to lane --- */
static int draw_shuffles(const struct diagram *d, FILE *o, char *summary, size_t n)
{
    (void)d;
    static const struct {
        reduce_exercise ex;
        int param;
        const char *code, *words;
    } panels[] = {
        {EXERCISE_BROADCAST, 5, "__shfl_sync(mask, v, 5, 32)", "broadcast: every lane reads lane 5"},
        {EXERCISE_UP, 2, "__shfl_up_sync(mask, v, 2, 32)", "shift up: lane t reads t - 2; lanes 0, 1 keep theirs"},
        {EXERCISE_DOWN, 2, "__shfl_down_sync(mask, v, 2, 32)", "shift down: lane t reads t + 2; lanes 30, 31 keep theirs"},
        {EXERCISE_WRAP, 2, "__shfl_sync(mask, v, t + 2, 32)", "wrap-around: lane t reads (t + 2) % 32"},
        {EXERCISE_XOR, 1, "__shfl_xor_sync(mask, v, 1, 32)", "butterfly: lane t reads t ^ 1 (pairs swap)"},
        {EXERCISE_XOR, 16, "__shfl_xor_sync(mask, v, 16, 32)", "butterfly: lane t reads t ^ 16 (halves swap)"},
    };
    const int np = (int)(sizeof panels / sizeof panels[0]);
    const double cs = 28, x0 = 60, ph = 118, y0 = 60;
    int fw = 980, fh = (int)(y0 + np * ph + 30);
    svg_open(o, fw, fh, "Warp shuffles: which lane each lane reads",
             "Six shuffles of lab 8 on one warp: each arrow goes from the lane whose register is "
             "read (top row) to the lane that receives the value (bottom row).");
    svg_text(o, 14, 26, 17, "start", "font-weight=\"bold\"",
             "Each shuffle: every lane reads one lane's register, in one instruction, no shared memory");
    fprintf(o, "<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" "
               "markerWidth=\"5\" markerHeight=\"5\" orient=\"auto-start-reverse\"><path "
               "d=\"M 0 0 L 10 5 L 0 10 z\" fill=\"%s\"/></marker></defs>\n", OKABE_BLUE);
    int moved = 0;
    for (int p = 0; p < np; p++) {
        int32_t in[32], out[32];
        for (int t = 0; t < 32; t++)
            in[t] = t;
        ref_shuffle(panels[p].ex, panels[p].param, in, out);
        double y = y0 + p * ph;
        char t[160];
        snprintf(t, sizeof t, "%s  -  %s", panels[p].code, panels[p].words);
        svg_text(o, 14, y + 4, 13, "start", "font-weight=\"bold\"", t);
        for (int r = 0; r < 2; r++)
            for (int lane = 0; lane < 32; lane++) {
                double yy = y + 14 + r * 70;
                svg_rect(o, x0 + lane * cs + 2, yy, cs - 4, 18, r ? "#f4f4f4" : "#dde8f3", "#7a7a7a",
                         0.6);
                snprintf(t, sizeof t, "%d", lane);
                svg_text(o, x0 + lane * cs + cs / 2, yy + 13, 10, "middle", NULL, t);
            }
        for (int lane = 0; lane < 32; lane++) {
            int src = out[lane];
            double xs = x0 + src * cs + cs / 2, xd = x0 + lane * cs + cs / 2;
            const char *colour = src == lane ? "#9a9a9a" : OKABE_BLUE;
            moved += src != lane;
            fprintf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                       "stroke-width=\"1.1\" marker-end=\"url(#arrow)\"/>\n", xs, y + 33, xd,
                    y + 82, colour);
        }
        svg_text(o, x0 - 8, y + 28, 10, "end", NULL, "from");
        svg_text(o, x0 - 8, y + 98, 10, "end", NULL, "to");
    }
    snprintf(summary, n, "%d panels, %d values moved", np, moved);
    fprintf(o, "</svg>\n");
    return ferror(o) ? -1 : 0;
}

/* --- lab 9: a warp's global accesses over 32-byte sectors --- */
static int draw_sectors(const struct diagram *d, FILE *o, char *summary, size_t n)
{
    (void)d;
    /* nx = ny = 1024 floats; warp 0 of block (0, 0): tx = lane (ty 0), or bidx = lane */
    static const struct {
        const char *code, *words;
        int kind; /* 0: a row segment, 1: a column, 2: two half rows (the tile's store) */
    } panels[] = {
        {"in[iy * nx + ix]", "copyRow, naiveRow, the tile's load: a row, 32 neighbouring floats", 0},
        {"out[ix * ny + iy]", "naiveRow's store: a column of out, ny = 1024 floats between lanes", 1},
        {"out[oy * ny + ox]", "the tile's store: rows irow = 0 and 1 of the block's piece, 16 floats each", 2},
    };
    const int np = (int)(sizeof panels / sizeof panels[0]);
    static const char *const colours[] = {OKABE_BLUE, OKABE_ORANGE, OKABE_GREEN, OKABE_PINK,
                                          OKABE_SKY, OKABE_VERMILION};
    const double cs = 28, x0 = 60, ph = 96, y0 = 70;
    int fw = 980, fh = (int)(y0 + np * ph + 20);
    svg_open(o, fw, fh, "A warp's global accesses over 32-byte sectors",
             "Three float accesses of warp 0 in lab 9: each box is a lane, the number the 32-byte "
             "sector its float falls in (numbered in address order), the colour the same.");
    svg_text(o, 14, 26, 17, "start", "font-weight=\"bold\"",
             "A warp's load or store is served a 32-byte sector at a time");
    svg_text(o, 14, 48, 13, "start", NULL, "Each box is a lane of warp 0; the number is the "
             "sector its 4-byte float falls in, sectors numbered in address order.");
    char t[200];
    int counts[3];
    for (int p = 0; p < np; p++) {
        global_access a;
        memset(&a, 0, sizeof a);
        a.active = 0xFFFFFFFFu;
        a.width = 4;
        for (int lane = 0; lane < 32; lane++) {
            uint64_t e = panels[p].kind == 0 ? (uint64_t)lane
                         : panels[p].kind == 1 ? (uint64_t)lane * 1024
                                               : (uint64_t)(lane / 16) * 1024 + (uint64_t)(lane % 16);
            a.addr[lane] = 4 * e;
        }
        int num[SECTOR_LANES];
        int total = sector_lane_numbers(&a, num);
        counts[p] = total;
        double y = y0 + p * ph;
        snprintf(t, sizeof t, "%s  -  %s: %d sector%s (ideal %d)", panels[p].code, panels[p].words,
                 total, total == 1 ? "" : "s", sector_ideal(&a));
        svg_text(o, 14, y + 4, 13, "start", "font-weight=\"bold\"", t);
        for (int lane = 0; lane < 32; lane++) {
            double x = x0 + lane * cs;
            svg_rect(o, x + 2, y + 16, cs - 4, 24, colours[(num[lane] - 1) % 6], "#1a1a1a", 0.6);
            snprintf(t, sizeof t, "%d", num[lane]);
            svg_text(o, x + cs / 2, y + 33, 11, "middle", "fill=\"#ffffff\"", t);
            if (p == 0) {
                snprintf(t, sizeof t, "%d", lane);
                svg_text(o, x + cs / 2, y + 56, 9, "middle", "fill=\"#555555\"", t);
            }
        }
    }
    fprintf(o, "</svg>\n");
    snprintf(summary, n, "row %d sectors, column %d, the tile's store %d", counts[0], counts[1],
             counts[2]);
    return 0;
}

/* --- lab 10: one warp's constant request, a broadcast against a per-lane lookup --- */

/* Lanes on top, the array's words below (cells of width cw from x0), a line from each
   lane to its word coloured by the pass of the constant cache that serves it (passes in
   order of first appearance, as the distinct addresses). Returns the passes. */
static int constant_panel(FILE *o, double y, const int32_t *word, int words, double cw,
                          const char *code, const char *array)
{
    const double cs = 28, x0 = 60;
    int order[32], passes = 0;
    char t[200];
    for (int l = 0; l < 32; l++) {
        order[l] = -1;
        for (int k = 0; k < l && order[l] < 0; k++)
            if (word[k] == word[l])
                order[l] = order[k];
        if (order[l] < 0)
            order[l] = passes++;
    }
    svg_text(o, 14, y + 4, 13, "start", "font-weight=\"bold\"", code);
    for (int l = 0; l < 32; l++) {
        char fill[8], style[24];
        wave_colour(order[l], passes, fill);
        snprintf(style, sizeof style, "fill=\"%s\"", text_on(fill));
        svg_rect(o, x0 + l * cs + 2, y + 14, cs - 4, 18, fill, "#7a7a7a", 0.6);
        snprintf(t, sizeof t, "%d", l);
        svg_text(o, x0 + l * cs + cs / 2, y + 27, 10, "middle", style, t);
    }
    for (int w = 0; w < words; w++)
        svg_rect(o, x0 + w * cw, y + 110, cw, 16, "#f4f4f4", "#b0b0b0", 0.4);
    for (int l = 0; l < 32; l++) {
        char colour[8];
        wave_colour(order[l], passes, colour);
        fprintf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                   "stroke-width=\"1.1\"/>\n", x0 + l * cs + cs / 2, y + 33,
                x0 + word[l] * cw + cw / 2, y + 110, colour);
    }
    snprintf(t, sizeof t, "%s: %d words", array, words);
    svg_text(o, x0, y + 142, 11, "start", NULL, t);
    snprintf(t, sizeof t, "%d distinct address%s: %d pass%s of the constant cache%s", passes,
             passes == 1 ? "" : "es", passes, passes == 1 ? "" : "es, one after another",
             passes == 1 ? " (a broadcast)" : "");
    svg_text(o, x0 + 32 * cs, y + 142, 12, "end", "font-weight=\"bold\"", t);
    return passes;
}

static int draw_constant_paths(const struct diagram *d, FILE *o, char *summary, size_t n)
{
    (void)d;
    int32_t tap[32], keys[32];
    for (int l = 0; l < 32; l++)
        tap[l] = 3;
    lookup_keys(keys, 32, 256, PRNG_DEFAULT_SEED); /* the grader's keys, its default seed */
    int fw = 980, fh = 392;
    svg_open(o, fw, fh, "Constant memory: a broadcast against a per-lane lookup",
             "One warp's constant-memory request in lab 10: in the stencil every lane reads the "
             "same coefficient, served at once; in the lookup each lane reads the table entry "
             "of its own key, and the constant cache serves the distinct addresses one after "
             "another.");
    svg_text(o, 14, 24, 17, "start", "font-weight=\"bold\"",
             "The constant cache serves a warp's request one distinct address at a time");
    int one = constant_panel(o, 50, tap, 9, 28 * 32 / 9.0,
                             "stencil1DConst, tap j = 3: every lane reads c_coef[3]", "c_coef");
    int many = constant_panel(o, 210, keys, 256, 28 * 32 / 256.0,
                              "lookupConst: lane l reads c_table[keys[l]] (the grader's first 32 keys)",
                              "c_table");
    int sectors = 0;
    for (int l = 0; l < 32; l++) {
        int k = 0;
        while (k < l && keys[k] / 8 != keys[l] / 8)
            k++;
        sectors += k == l;
    }
    char t[200];
    snprintf(t, sizeof t, "Through the read-only cache (lookupReadOnly) the same %d addresses "
             "fall in %d 32-byte sectors, served together.", many, sectors);
    svg_text(o, 60, fh - 12, 12, "start", NULL, t);
    snprintf(summary, n, "broadcast %d pass, lookup %d passes (%d sectors read-only), model %.1f "
             "a warp", one, many, sectors, lookup_distinct_per_warp(keys, 32));
    fprintf(o, "</svg>\n");
    return ferror(o) ? -1 : 0;
}

#define TILEMAP(n, ord, pit, bx, by, warp, title) \
    {n, draw_tile_map, {.order = ord, .pitch = pit}, bx, by, warp, title, 0}
#define TILEQUIZ(n, ord, pit, bx, by, warp, title) \
    {n, draw_tile_map, {.order = ord, .pitch = pit}, bx, by, warp, title, 1}
#define DRAWING(n, fn) {n, fn, {.order = TILE_ROW, .pitch = 1}, 0, 0, 0, NULL, 0}

static const diagram diagrams[] = {
    TILEMAP("tile-row", TILE_ROW, 32, 32, 32, 5,
            "int tile[32][32], warp 5 (threadIdx.y = 5) reads tile[threadIdx.y][threadIdx.x]"),
    TILEMAP("tile-column", TILE_COL, 32, 32, 32, 5,
            "int tile[32][32], warp 5 (threadIdx.y = 5) reads tile[threadIdx.x][threadIdx.y]"),
    TILEMAP("tile-column-pad1", TILE_COL, 33, 32, 32, 5,
            "int tile[32][32 + 1], warp 5 reads tile[threadIdx.x][threadIdx.y]"),
    TILEMAP("tile-column-pad2", TILE_COL, 34, 32, 32, 5,
            "int tile[32][32 + 2], warp 5 reads tile[threadIdx.x][threadIdx.y]"),
    TILEQUIZ("tile-rect-irow", TILE_TRANSPOSED, 32, 32, 16, 0,
            "int tile[16][32], warp 0 reads tile[icol][irow]"),
    TILEMAP("tile-rect-irow-pad1", TILE_TRANSPOSED, 33, 32, 16, 0,
            "int tile[16][32 + 1], warp 0 reads tile[icol][irow]"),
    TILEMAP("tile-rect-irow-pad2", TILE_TRANSPOSED, 34, 32, 16, 0,
            "int tile[16][32 + 2], warp 0 reads tile[icol][irow]"),
    DRAWING("matmul-phases", draw_matmul_phases),
    DRAWING("coarse-tiles", draw_coarse_tiles),
    DRAWING("conv1d-halo", draw_conv1d_halo),
    DRAWING("conv2d-halo", draw_conv2d_halo),
    DRAWING("reduce-sequential", draw_reduce_sequential),
    DRAWING("reduce-interleaved", draw_reduce_interleaved),
    DRAWING("shuffles", draw_shuffles),
    DRAWING("sectors", draw_sectors),
    DRAWING("constant-paths", draw_constant_paths),
};
#define N_DIAGRAMS ((int)(sizeof diagrams / sizeof diagrams[0]))

/* ------------------------------------------------------------ main */

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--list") == 0) {
        for (int i = 0; i < N_FIGURES; i++)
            printf("%s\n", figures[i].name);
        for (int i = 0; i < N_DIAGRAMS; i++)
            printf("%s\n", diagrams[i].name);
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
    for (int i = 0; i < N_DIAGRAMS; i++) {
        const diagram *d = &diagrams[i];
        char path[4096], summary[256] = "";
        snprintf(path, sizeof path, "%s/%s.svg", argv[1], d->name);
        FILE *o = fopen(path, "w");
        if (!o) {
            fprintf(stderr, "bankmap: cannot write %s: %s\n", path, strerror(errno));
            return 1;
        }
        int bad = d->draw(d, o, summary, sizeof summary);
        if (fclose(o) != 0 || bad) {
            fprintf(stderr, "bankmap: error drawing %s\n", path);
            return 1;
        }
        printf("%-19s %s\n", d->name, summary);
    }
    return 0;
}
