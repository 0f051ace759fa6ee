/* report_svg.c - a warp access drawn as the course draws one; see report_svg.h. */
#include "report_svg.h"

#include <math.h>
#include <string.h>

#define TIMES "\xc3\x97" /* U+00D7 in UTF-8 */

void svg_escape(FILE *f, const char *s)
{
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        switch (ch) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default:
            if ((ch < 0x20 && ch != '\n' && ch != '\t') || ch == 0x7f)
                fputs("\xef\xbf\xbd", f); /* U+FFFD: never a raw control character */
            else
                fputc(ch, f);
        }
    }
}

/* --- colours: the course's (docs/tools/bankmap.c) -------------------------------------- */

/* viridis, t in [0, 1]: wavefront 1 and 32 never look alike, in colour or grey */
static void viridis(double t, char out[8])
{
    static const unsigned char stops[9][3] = {
        {0x44, 0x01, 0x54}, {0x47, 0x2c, 0x7a}, {0x3b, 0x51, 0x8b}, {0x2c, 0x71, 0x8e},
        {0x21, 0x90, 0x8d}, {0x27, 0xad, 0x81}, {0x5c, 0xc8, 0x63}, {0xaa, 0xdc, 0x32},
        {0xfd, 0xe7, 0x25}};
    t = t > 0.0 ? t < 1.0 ? t : 1.0 : 0.0;
    double x = t * 8.0;
    int i = x >= 8.0 ? 7 : (int)x;
    double frac = x - i;
    int c[3];
    for (int k = 0; k < 3; k++)
        c[k] = (int)lround(stops[i][k] + frac * (stops[i + 1][k] - stops[i][k]));
    snprintf(out, 8, "#%02x%02x%02x", c[0], c[1], c[2]);
}

/* The Okabe-Ito colour-blind-safe set for up to 8 wavefronts (or sectors), viridis beyond. */
static void step_colour(int step, int total, char out[8])
{
    static const char *const base[] = {"#0072b2", "#e69f00", "#009e73", "#cc79a7",
                                       "#56b4e9", "#d55e00", "#8c6d1f", "#555555"};
    if (total <= 8)
        snprintf(out, 8, "%s", base[step % 8]);
    else
        viridis(total > 1 ? (double)step / (total - 1) : 0.0, out);
}

/* Black or white text on a fill, whichever reads better. */
static const char *text_on(const char *fill)
{
    unsigned r, g, b;
    if (sscanf(fill, "#%02x%02x%02x", &r, &g, &b) != 3)
        return "#000000";
    return 0.2126 * r + 0.7152 * g + 0.0722 * b > 150 ? "#000000" : "#ffffff";
}

/* --- the frame every figure shares -------------------------------------------------------- */

#define W 1000
#define LEFT 78    /* x of lane 0's cell */
#define CELL 28    /* a lane's (bank's, sector's) cell */
#define BOX 24     /* the box drawn inside a cell */
#define BOX_H 24
#define Y_LANE 62  /* top of the lane boxes */
#define Y_UNIT 222 /* top of the bank or sector boxes */
#define H 360

static double cell_x(int i) { return LEFT + i * CELL + (CELL - BOX) / 2.0; }
static double cell_mid(int i) { return LEFT + i * CELL + CELL / 2.0; }

static void open_svg(FILE *f, const char *id, const char *title, const char *l1, const char *l2)
{
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"warp\" viewBox=\"0 0 %d %d\" "
               "role=\"img\" aria-labelledby=\"%s-t %s-d\" font-family=\"'DejaVu Sans', "
               "'Segoe UI', Helvetica, Arial, sans-serif\">\n<title id=\"%s-t\">", W, H, id, id, id);
    svg_escape(f, title);
    fprintf(f, "</title>\n<desc id=\"%s-d\">", id);
    svg_escape(f, l1);
    fputc(' ', f);
    svg_escape(f, l2);
    fprintf(f, "</desc>\n<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n"
               "<text x=\"14\" y=\"28\" font-size=\"17\" font-weight=\"bold\" fill=\"#1a1a1a\">",
            W, H);
    svg_escape(f, title);
    fputs("</text>\n", f);
}

static void row_label(FILE *f, int y, int size, const char *text)
{
    fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"%d\" fill=\"#333333\" text-anchor=\"end\">%s"
               "</text>\n", LEFT - 8, y, size, text);
}

