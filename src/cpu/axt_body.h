/* AXC / AXT kernels, one body for every ISA and precision (see axt.h for the
 * layouts). The including file defines:
 *   SPX_VAL       double or float
 *   SPX_SFX(n)    n with a precision and ISA suffix
 *   VT, MT, VL    vector type, head-mask type, lanes per vector
 *   v_zero() v_load(p) v_store(p, v) v_mul(a, b) v_fma(a, b, c) = a*b + c
 *   v_reduce(v)   sum of the lanes, as double, in a fixed order
 *   v_gather(x, idx)  x[idx[i]] for idx[i] >= 0, else 0
 *   v_head(h)     lanes whose 32-bit header h[i] is nonzero
 *   v_restart(m, acc, p)   m ? p : acc + p, per lane
 *   v_segscan(p, m) inclusive scan of p restarting at the lanes of m
 *   v_last(v)     the last lane
 *   v_headbits(m) m as the low VL bits of an integer
 * A slab's x operand is its stored copy (x=refresh) or a gather through its
 * stored columns (x=live). Each kernel handles units [u0, u1) of one thread
 * and hands (row, partial) pairs to the sink in row order. */

/* x operand of vector v of the slab at p; prefetches the vector's value and
 * x-slot lines SPX__AXT_PF_BYTES ahead (axt.h). */
SPX__AXT_INLINE VT SPX_SFX(xop)(const unsigned char *p, int thw, int v, const SPX_VAL *x, int live)
{
    const unsigned char *second = p + (size_t)thw * sizeof(SPX_VAL);
    SPX__AXT_PREFETCH(p + (size_t)v * VL * sizeof(SPX_VAL) + SPX__AXT_PF_BYTES);
    SPX__AXT_PREFETCH(second + (size_t)v * VL * (live ? sizeof(int32_t) : sizeof(SPX_VAL)) +
                      SPX__AXT_PF_BYTES);
    if (live) return v_gather(x, (const int32_t *)second + (size_t)v * VL);
    return v_load((const SPX_VAL *)second + (size_t)v * VL);
}

/* Product of values and x of vector v of the slab at p. */
SPX__AXT_INLINE VT SPX_SFX(prod)(const unsigned char *p, int thw, int v, const SPX_VAL *x, int live)
{
    return v_mul(v_load((const SPX_VAL *)p + (size_t)v * VL), SPX_SFX(xop)(p, thw, v, x, live));
}

/* Sum of all lanes of slabs [s0, s1). */
SPX__AXT_INLINE double SPX_SFX(slab_sum)(const spx__axt *a, int64_t s0, int64_t s1,
                                         const SPX_VAL *x, int nv, int live)
{
    VT acc = v_zero();
    for (int64_t s = s0; s < s1; s++) {
        const unsigned char *p = a->ax + (size_t)s * a->sb;
        for (int v = 0; v < nv; v++)
            acc = v_fma(v_load((const SPX_VAL *)p + (size_t)v * VL),
                        SPX_SFX(xop)(p, a->thw, v, x, live), acc);
    }
    return v_reduce(acc);
}

/* axc: rows u0..u1, row r in slabs brp[r]..brp[r+1]. */
SPX__AXT_INLINE void SPX_SFX(axc_body)(const spx__axt *a, int64_t u0, int64_t u1, const SPX_VAL *x,
                                       spx__axt_sink *s, int nv, int live)
{
    for (int64_t r = u0; r < u1; r++)
        if (a->brp[r + 1] > a->brp[r])
            spx__axt_emit(s, r, SPX_SFX(slab_sum)(a, a->brp[r], a->brp[r + 1], x, nv, live));
}

/* uh1: slabs u0..u1 of rows rwp[]; a run of slabs of one row is summed in
 * one vector and reduced once. */
SPX__AXT_INLINE void SPX_SFX(uh1_body)(const spx__axt *a, int64_t u0, int64_t u1, const SPX_VAL *x,
                                       spx__axt_sink *s, int nv, int live)
{
    int64_t t = u0;
    while (t < u1) {
        int64_t r = a->rwp[t], e = t + 1;
        while (e < u1 && a->rwp[e] == r)
            e++;
        spx__axt_emit(s, r, SPX_SFX(slab_sum)(a, t, e, x, nv, live));
        t = e;
    }
}

/* uh: tiles u0..u1; lane column l sums its TH slabs and goes to rwp[t*THW+l].
 * A tile whose columns are all of one row is reduced once. */
