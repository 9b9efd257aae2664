/* The CUDA AXC / AXT formats without a GPU (src/cuda/axt/).
 *
 * 1. Layouts: spx__cuda_axt_build (the CPU formats' builder with THW 16 for
 *    axt-uh1, 32 for the others) decoded back to A's CSR for every variant,
 *    x=live and x=refresh, fp64 and fp32, a sweep of TH and BS: every entry
 *    at its slot with its value and column, every other slot padding (value
 *    0, column -1), rwp / brp / hdr as the layout says, the empty rows listed,
 *    the units split into ranges that cover them; and, for new values, the
 *    entry spx__axt_cell_entry names for each value cell (axt_lane.h, as
 *    the kernel takes it): A's entry whose value and column the cell holds,
 *    -1 exactly for padding, every entry of A named once.
 * 2. Kernels: a host emulation of each kernel's arithmetic, lane by lane
 *    (warp shuffles as array steps in the kernels' order), deciding where
 *    each partial goes with the same functions the kernels call
 *    (cuda/axt/axt_lane.h), then the second pass of combine=ordered or the
 *    paper's atomics, against the long-double reference: |y - ref|_inf <=
 *    64 u (|alpha| |A| |x| + |beta| |y0|)_inf, u = 2^-53 (the emulation runs
 *    in double; the tolerance of tests/test_gpu.c). Producers get ranges of
 *    1 to all units, so every boundary case of the carries occurs.
 * 3. The check has teeth: the emulation with a seeded fault (no second pass,
 *    scans that never restart, ch1 without the warps' carry-in, the running
 *    row's first row written instead of carried) must fail it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "axt_matrices.h"
#include "common.h"
#include "core/matrix.h"
#include "cuda/axt/axt_host.h"
#include "cuda/axt/axt_lane.h"

#define TOL (64.0 * 0x1.0p-53)
#define W 32

static const char *const vnames[] = {"axc", "axt-uh1", "axt-uh", "axt-ch1", "axt-ch"};

/* ------------------------------------------------------------ decoding */

static int64_t row_len(const spx_matrix *A, int64_t r)
{
    return A->rowptr[r + 1] - A->rowptr[r];
}

static double value_at(const spx__axt *L, int64_t s, int l)
{
    const unsigned char *p = L->ax + (size_t)s * L->sb;
    return L->type == SPX_F64 ? ((const double *)p)[l] : (double)((const float *)p)[l];
}

static int32_t column_at(const spx__axt *L, int64_t s, int l)
{
    if (!L->live) return L->col[(size_t)s * (size_t)L->thw + (size_t)l];
    return ((const int32_t *)(L->ax + (size_t)s * L->sb + (size_t)L->thw * L->vsize))[l];
}

/* Slot (s, l) holds entry k of A (k < 0: padding). */
static int slot_is(const spx_matrix *A, const spx__axt *L, int64_t s, int l, int64_t k)
{
    if (k < 0) return value_at(L, s, l) == 0.0 && column_at(L, s, l) == -1;
    double want = L->type == SPX_F64 ? spx__val(A, k) : (double)(float)spx__val(A, k);
    return value_at(L, s, l) == want && column_at(L, s, l) == A->col32[k];
}

static int decode_axc_uh1(const spx_matrix *A, const spx__axt *L)
{
    int64_t s = 0;
    for (int64_t r = 0; r < A->rows; r++) {
        const int64_t len = row_len(A, r), ns = (len + L->thw - 1) / L->thw;
        if (L->brp && (L->brp[r] != s || L->brp[r + 1] != s + ns)) return 0;
        for (int64_t j = 0; j < ns * L->thw; j++, s += (j % L->thw == 0)) {
            if (L->rwp && L->rwp[s] != r) return 0;
            if (!slot_is(A, L, s, (int)(j % L->thw), j < len ? A->rowptr[r] + j : -1)) return 0;
        }
    }
    return s == L->nslab && L->nunits == (L->brp ? A->rows : s);
}

/* uh: each column of TH consecutive entries of one row, columns in row order;
 * past the last, padding columns of the last nonempty row. */