/* A legend of n colour steps after a sentence, and the two caption lines. */
static void close_svg(FILE *f, const char *legend, int n, const char *l1, const char *l2)
{
    int ly = 296, sw = n <= 8 ? 22 : n <= 16 ? 14 : 9;
    fprintf(f, "<text x=\"14\" y=\"%d\" font-size=\"13\" fill=\"#333333\">", ly);
    svg_escape(f, legend);
    fputs("</text>\n", f);
    for (int i = 0; i < n && i < 32; i++) {
        char col[8];
        step_colour(i, n, col);
        fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"14\" fill=\"%s\"/>\n",
                520 + i * (sw + 2), ly - 11, sw, col);
    }
    fputs("<text x=\"14\" y=\"322\" font-size=\"14\" fill=\"#1a1a1a\" font-weight=\"bold\">", f);
    svg_escape(f, l1);
    fputs("</text>\n<text x=\"14\" y=\"344\" font-size=\"14\" fill=\"#1a1a1a\">", f);
    svg_escape(f, l2);
    fputs("</text>\n</svg>\n", f);
}

static const char *ordinal(int n)
{
    return n % 10 == 1 && n % 100 != 11 ? "st" : n % 10 == 2 && n % 100 != 12 ? "nd"
           : n % 10 == 3 && n % 100 != 13 ? "rd" : "th";
}

static int active_lanes(uint32_t active)
{
    int n = 0;
    for (; active; active &= active - 1)
        n++;
    return n;
}

/* --- lanes over banks -------------------------------------------------------------------- */

/* The most distinct words any one bank gives within one phase: what makes an n-way conflict. */
static void words_per_bank(const bank_geometry *g, const warp_access *a, int per_phase,
                           int words[64])
{
    int span = a->width > g->bank_bytes ? a->width / g->bank_bytes : 1;
    memset(words, 0, 64 * sizeof *words);
    for (int first = 0; first < g->warp_size; first += per_phase) {
        uint32_t seen[BANK_MAX_LANES * 4];
        int n_seen = 0, in_phase[64] = {0};
        for (int lane = first; lane < first + per_phase && lane < g->warp_size; lane++) {
            if (!(a->active >> lane & 1u))
                continue;
            for (int s = 0; s < span && n_seen < BANK_MAX_LANES * 4; s++) {
                uint32_t word = bank_row_key(g, (a->addr[lane] / (uint32_t)g->bank_bytes +
                                                 (uint32_t)s) * (uint32_t)g->bank_bytes);
                int dup = 0;
                for (int i = 0; i < n_seen; i++)
                    dup |= seen[i] == word;
                if (!dup) {
                    seen[n_seen++] = word;
                    in_phase[word % (uint32_t)g->banks]++;
                }
            }
        }
        for (int b = 0; b < g->banks && b < 64; b++)
            words[b] = in_phase[b] > words[b] ? in_phase[b] : words[b];
    }
}