SPX__AXT_INLINE void SPX_SFX(uh_body)(const spx__axt *a, int64_t u0, int64_t u1, const SPX_VAL *x,
                                      spx__axt_sink *s, int nv, int live)
{
    const int thw = a->thw, th = a->th;
    VT acc[SPX__AXT_MAX_THW / VL];
    SPX_VAL tmp[SPX__AXT_MAX_THW];
    for (int64_t t = u0; t < u1; t++) {
        const unsigned char *p = a->ax + (size_t)t * (size_t)th * a->sb;
        for (int v = 0; v < nv; v++)
            acc[v] = v_zero();
        for (int f = 0; f < th; f++, p += a->sb)
            for (int v = 0; v < nv; v++)
                acc[v] = v_fma(v_load((const SPX_VAL *)p + (size_t)v * VL),
                               SPX_SFX(xop)(p, thw, v, x, live), acc[v]);
        const int32_t *rw = a->rwp + (size_t)t * (size_t)thw;
        if (rw[0] == rw[thw - 1]) {
            double sum = 0.0;
            for (int v = 0; v < nv; v++)
                sum += v_reduce(acc[v]);
            spx__axt_emit(s, rw[0], sum);
        } else {
            for (int v = 0; v < nv; v++)
                v_store(tmp + v * VL, acc[v]);
            double run = (double)tmp[0];
            for (int l = 1; l < thw; l++) {
                if (rw[l] != rw[l - 1]) {
                    spx__axt_emit(s, rw[l - 1], run);
                    run = 0.0;
                }
                run += (double)tmp[l];
            }
            spx__axt_emit(s, rw[thw - 1], run);
        }
    }
}

/* ch1: blocks u0..u1 of BS entries. Each vector gets an in-register
 * segmented scan of its products (restarting at heads); cin[q] carries the
 * open segment into vector q, a scalar chain kept off the vector path. A
 * head's segment sum is then read at its last entry e, plus cin of e's vector
 * when the segment began in an earlier one. (The paper's fast segmented sum
 * subtracts two plain prefix sums instead; its error grows with the whole
 * block's magnitude, not the row's.) */
SPX__AXT_INLINE void SPX_SFX(ch1_body)(const spx__axt *a, int64_t u0, int64_t u1, const SPX_VAL *x,
                                       spx__axt_sink *s, int nv, int live)
{
    const int thw = a->thw, bs = a->bs, spb = bs / thw;
    const uint32_t omask = (1u << a->obits) - 1u;
    SPX_VAL buf[SPX__AXT_MAX_BS], cin[SPX__AXT_MAX_BS / VL];
    uint64_t bits[SPX__AXT_MAX_BS / 64];
    for (int64_t b = u0; b < u1; b++) {
        const uint32_t *h = a->hdr + (size_t)b * (size_t)bs;
        const unsigned char *p = a->ax + (size_t)b * (size_t)spb * a->sb;
        SPX_VAL c = 0;
        for (int w = 0; w < (bs + 63) / 64; w++)
            bits[w] = 0;
        for (int j = 0; j < spb; j++, p += a->sb)
            for (int v = 0; v < nv; v++) {
                int pos = j * thw + v * VL;
                MT m = v_head(h + pos);
                VT sc = v_segscan(SPX_SFX(prod)(p, thw, v, x, live), m);
                unsigned hb = v_headbits(m);
                v_store(buf + pos, sc);
                bits[pos >> 6] |= (uint64_t)hb << (pos & 63);
                cin[pos / VL] = c;
                c = (hb ? (SPX_VAL)0 : c) + v_last(sc);
            }
        for (int w = 0; w < (bs + 63) / 64; w++)
            for (uint64_t m = bits[w]; m; m &= m - 1) {
                int i = w * 64 + __builtin_ctzll(m);
                uint32_t hv = h[i];
                int e = i + (int)(hv & omask);
                SPX_VAL carried = e / VL != i / VL ? cin[e / VL] : (SPX_VAL)0;
                spx__axt_emit(s, (int64_t)(hv >> a->obits) - 1, (double)(buf[e] + carried));
            }
    }
}

/* ch: tiles u0..u1; down each lane column a scan restarting at heads, then
 * each head's sum is read offset slabs below it. Heads are collected in a
 * bitmap indexed lane-major (q = lane*TH + slab), the order rows run in. */