static int decode_uh(const spx_matrix *A, const spx__axt *L)
{
    int64_t c = 0, last = 0;
    for (int64_t r = 0; r < A->rows; r++) {
        const int64_t len = row_len(A, r);
        if (len) last = r;
        for (int64_t j0 = 0; j0 < len; j0 += L->th, c++) {
            if (L->rwp[c] != r) return 0;
            for (int f = 0; f < L->th; f++) {
                const int64_t j = j0 + f, s = c / L->thw * L->th + f;
                if (!slot_is(A, L, s, (int)(c % L->thw), j < len ? A->rowptr[r] + j : -1)) return 0;
            }
        }
    }
    if (L->nunits != (c + L->thw - 1) / L->thw || L->nslab != L->nunits * L->th) return 0;
    for (; c < L->nunits * L->thw; c++)
        for (int f = 0; f < L->th; f++)
            if (L->rwp[c] != last || !slot_is(A, L, c / L->thw * L->th + f, (int)(c % L->thw), -1))
                return 0;
    return 1;
}

/* ch1 / ch: entry k at its packed slot; a head wherever a row's piece of a
 * segment (BS entries, or a column of TH) starts: (row + 1) << obits | the
 * entries after it in the piece. */
static int decode_packed(const spx_matrix *A, const spx__axt *L)
{
    const int64_t seg = L->variant == SPX__AXT_CH1 ? L->bs : L->th, tile = (int64_t)L->th * L->thw;
    const int64_t cells = L->nslab * L->thw;
    char *seen = calloc((size_t)cells + 1, 1);
    int ok = L->nunits == (A->nnz + (L->variant == SPX__AXT_CH1 ? L->bs : tile) - 1) /
                              (L->variant == SPX__AXT_CH1 ? L->bs : tile);
    for (int64_t r = 0, k = 0; ok && r < A->rows; r++)
        for (; k < A->rowptr[r + 1]; k++) {
            const int64_t q = k % tile;
            const int64_t slot = L->variant == SPX__AXT_CH1
                                     ? k
                                     : (k / tile * L->th + q % L->th) * L->thw + q / L->th;
            const int64_t end_seg = (k / seg + 1) * seg,
                          end = end_seg < A->rowptr[r + 1] ? end_seg : A->rowptr[r + 1];
            const int head = k == A->rowptr[r] || k % seg == 0;
            const uint32_t want =
                head ? ((uint32_t)(r + 1) << L->obits) | (uint32_t)(end - 1 - k) : 0;
            ok = slot_is(A, L, slot / L->thw, (int)(slot % L->thw), k) && L->hdr[slot] == want;
            seen[slot] = 1;
            if (!ok) break;
        }
    for (int64_t i = 0; ok && i < cells; i++)
        if (!seen[i]) ok = slot_is(A, L, i / L->thw, (int)(i % L->thw), -1) && L->hdr[i] == 0;
    free(seen);
    return ok;
}

static int decodes(const spx_matrix *A, const spx__cuda_axt_host *h)
{
    const spx__axt *L = &h->L;
    int64_t n_empty = 0, units = L->variant == SPX__AXC ? A->rows : L->nunits;
    for (int64_t r = 0; r < A->rows; r++)
        if (!row_len(A, r) && L->variant != SPX__AXC) {
            if (n_empty >= h->n_empty || h->empty[n_empty] != r) return 0;
            n_empty++;
        }
    if (n_empty != h->n_empty || h->per_worker < 1) return 0;
    if (h->workers * h->per_worker < units ||
        (h->workers > 0 && (h->workers - 1) * h->per_worker >= units))
        return 0;
    if (L->variant == SPX__AXT_UH1 && h->per_worker % 2) return 0;
    if (L->thw != (L->variant == SPX__AXT_UH1 ? 16 : 32)) return 0;
    switch (L->variant) {
    case SPX__AXC:
    case SPX__AXT_UH1: return decode_axc_uh1(A, L);
    case SPX__AXT_UH: return decode_uh(A, L);
    default: return decode_packed(A, L);
    }
}

/* The cells' entries of new values, as spx__cuda_axt_values finds them
 * (axt_lane.h): each run's entries counted from the columns (not -1), their
 * exclusive scan the runs' first entries (not for ch1, ch); then each value
 * cell holds the entry spx__axt_cell_entry names (padding for -1), and
 * every entry of A is named once. */