int svg_bank_warp(FILE *f, const bank_geometry *g, const warp_access *a, const char *id,
                  const char *title)
{
    int wave[BANK_MAX_LANES], words[64];
    int total = bank_lane_wavefronts(g, a, wave), ideal = bank_ideal_wavefronts(g, a);
    int per_phase = bank_phase_lanes(g, a), span = a->width > g->bank_bytes ? a->width / g->bank_bytes : 1;
    double degree = ideal > 0 && total > ideal ? (double)total / ideal : 1.0;
    char l1[256], l2[256], deg[48], legend[128];
    if (degree < 1.005)
        snprintf(deg, sizeof deg, "conflict-free");
    else if (fabs(degree - round(degree)) < 0.05)
        snprintf(deg, sizeof deg, "%.0f-way conflict", round(degree));
    else
        snprintf(deg, sizeof deg, "%.2f-way conflict", degree);
    snprintf(l1, sizeof l1, "Model: %d wavefront%s for this request of %d lanes (%d without "
             "conflicts): %s.", total, total == 1 ? "" : "s", active_lanes(a->active), ideal, deg);
    const char *rows = bank_row_bytes(g) != g->bank_bytes ? " in rows of 8 (Kepler)" : "";
    if (per_phase >= g->warp_size)
        snprintf(l2, sizeof l2, "Banks: %d " TIMES " %d bytes%s; %d bytes a lane, so the whole warp "
                 "is served as one phase.", g->banks, g->bank_bytes, rows, a->width);
    else
        snprintf(l2, sizeof l2, "Banks: %d " TIMES " %d bytes%s; %d bytes a lane, so the warp is "
                 "served in phases of %d lanes, one after the other.", g->banks, g->bank_bytes,
                 rows, a->width, per_phase);
    words_per_bank(g, a, per_phase, words);
    open_svg(f, id, title, l1, l2);
    row_label(f, Y_LANE + 17, 14, "lane");
    row_label(f, Y_LANE + BOX_H + 18, 14, "word");
    row_label(f, Y_UNIT + 17, 14, "bank");
    row_label(f, Y_UNIT + BOX_H + 18, 14, "words");
    if (per_phase < g->warp_size) {
        row_label(f, Y_UNIT + BOX_H + 31, 11, "per phase");
        for (int p = 0; p * per_phase < g->warp_size; p++) {
            double x0 = cell_x(p * per_phase), x1 = cell_x((p + 1) * per_phase - 1) + BOX;
            fprintf(f, "<path d=\"M%.1f 54 V48 H%.1f V54\" fill=\"none\" stroke=\"#333333\"/>\n"
                       "<text x=\"%.1f\" y=\"44\" font-size=\"13\" text-anchor=\"middle\" "
                       "fill=\"#333333\">phase %d: lanes %d-%d</text>\n", x0, x1, (x0 + x1) / 2,
                    p + 1, p * per_phase, (p + 1) * per_phase - 1);
        }
    }
    fputs("<g stroke-width=\"1.6\" stroke-opacity=\"0.85\">\n", f); /* lines under the boxes */
    for (int lane = 0; lane < g->warp_size; lane++) {
        if (!(a->active >> lane & 1u))
            continue;
        char col[8];
        step_colour(wave[lane], total, col);
        for (int s = 0; s < span; s++)
            fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"%s\"/>\n",
                    cell_mid(lane), Y_LANE + BOX_H + 26,
                    cell_mid(bank_of(g, a->addr[lane] + (uint32_t)(s * g->bank_bytes))), Y_UNIT, col);
    }
    fputs("</g>\n<g font-size=\"12\" text-anchor=\"middle\">\n", f);
    for (int lane = 0; lane < g->warp_size; lane++) {
        int on = a->active >> lane & 1u;
        char col[8] = "#dddddd";
        if (on)
            step_colour(wave[lane], total, col);
        fprintf(f, "<rect x=\"%.1f\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"3\" fill=\"%s\"/>\n"
                   "<text x=\"%.1f\" y=\"%d\" fill=\"%s\">%d</text>\n", cell_x(lane), Y_LANE, BOX,
                BOX_H, col, cell_mid(lane), Y_LANE + 16, text_on(col), lane);
        uint32_t word = a->addr[lane] / (uint32_t)g->bank_bytes;
        if (on)
            fprintf(f, "<text x=\"%.1f\" y=\"%d\" font-size=\"%d\" fill=\"#333333\">%u</text>\n",
                    cell_mid(lane), Y_LANE + BOX_H + 17, word >= 10000 ? 8 : word >= 1000 ? 10 : 11,
                    word);
    }
    fputs("</g>\n<g font-size=\"12\" text-anchor=\"middle\">\n", f);
    for (int b = 0; b < g->banks && b < 64; b++) {
        int n = words[b];
        const char *fill = n == 0 ? "#f4f4f4" : n == 1 ? "#d6e6f4" : "#f6c28b";
        fprintf(f, "<rect x=\"%.1f\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"3\" fill=\"%s\" "
                   "stroke=\"#777777\" stroke-width=\"0.8\"/>\n<text x=\"%.1f\" y=\"%d\" "
                   "fill=\"#000000\">%d</text>\n", cell_x(b), Y_UNIT, BOX, BOX_H, fill,
                cell_mid(b), Y_UNIT + 16, b);
        if (n > 0)
            fprintf(f, "<text x=\"%.1f\" y=\"%d\" fill=\"%s\"%s>%d</text>\n", cell_mid(b),
                    Y_UNIT + BOX_H + 17, n > 1 ? "#8a3b00" : "#333333",
                    n > 1 ? " font-weight=\"bold\"" : "", n);
    }
    fputs("</g>\n", f);
    if (total <= 1)
        snprintf(legend, sizeof legend, "Lane colour = the wavefront that serves it: all lanes "
                 "in the 1st");
    else
        snprintf(legend, sizeof legend, "Lane colour = the wavefront that serves it, 1st to "
                 "%d%s:", total, ordinal(total));
    close_svg(f, legend, total, l1, l2);
    return total;
}

/* --- lanes over sectors ------------------------------------------------------------------ */