SPX__AXT_INLINE void SPX_SFX(ch_body)(const spx__axt *a, int64_t u0, int64_t u1, const SPX_VAL *x,
                                      spx__axt_sink *s, int nv, int live)
{
    const int thw = a->thw, th = a->th, words = (th * thw + 63) / 64;
    const uint32_t omask = (1u << a->obits) - 1u;
    SPX_VAL buf[SPX__AXT_MAX_TILE];
    uint64_t qb[SPX__AXT_MAX_TILE / 64];
    VT acc[SPX__AXT_MAX_THW / VL];
    for (int64_t t = u0; t < u1; t++) {
        const uint32_t *h = a->hdr + (size_t)t * (size_t)th * (size_t)thw;
        const unsigned char *p = a->ax + (size_t)t * (size_t)th * a->sb;
        for (int w = 0; w < words; w++)
            qb[w] = 0;
        for (int v = 0; v < nv; v++)
            acc[v] = v_zero();
        for (int f = 0; f < th; f++, p += a->sb)
            for (int v = 0; v < nv; v++) {
                int pos = f * thw + v * VL;
                MT m = v_head(h + pos);
                acc[v] = v_restart(m, acc[v], SPX_SFX(prod)(p, thw, v, x, live));
                v_store(buf + pos, acc[v]);
                for (unsigned hb = v_headbits(m); hb; hb &= hb - 1) {
                    int q = (v * VL + __builtin_ctz(hb)) * th + f;
                    qb[q >> 6] |= UINT64_C(1) << (q & 63);
                }
            }
        for (int w = 0; w < words; w++)
            for (uint64_t m = qb[w]; m; m &= m - 1) {
                int q = w * 64 + __builtin_ctzll(m), l = q / th, f = q % th;
                uint32_t hv = h[f * thw + l];
                spx__axt_emit(s, (int64_t)(hv >> a->obits) - 1,
                              (double)buf[(f + (int)(hv & omask)) * thw + l]);
            }
    }
}

/* Refresh: x slots of slabs [s0, s1) from x through col[]. */
static void SPX_SFX(refresh)(const spx__axt *a, int64_t s0, int64_t s1, const void *xv)
{
    const SPX_VAL *x = xv;
    const int thw = a->thw, nv = thw / VL;
    for (int64_t sl = s0; sl < s1; sl++) {
        SPX_VAL *dst = (SPX_VAL *)(a->ax + (size_t)sl * a->sb) + thw;
        const int32_t *c = a->col + (size_t)sl * (size_t)thw;
        for (int v = 0; v < nv; v++) {
            SPX__AXT_PREFETCH(c + v * VL + SPX__AXT_PF_BYTES / sizeof(int32_t));
            v_store(dst + v * VL, v_gather(x, c + v * VL));
        }
    }
}

/* Entry points: one vector per slab and the x mode become constants. */
/* Entry points: one vector per slab and the x mode become constants; the sink
 * lives in a local copy so that its fields stay in registers (y could alias
 * it as far as the compiler knows). */
#define SPX__AXT_ENTRY(kind)                                                                       \
    static void SPX_SFX(run_##kind)(const spx__axt *a, int64_t u0, int64_t u1, const void *x,      \
                                    spx__axt_sink *s)                                              \
    {                                                                                              \
        const SPX_VAL *xv = x;                                                                     \
        spx__axt_sink ls = *s;                                                                     \
        int nv = a->thw / VL;                                                                      \
        if (nv == 1 && a->live)                                                                    \
            SPX_SFX(kind##_body)(a, u0, u1, xv, &ls, 1, 1);                                        \
        else if (nv == 1)                                                                          \
            SPX_SFX(kind##_body)(a, u0, u1, xv, &ls, 1, 0);                                        \
        else if (a->live)                                                                          \
            SPX_SFX(kind##_body)(a, u0, u1, xv, &ls, nv, 1);                                       \
        else                                                                                       \
            SPX_SFX(kind##_body)(a, u0, u1, xv, &ls, nv, 0);                                       \
        *s = ls;                                                                                   \
    }

SPX__AXT_ENTRY(axc)
SPX__AXT_ENTRY(uh1)
SPX__AXT_ENTRY(uh)
SPX__AXT_ENTRY(ch)
SPX__AXT_ENTRY(ch1)

/* Override table entries of precision ti with this body's kernels. */
static void SPX_SFX(fill)(spx__axt_kernels *k, int ti, spx__isa isa)
{
    const spx__axt_run_fn fns[SPX__AXT_NVAR] = {
        [SPX__AXC] = SPX_SFX(run_axc),   [SPX__AXT_UH1] = SPX_SFX(run_uh1),
        [SPX__AXT_UH] = SPX_SFX(run_uh), [SPX__AXT_CH1] = SPX_SFX(run_ch1),
        [SPX__AXT_CH] = SPX_SFX(run_ch),
    };
    for (int v = 0; v < SPX__AXT_NVAR; v++)
        k->run[v][ti] = (spx__axt_kernel){fns[v], VL, isa};
    k->refresh[ti] = SPX_SFX(refresh);
    k->refresh_vl[ti] = VL;
}

/* The body's parameters end here, so the next precision or ISA defines its own. */
#undef SPX_VAL
#undef SPX_SFX
#undef VT
#undef MT
#undef VL
#undef v_zero
#undef v_load
#undef v_store
#undef v_mul
#undef v_fma
#undef v_reduce
#undef v_gather
#undef v_head
#undef v_headbits
#undef v_restart
#undef v_segscan
#undef v_last