static int runs_ok(const spx_matrix *A, const spx__cuda_axt_host *h)
{
    const spx__axt *L = &h->L;
    spx__axt_runs runs = spx__axt_runs_of(L->variant, L->thw, L->th, L->nnz, L->nslab, L->nunits);
    int64_t *first = malloc(((size_t)runs.n + 1) * sizeof *first), named = 0, s;
    char *seen = calloc((size_t)A->nnz + 1, 1);
    int ok = runs.n * spx__axt_run_cells(runs) == L->nslab * L->thw, l;
    for (int64_t q = 0, e = 0; !runs.packed && q < runs.n; q++) {
        first[q] = e;
        for (int i = 0; i < spx__axt_run_cells(runs); i++) {
            spx__axt_run_cell(runs, q, i, &s, &l);
            e += column_at(L, s, l) >= 0;
        }
    }
    runs.first = runs.packed ? NULL : first;
    for (int64_t c = 0; ok && c < L->nslab * L->thw; c++) {
        s = c / L->thw;
        l = (int)(c % L->thw);
        const int64_t e = spx__axt_cell_entry(runs, s, l, !runs.packed && column_at(L, s, l) < 0);
        ok = e >= -1 && e < A->nnz && (e < 0 || !seen[e]) && slot_is(A, L, s, l, e);
        if (e >= 0) seen[e] = 1, named++;
    }
    free(first);
    free(seen);
    return ok && named == A->nnz;
}

/* ------------------------------------------------------------ emulation */

enum { MUT_NONE, MUT_NO_COMBINE, MUT_NO_RESTART, MUT_NO_CIN, MUT_FIRST_TO_Y, MUT_COUNT };
static const char *const mut_names[] = {"none", "no second pass", "scans never restart",
                                        "ch1 without carry-in", "first row written, not carried"};

typedef struct emu {
    spx__cuda_axt_host *h;
    const double *x;
    double alpha, beta, *y;
    int atomic, mut;
    int64_t *crow;
    double *csum;
    int bad; /* a carry named a row outside the matrix (a slot never written) */
} emu;

static double seg(const emu *E, double a, double b, int fb)
{
    return E->mut == MUT_NO_RESTART ? a + b : SPX__AXT_SEG(a, b, fb);
}

/* The warp's shfl_up scan (seg_scan of axt_spmv.cu) on 32 lanes. */
static void seg_scan(const emu *E, double v[W], const int head[W])
{
    int f[W];
    memcpy(f, head, sizeof f);
    for (int d = 1; d < W; d *= 2) {
        double ov[W];
        int of[W];
        memcpy(ov, v, sizeof ov);
        memcpy(of, f, sizeof of);
        for (int l = d; l < W; l++) {
            v[l] = seg(E, ov[l - d], ov[l], of[l]);
            f[l] = of[l] | of[l - d];
        }
    }
}

/* group_sum: the butterfly over groups of width lanes. */
static void group_sum(double v[W], int width)
{
    for (int d = width / 2; d >= 1; d /= 2) {
        double ov[W];
        memcpy(ov, v, sizeof ov);
        for (int l = 0; l < W; l++)
            v[l] = ov[l] + ov[l ^ d];
    }
}

static double finish(const emu *E, double s, int64_t r)
{
    return E->beta == 0.0 ? E->alpha * s : E->alpha * s + E->beta * E->y[r];
}

static double xop(const emu *E, int64_t s, int l)
{
    const spx__axt *L = &E->h->L;
    if (!L->live) return ((const double *)(L->ax + (size_t)s * L->sb))[L->thw + l];
    const int32_t c = column_at(L, s, l);
    return c >= 0 ? E->x[c] : 0.0;
}

static double prod(const emu *E, int64_t s, int l)
{
    return value_at(&E->h->L, s, l) * xop(E, s, l);
}

/* The refresh kernel: every x slot from x through col[]. */
static void refresh(const emu *E)
{
    const spx__axt *L = &E->h->L;
    for (int64_t i = 0; i < L->nslab * L->thw; i++) {
        const int32_t c = L->col[i];
        ((double *)(L->ax + (size_t)(i / L->thw) * L->sb))[L->thw + i % L->thw] =
            c >= 0 ? E->x[c] : 0.0;
    }
}