int svg_sector_warp(FILE *f, const global_access *a, const char *id, const char *title)
{
    int number[SECTOR_LANES];
    int total = sector_lane_numbers(a, number), ideal = sector_ideal(a), lanes = active_lanes(a->active);
    uint64_t first[SECTOR_LANES + 1] = {0}; /* each numbered sector's first byte */
    for (int lane = 0; lane < SECTOR_LANES; lane++)
        if (a->active >> lane & 1u && number[lane] > 0 && number[lane] <= SECTOR_LANES)
            first[number[lane]] = a->addr[lane] / SECTOR_BYTES * SECTOR_BYTES;
    char l1[256], l2[256], legend[128];
    snprintf(l1, sizeof l1, "Model: %d sector%s of 32 bytes for this request of %d lanes of %d "
             "bytes (ideal %d): %.1f" TIMES " the ideal.", total, total == 1 ? "" : "s", lanes,
             a->width, ideal, ideal > 0 ? (double)total / ideal : 1.0);
    snprintf(l2, sizeof l2, "Lanes whose bytes fall in one sector share it; the ideal is the "
             "request's %d bytes laid end to end.", lanes * a->width);
    open_svg(f, id, title, l1, l2);
    row_label(f, Y_LANE + 17, 14, "lane");
    row_label(f, Y_LANE + BOX_H + 18, 14, "sector");
    row_label(f, Y_UNIT + 17, 14, "sector");
    row_label(f, Y_UNIT + BOX_H + 18, 14, "offset");
    fputs("<g stroke-width=\"1.6\" stroke-opacity=\"0.85\">\n", f);
    for (int lane = 0; lane < SECTOR_LANES; lane++) {
        if (!(a->active >> lane & 1u) || number[lane] <= 0)
            continue;
        char col[8];
        step_colour(number[lane] - 1, total, col);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"%s\"/>\n",
                cell_mid(lane), Y_LANE + BOX_H + 26, cell_mid(number[lane] - 1), Y_UNIT, col);
    }
    fputs("</g>\n<g font-size=\"12\" text-anchor=\"middle\">\n", f);
    for (int lane = 0; lane < SECTOR_LANES; lane++) {
        int on = a->active >> lane & 1u && number[lane] > 0;
        char col[8] = "#dddddd";
        if (on)
            step_colour(number[lane] - 1, total, col);
        fprintf(f, "<rect x=\"%.1f\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"3\" fill=\"%s\"/>\n"
                   "<text x=\"%.1f\" y=\"%d\" fill=\"%s\">%d</text>\n", cell_x(lane), Y_LANE, BOX,
                BOX_H, col, cell_mid(lane), Y_LANE + 16, text_on(col), lane);
        if (on)
            fprintf(f, "<text x=\"%.1f\" y=\"%d\" font-size=\"11\" fill=\"#333333\">%d</text>\n",
                    cell_mid(lane), Y_LANE + BOX_H + 17, number[lane]);
    }
    int long_labels = total > 1 && first[total] - first[1] >= 1000; /* "+1152": staggered */
    fputs("</g>\n<g font-size=\"12\" text-anchor=\"middle\">\n", f);
    for (int s = 1; s <= total && s <= SECTOR_LANES; s++) {
        char col[8], off[24];
        step_colour(s - 1, total, col);
        uint64_t d = first[s] - first[1];
        if (d >= 10240 && d % 1024 == 0)
            snprintf(off, sizeof off, "+%lluK", (unsigned long long)(d / 1024));
        else
            snprintf(off, sizeof off, "+%llu", (unsigned long long)d);
        fprintf(f, "<rect x=\"%.1f\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"3\" fill=\"%s\" "
                   "stroke=\"#777777\" stroke-width=\"0.8\"/>\n<text x=\"%.1f\" y=\"%d\" "
                   "fill=\"%s\">%d</text>\n<text x=\"%.1f\" y=\"%d\" font-size=\"%d\" "
                   "fill=\"#333333\">%s</text>\n", cell_x(s - 1), Y_UNIT, BOX, BOX_H, col,
                cell_mid(s - 1), Y_UNIT + 16, text_on(col), s, cell_mid(s - 1),
                Y_UNIT + BOX_H + 15 + (long_labels && s % 2 == 0 ? 11 : 0),
                strlen(off) > 4 ? 9 : 10, off);
    }
    fputs("</g>\n", f);
    snprintf(legend, sizeof legend, "Lane colour = the sector its bytes fall in, 1st to %d%s "
             "in address order:", total, ordinal(total));
    close_svg(f, legend, total, l1, l2);
    return total;
}