typedef struct emu_run {
    spx__axt_run s;
    double acc, c0sum;
    int64_t c0row;
} emu_run;

static void emit(emu *E, emu_run *q, int64_t r, double v)
{
    int64_t done = -1;
    const int act = spx__axt_run_emit(&q->s, r, &done);
    if (act == SPX__AXT_ADD) {
        q->acc += v;
        return;
    }
    if (act == SPX__AXT_TO_CARRY && E->mut != MUT_FIRST_TO_Y) {
        q->c0row = done;
        q->c0sum = q->acc;
    }
    if (act == SPX__AXT_TO_Y || (act == SPX__AXT_TO_CARRY && E->mut == MUT_FIRST_TO_Y))
        E->y[done] = finish(E, q->acc, done);
    q->acc = v;
}

static void put(emu *E, emu_run *q, int64_t r, double v)
{
    if (E->atomic)
        E->y[r] += E->alpha * v;
    else
        emit(E, q, r, v);
}

static void end_range(emu *E, const emu_run *q, int64_t w)
{
    const int slot = spx__axt_run_end(&q->s);
    E->crow[2 * w] = slot == 0 ? q->s.cur : slot == 1 ? q->c0row : -1;
    E->csum[2 * w] = slot == 0 ? q->acc : q->c0sum;
    E->crow[2 * w + 1] = slot == 1 ? q->s.cur : -1;
    E->csum[2 * w + 1] = q->acc;
}

static void emu_axc(emu *E)
{
    const spx__axt *L = &E->h->L;
    for (int64_t r = 0; r < L->rows; r++) {
        double sum[W] = {0};
        for (int64_t s = L->brp[r]; s < L->brp[r + 1]; s++)
            for (int l = 0; l < W; l++)
                sum[l] += prod(E, s, l);
        group_sum(sum, W);
        E->y[r] = finish(E, sum[0], r);
    }
}

static void emu_uh1(emu *E, int64_t w)
{
    const spx__axt *L = &E->h->L;
    int64_t u0, u1;
    spx__axt_range(w, E->h->per_worker, L->nslab, &u0, &u1);
    emu_run q = {spx__axt_run_new(), 0.0, 0.0, -1};
    for (int64_t s = u0; s < u1; s += 2) {
        double p[W];
        for (int l = 0; l < W; l++)
            p[l] = s + (l >> 4) < u1 ? prod(E, s + (l >> 4), l & 15) : 0.0;
        group_sum(p, 16);
        put(E, &q, L->rwp[s], p[0]);
        if (s + 1 < u1) put(E, &q, L->rwp[s + 1], p[16]);
    }
    if (!E->atomic) end_range(E, &q, w);
}

/* uh_tile_rows of axt_spmv.cu. */
static void uh_tile_rows(emu *E, emu_run *q, const int32_t *r, const double *sum)
{
    double S[W];
    int head[W], tail[W], k0 = W - 1;
    memcpy(S, sum, sizeof S);
    for (int l = 0; l < W; l++) {
        head[l] = l == 0 || r[l] != r[l - 1];
        tail[l] = l == W - 1 || r[l + 1] != r[l];
    }
    seg_scan(E, S, head);
    for (int l = W - 1; l >= 0; l--)
        if (tail[l]) k0 = l;
    for (int l = 0; l < W; l++)
        if (tail[l] && spx__axt_tile_inner(r[l], r[0], r[W - 1]))
            E->y[r[l]] = finish(E, S[l], r[l]);
    emit(E, q, r[0], S[k0]);
    if (r[W - 1] != r[0]) emit(E, q, r[W - 1], S[W - 1]);
}

static void emu_uh(emu *E, int64_t w)
{
    const spx__axt *L = &E->h->L;
    int64_t u0, u1;
    spx__axt_range(w, E->h->per_worker, L->nunits, &u0, &u1);
    emu_run q = {spx__axt_run_new(), 0.0, 0.0, -1};
    for (int64_t t = u0; t < u1; t++) {
        double sum[W] = {0};
        const int32_t *r = L->rwp + t * W;
        for (int l = 0; l < W; l++)
            for (int f = 0; f < L->th; f++)
                sum[l] += prod(E, t * L->th + f, l);
        if (E->atomic)
            for (int l = 0; l < W; l++)
                E->y[r[l]] += E->alpha * sum[l];
        else
            uh_tile_rows(E, &q, r, sum);
    }
    if (!E->atomic) end_range(E, &q, w);
}

typedef struct walk {
    int nseg;
    int64_t rf, rl;
    double sf, sl;
} walk;

/* walk_column of axt_spmv.cu: lane l down its column of tile t. */
static walk walk_column(emu *E, int64_t t, int l)
{
    const spx__axt *L = &E->h->L;
    walk c = {0, -1, -1, 0.0, 0.0};
    for (int f = 0; f < L->th; f++) {
        const int64_t s = t * L->th + f;
        const uint32_t h = L->hdr[s * W + l];
        const double p = prod(E, s, l);
        if (!h) {
            c.sl += p;
            continue;
        }
        if (c.nseg >= 1) {
            if (E->atomic)
                E->y[c.rl] += E->alpha * c.sl;
            else if (c.nseg == 1)
                c.sf = c.sl;
            else
                E->y[c.rl] = finish(E, c.sl, c.rl);
        }
        c.sl = p;
        c.rl = (int64_t)(h >> L->obits) - 1;
        if (c.nseg == 0) c.rf = c.rl;
        c.nseg++;
    }
    if (c.nseg == 1) c.sf = c.sl;
    return c;
}

/* ch_tile_rows of axt_spmv.cu. */
static void ch_tile_rows(emu *E, emu_run *q, const walk *c)
{
    double S[W], t1[W];
    int start[W], ends[W], last = 0;
    for (int l = 0; l < W; l++)
        if (c[l].nseg >= 1) last = l;
    for (int l = 0; l < W; l++) {
        const int64_t rl_prev = l ? c[l - 1].rl : -1, rf_next = l < W - 1 ? c[l + 1].rf : -1;
        start[l] = spx__axt_ch_starts_chain(l, c[l].nseg, c[l].rf, rl_prev);
        ends[l] = spx__axt_ch_chain_ends(l, last, c[l].nseg, c[l].rl, rf_next);
        S[l] = c[l].nseg >= 1 ? c[l].sl : 0.0;
    }
    seg_scan(E, S, start);
    for (int l = 0; l < W; l++) {
        const int64_t rl_prev = l ? c[l - 1].rl : -1;
        t1[l] =
            spx__axt_ch_first_closes(l, c[l].nseg, c[l].rf, rl_prev) ? S[l - 1] + c[l].sf : c[l].sf;
    }
    const int64_t r0 = c[0].rf, rL = c[last].rl;
    double first = 0.0;
    int found = 0;
    for (int l = 0; l < W; l++) {
        if (c[l].nseg >= 2 && spx__axt_tile_inner(c[l].rf, r0, rL))
            E->y[c[l].rf] = finish(E, t1[l], c[l].rf);
        if (ends[l] && spx__axt_tile_inner(c[l].rl, r0, rL))
            E->y[c[l].rl] = finish(E, S[l], c[l].rl);
        const int own1 = c[l].nseg >= 2 && c[l].rf == r0, own2 = ends[l] && c[l].rl == r0;
        if (!found && (own1 || own2)) {
            first = own1 ? t1[l] : S[l];
            found = 1;
        }
    }
    if (r0 == rL) {
        emit(E, q, r0, S[last]);
    } else {
        emit(E, q, r0, first);
        emit(E, q, rL, S[last]);
    }
}

static void emu_ch(emu *E, int64_t w)
{
    const spx__axt *L = &E->h->L;
    int64_t u0, u1;
    spx__axt_range(w, E->h->per_worker, L->nunits, &u0, &u1);
    emu_run q = {spx__axt_run_new(), 0.0, 0.0, -1};
    for (int64_t t = u0; t < u1; t++) {
        walk c[W];
        for (int l = 0; l < W; l++)
            c[l] = walk_column(E, t, l);
        if (!E->atomic) {
            ch_tile_rows(E, &q, c);
            continue;
        }
        for (int l = 0; l < W; l++)
            if (c[l].nseg >= 1) E->y[c[l].rl] += E->alpha * c[l].sl;
    }
    if (!E->atomic) end_range(E, &q, w);
}

/* ch1_kernel of axt_spmv.cu: one block of BS entries. */
static void emu_ch1(emu *E, int64_t u)
{
    const spx__axt *L = &E->h->L;
    const int bs = L->bs, nw = bs / W;
    const uint32_t omask = (1u << L->obits) - 1u;
    double sc[1024], wtail[W], cin[W];
    int head[1024], whead[W];
    for (int i = 0; i < bs; i++) {
        const int64_t e = u * bs + i;
        sc[i] = prod(E, e / W, (int)(e % W));
        head[i] = L->hdr[e] != 0;
    }
    for (int wi = 0; wi < nw; wi++) {
        seg_scan(E, sc + wi * W, head + wi * W);
        wtail[wi] = sc[wi * W + W - 1];
        whead[wi] = 0;
        for (int l = 0; l < W; l++)
            whead[wi] |= head[wi * W + l];
    }
    double Wv[W];
    int Wf[W];
    for (int l = 0; l < W; l++) {
        Wv[l] = l < nw ? wtail[l] : 0.0;
        Wf[l] = l < nw ? whead[l] : 0;
    }
    seg_scan(E, Wv, Wf);
    for (int l = 0; l < nw; l++)
        cin[l] = l == 0 || E->mut == MUT_NO_CIN ? 0.0 : Wv[l - 1];
    const int64_t left = L->nnz - u * bs;
    const int nvalid = left < bs ? (int)left : bs;
    for (int i = 0; i < bs; i++) {
        if (!head[i]) continue;
        const uint32_t h = L->hdr[u * bs + i];
        const int last = i + (int)(h & omask), lw = last / W;
        const double total = lw != i / W ? sc[last] + cin[lw] : sc[last];
        const int64_t row = (int64_t)(h >> L->obits) - 1;
        if (E->atomic) {
            E->y[row] += E->alpha * total;
            continue;
        }
        const int dest = spx__axt_ch1_dest(i, last, nvalid);
        if (dest == SPX__AXT_DEST_Y) {
            E->y[row] = finish(E, total, row);
            continue;
        }
        const int64_t k = 2 * u + (dest == SPX__AXT_DEST_CARRY1);
        E->crow[k] = row;
        E->csum[k] = total;
        if (dest == SPX__AXT_DEST_CARRY0 && last == nvalid - 1) E->crow[2 * u + 1] = -1;
    }
}

/* combine_kernel of axt_spmv.cu. */
static void emu_combine(emu *E)
{
    const int64_t n = 2 * E->h->workers;
    for (int64_t k = 0; k < n && E->mut != MUT_NO_COMBINE; k++) {
        if (!spx__axt_combine_first(E->crow, k)) continue;
        const int64_t r = E->crow[k];
        double acc = E->csum[k];
        if (r >= E->h->L.rows) {
            E->bad = 1;
            continue;
        }
        for (int64_t j = k + 1; j < n; j++) {
            if (E->crow[j] < 0) continue;
            if (E->crow[j] != r) break;
            acc += E->csum[j];
        }
        E->y[r] = finish(E, acc, r);
    }
    for (int64_t k = 0; k < E->h->n_empty; k++) {
        const int64_t r = E->h->empty[k];
        E->y[r] = E->beta == 0.0 ? 0.0 : E->beta * E->y[r];
    }
}

/* One call y = alpha*A*x + beta*y as the launches of spx__cuda_axt_spmv. */
static void emulate(emu *E)
{
    const spx__axt *L = &E->h->L;
    if (!L->live) refresh(E);
    if (L->variant == SPX__AXC) {
        emu_axc(E);
        return;
    }
    if (E->atomic)
        for (int64_t r = 0; r < L->rows; r++)
            E->y[r] = E->beta == 0.0 ? 0.0 : E->beta * E->y[r];
    for (int64_t w = 0; w < E->h->workers; w++) {
        if (L->variant == SPX__AXT_UH1) emu_uh1(E, w);
        if (L->variant == SPX__AXT_UH) emu_uh(E, w);
        if (L->variant == SPX__AXT_CH) emu_ch(E, w);
        if (L->variant == SPX__AXT_CH1) emu_ch1(E, w);
    }
    if (!E->atomic) emu_combine(E);
}

/* Emulated error against the reference for one (alpha, beta), y0 in y. */
static double emulated_error(spx__cuda_axt_host *h, const spx_matrix *A, int atomic, int mut,
                             double alpha, double beta, uint64_t seed)
{
    const size_t m = (size_t)A->rows + 1, n = (size_t)A->cols + 1;
    double *x = malloc(n * sizeof *x), *y0 = malloc(m * sizeof *y0), *y = malloc(m * sizeof *y);
    double *ref = malloc(m * sizeof *ref), *scale = malloc(m * sizeof *scale);
    int64_t *crow = malloc(2 * ((size_t)h->workers + 1) * sizeof *crow);
    double *csum = malloc(2 * ((size_t)h->workers + 1) * sizeof *csum);
    for (int64_t j = 0; j < A->cols; j++)
        x[j] = spx_test_rand(&seed);
    for (int64_t i = 0; i < A->rows; i++) {
        y0[i] = spx_test_rand(&seed);
        y[i] = beta == 0.0 ? NAN : y0[i];
    }
    for (int64_t k = 0; k < 2 * h->workers; k++) { /* poison: the kernels write every slot */
        crow[k] = 12345678;
        csum[k] = NAN;
    }
    emu E = {h, x, alpha, beta, y, atomic, mut, crow, csum, 0};
    emulate(&E);
    spx_test_reference(A, SPX_OP_N, alpha, x, beta, y0, ref, scale);
    const double err = E.bad ? INFINITY : A->rows ? spx_test_rel_err(y, ref, scale, A->rows) : 0.0;
    free(x), free(y0), free(y), free(ref), free(scale), free(crow), free(csum);
    return err;
}

/* ---------------------------------------------------------------- cases */

static int emulated_ok(spx__cuda_axt_host *h, const spx_matrix *A, int atomic, int mut)
{
    return emulated_error(h, A, atomic, mut, 1.25, 0.0, 7) <= TOL &&
           emulated_error(h, A, atomic, mut, -0.5, 0.75, 8) <= TOL;
}

/* Build A for (variant, type, live, th, bs, target), decode it and emulate
 * both combines (fp64 only: the emulation runs in double). */
static void check_build(const spx_matrix *A, const char *what, int variant, spx_type t, int live,
                        int th, int bs, int64_t target)
{
    spx__cuda_axt_shape s = {variant, t, live, th, bs, 2, target};
    spx__cuda_axt_host h;
    if (!CHECK_STATUS(spx__cuda_axt_build(A, &s, &h), SPX_OK)) {
        printf("  %s %s th=%d bs=%d: %s\n", what, vnames[variant], th, bs, spx_last_error());
        return;
    }
    const char *tn = t == SPX_F64 ? "f64" : "f32";
    if (!CHECK(decodes(A, &h)))
        printf("  %s %s %s x=%s th=%d bs=%d: does not decode\n", what, vnames[variant], tn,
               live ? "live" : "refresh", th, bs);
    if (!CHECK(runs_ok(A, &h)))
        printf("  %s %s %s x=%s th=%d bs=%d: the cells' entries (new values) are wrong\n", what,
               vnames[variant], tn, live ? "live" : "refresh", th, bs);
    for (int atomic = 0; t == SPX_F64 && atomic < 2; atomic++)
        if (!CHECK(emulated_ok(&h, A, atomic, MUT_NONE)))
            printf("  %s %s x=%s th=%d bs=%d warps=%lld per=%lld combine=%s: emulation error "
                   "%.3g, %.3g\n",
                   what, vnames[variant], live ? "live" : "refresh", th, bs, (long long)h.workers,
                   (long long)h.per_worker, atomic ? "atomic" : "ordered",
                   emulated_error(&h, A, atomic, MUT_NONE, 1.25, 0.0, 7),
                   emulated_error(&h, A, atomic, MUT_NONE, -0.5, 0.75, 8));
    spx__cuda_axt_host_free(&h);
}

static const int th_sweep[] = {1, 2, 3, 4, 8, 16, 64};
static const int bs_sweep[] = {32, 64, 96, 512, 1024};
static const int64_t target_sweep[] = {1, 3, 7, 1 << 20};

static void check_matrix(const char *what, const spx_matrix *A, int full)
{
    if (!A) return;
    const long before = spx_test_failed;
    for (int v = 0; v < SPX__CUDA_AXT_NVAR; v++)
        for (int ti = 0; ti < 2; ti++)
            for (int live = 0; live < 2; live++) {
                const spx_type t = ti ? SPX_F32 : SPX_F64;
                const int n = v == SPX__CUDA_AXT_UH || v == SPX__CUDA_AXT_CH ? 7
                              : v == SPX__CUDA_AXT_CH1                       ? 5
                                                                             : 1;
                for (int i = 0; i < n; i++)
                    for (int k = 0; k < 4; k++) {
                        if (!full && n > 1 && (i + k) % 4 != 0) continue;
                        check_build(A, what, v, t, live, v == SPX__CUDA_AXT_CH1 ? 1 : th_sweep[i],
                                    v == SPX__CUDA_AXT_CH1 ? bs_sweep[i] : 32, target_sweep[k]);
                    }
            }
    printf("%-26s %s\n", what, spx_test_failed == before ? "ok" : "FAILED");
}

/* Every seeded fault must break the emulation on a matrix where it matters
 * (rows across producers and tiles, segments across warps). */
static void check_mutations(const spx_matrix *A)
{
    static const struct {
        int variant, th, bs, atomic;
    } where[] = {{SPX__CUDA_AXT_UH, 2, 32, 0},
                 {SPX__CUDA_AXT_CH, 4, 32, 0},
                 {SPX__CUDA_AXT_CH1, 1, 256, 0},
                 {SPX__CUDA_AXT_UH1, 1, 32, 0}};
    for (int mut = MUT_NO_COMBINE; mut < MUT_COUNT; mut++) {
        int caught = 0;
        for (size_t i = 0; i < sizeof where / sizeof where[0]; i++) {
            spx__cuda_axt_shape s = {where[i].variant, SPX_F64, 1, where[i].th, where[i].bs, 2, 7};
            spx__cuda_axt_host h;
            if (!CHECK_STATUS(spx__cuda_axt_build(A, &s, &h), SPX_OK)) continue;
            caught += !emulated_ok(&h, A, where[i].atomic, mut);
            spx__cuda_axt_host_free(&h);
        }
        if (!CHECK(caught > 0))
            printf("  seeded fault '%s' passed the check\n", mut_names[mut]);
        else
            printf("seeded fault %-30s caught in %d of 4 layouts\n", mut_names[mut], caught);
    }
}

int main(void)
{
    const char *what;
    spx_matrix *A;
    for (int i = 0; (A = axt_edge_case(i, &what)) || what; i++) {
        check_matrix(what, A, i == 0);
        spx_matrix_destroy(A);
    }
    A = axt_random_rows(2000, 2000, 40, 5);
    check_matrix("random 2000", A, 0);
    check_mutations(A);
    spx_matrix_destroy(A);
    A = NULL;
    if (CHECK_STATUS(spx_generate("lap3d7:12", &A), SPX_OK)) check_matrix("lap3d7:12", A, 0);
    spx_matrix_destroy(A);
    /* a header too narrow for the rows is declined (ch1, bs = 1024: 22 row bits) */
    A = NULL;
    static const int32_t c0[1] = {0};
    int64_t *big = calloc((size_t)(1 << 22) + 2, sizeof *big);
    if (CHECK_STATUS(spx_matrix_create_csr((int64_t)1 << 22, 1, big, c0, NULL, &A), SPX_OK)) {
        spx__cuda_axt_shape s = {SPX__CUDA_AXT_CH1, SPX_F64, 1, 1, 1024, 2, 7};
        spx__cuda_axt_host h;
        CHECK_STATUS(spx__cuda_axt_build(A, &s, &h), SPX_ERR_UNSUPPORTED);
        s.bs = 512;
        if (CHECK_STATUS(spx__cuda_axt_build(A, &s, &h), SPX_OK)) CHECK(h.n_empty == (1 << 22));
        spx__cuda_axt_host_free(&h);
    }
    free(big);
    spx_matrix_destroy(A);
    return spx_test_finish();
}
