#!/usr/bin/env python3
"""The report of scripts/gpu-check.sh: joins the JSON records of its `spx bench` runs and
writes BASE.json (meta and records), BASE.csv (SpMV records) and BASE.txt: per SpMV input
each format against cuSPARSE CSR of the same process, with the spread of its batches and
its first call, the geometric means, dasp against csr by size and AUTO's picks; then per
SpGEMM input each format against cuSPARSE SpGEMM.

usage: gpu_report.py WORK BASE GPU COPY_GBS L2_MB
  WORK holds bN.json (SpMV runs, in run order) with optional bN.params and bN.set (the
  run's --param and its set name: "xhalf", "mid"), and gN.json (SpGEMM runs).
"""
import csv
import glob
import json
import math
import os
import sys

SPMV_KEYS = ["matrix", "format", "device", "precision", "nnz", "median_ms", "min_ms", "max_ms",
             "first_ms", "gflops", "gbs", "prep_ms", "bytes", "breakeven_calls", "max_rel_err",
             "ok", "load1"]


def run_number(path):
    return int(os.path.basename(path)[1:-5])


def side_file(path, key):
    """The text of bN.KEY beside bN.json, "" when absent."""
    p = path[:-5] + "." + key
    return open(p).read().strip() if os.path.exists(p) else ""


def load_runs(work, prefix):
    recs = []
    for f in sorted(glob.glob(os.path.join(work, prefix + "*.json")), key=run_number):
        try:
            d = json.load(open(f))
        except (OSError, ValueError) as e:
            print("unreadable", f, e)
            continue
        d = d if isinstance(d, list) else [d]
        extra = {k: side_file(f, k) for k in ("params", "set")}
        for r in d:  # a record keeps its own set's params (--param a;b labels each pass)
            for k, v in extra.items():
                if v:
                    r.setdefault(k, v)
        recs += d
    return recs


def ok_rec(rs, fmt):
    return next((r for r in rs if r["format"] == fmt and r.get("ok") and r.get("gflops")), None)


def spread(r, lo="min_ms", hi="max_ms"):
    """The batches' spread as +-% of the median: (max - min) / 2 / median."""
    a, b, m = r.get(lo), r.get(hi), r.get("median_ms", r.get("run_ms"))
    if not a or not b or not m:
        return ""
    return "+-%.0f%%" % (50.0 * (b - a) / m)


def status_word(r):
    if r.get("ok"):
        return "ok"
    return "declined" if r.get("status") == "SPX_ERR_UNSUPPORTED" else "FAILED"


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


class SpmvReport:
    def __init__(self, recs, copy_gbs, l2_mb):
        self.copy_gbs, self.l2_mb = copy_gbs, l2_mb
        self.groups = {}
        for r in recs:
            if r.get("device", "cuda") != "cuda":
                continue
            key = (r["matrix"], r["precision"], r.get("params", ""), r.get("set", ""))
            self.groups.setdefault(key, []).append(r)
        self.ratios, self.ratios_h, self.ratios_xh, self.sizes = {}, {}, {}, []
        self.out = []

    def model_mb(self, rs):
        for r in rs:
            if r.get("gbs") and r.get("median_ms"):
                return r["gbs"] * r["median_ms"]  # GB/s * ms = MB
        return 0.0

    def row(self, r, base_r, half_r, params, rset, pick):
        ratio, hratio = "", ""
        if base_r and r.get("gflops"):
            x = r["gflops"] / base_r["gflops"]
            ratio = "%.2fx" % x
            if r.get("ok") and not params and not rset:
                self.ratios.setdefault((r["format"], r["precision"]), []).append(x)
        if half_r and r.get("gflops"):
            x = r["gflops"] / half_r["gflops"]
            hratio = " h %.2fx" % x
            if r.get("ok") and not params and not rset:
                self.ratios_h.setdefault((r["format"], r["precision"]), []).append(x)
            if r.get("ok") and rset == "xhalf":
                self.ratios_xh.setdefault((r["format"], r["precision"]), []).append(x)
        label = "auto:%s" % pick if r["format"] == "auto" and pick else r["format"]
        bw = "%.0f%%bw" % (100 * r["gbs"] / self.copy_gbs) if self.copy_gbs and r.get("gbs") else ""
        self.out.append("  %-20s %8.1f gflops %7s %6s  %8.4f ms %6s  first %8.4f ms  prep %8.1f ms"
                        "  err %.1e %s%s" % (
                            label, r.get("gflops") or 0, ratio, bw, r.get("median_ms") or 0,
                            spread(r), r.get("first_ms") or 0, r.get("prep_ms") or 0,
                            r.get("max_rel_err") or 0, status_word(r), hratio))

    def group(self, key, rs):
        m, p, params, rset = key
        base_r = ok_rec(rs, "peer-cusparse-csr")
        half_r = ok_rec(rs, "peer-cusparse-csr-h") if p == "f16" else None
        a = ok_rec(rs, "auto")
        pick = a.get("chosen") if a else None
        name = os.path.basename(m)
        model_mb = self.model_mb(rs)
        in_l2 = 0 < model_mb < self.l2_mb
        self.out.append("%s %s nnz=%s%s%s%s" % (name, p, rs[0].get("nnz"), " (L2)" if in_l2 else "",
                                                 " [param %s]" % params if params else "",
                                                 " [%s]" % rset if rset else ""))
        for r in sorted(rs, key=lambda r: -(r.get("gflops") or 0)):
            self.row(r, base_r, half_r, params, rset, pick)
        csr, dasp = ok_rec(rs, "csr"), ok_rec(rs, "dasp")
        if p == "f64" and not params and csr and dasp:
            self.sizes.append((rs[0].get("nnz") or 0, name, in_l2, csr, dasp, pick, base_r))

    def means(self, title, table):
        self.out.append("")
        self.out.append(title)
        for (fmt, p), xs in sorted(table.items()):
            self.out.append("  %-20s %s %.2fx over %d matrices" % (fmt, p, geomean(xs), len(xs)))

    def by_size(self):
        self.out.append("")
        self.out.append("fp64 by size: dasp against csr (time csr / time dasp: > 1 dasp faster), AUTO's pick")
        self.out.append("  %-44s %10s %5s %7s %7s %9s %-6s" % ("matrix", "nnz", "", "csr", "dasp",
                                                              "dasp/csr", "auto"))
        for nnz, name, in_l2, csr, dasp, pick, base_r in sorted(self.sizes, key=lambda t: t[0]):
            def rel(r):
                return "%.2fx" % (r["gflops"] / base_r["gflops"]) if base_r else "-"
            best = "dasp" if dasp["gflops"] > csr["gflops"] else "csr"
            self.out.append("  %-44s %10d %5s %7s %7s %9.2f %-6s%s" % (
                name[:44], nnz, "(L2)" if in_l2 else "", rel(csr), rel(dasp),
                dasp["gflops"] / csr["gflops"], pick or "-",
                "" if not pick or pick in ("?", best) else "  (best: %s)" % best))

    def lines(self):
        for key, rs in self.groups.items():
            self.group(key, rs)
        self.means("geometric mean over cuSPARSE CSR (matrices where both ran and passed):",
                   self.ratios)
        if self.ratios_h:
            self.means("fp16, geometric mean over peer-cusparse-csr-h (cuSPARSE with x kept in half):",
                       self.ratios_h)
        if self.ratios_xh:
            self.means("fp16 with xtype=half (x in half in SpX and cuSPARSE), geometric mean over "
                       "peer-cusparse-csr-h:", self.ratios_xh)
        self.by_size()
        return self.out


def spgemm_lines(recs):
    """Per SpGEMM input and precision: each format's run and whole product against
    cuSPARSE SpGEMM of the same process."""
    groups = {}
    for r in recs:
        groups.setdefault((r["matrix"], r.get("b", r["matrix"]), r["device"], r["precision"]),
                          []).append(r)
    if not groups:
        return []
    out = ["", "SpGEMM C = A*B: run = product on a prepared plan, whole = plan + product;"
               " x = run time of peer-cusparse-spgemm / run time (same process);",
           "SpX's CUDA formats return a host C (B's upload and C's download in their times),"
           " cuSPARSE's operands and C stay on the device"]
    for (m, b, dev, p), rs in groups.items():
        base = next((r for r in rs if r["format"] == "peer-cusparse-spgemm" and r.get("ok")), None)
        first = rs[0]
        out.append("%s * %s %s %s: nnz(A) %s, products %s, nnz(C) %s" % (
            os.path.basename(m), os.path.basename(b), dev, p, first.get("nnz_a"),
            first.get("products"), next((r.get("nnz_c") for r in rs if r.get("nnz_c")), "?")))
        for r in sorted(rs, key=lambda r: -(r.get("gflops") or 0)):
            label = "auto:%s" % r["chosen"] if r.get("chosen") else r["format"]
            if r.get("params"):
                label += "[%s]" % r["params"]
            x = ""
            if base and r.get("run_ms"):
                x = "%.2fx" % (base["run_ms"] / r["run_ms"])
            if r.get("status"):
                out.append("  %-24s %s: %s" % (label, r["status"], r.get("error", "")))
                continue
            out.append("  %-24s run %9.3f ms %6s %6s  whole %9.3f ms  first %9.3f ms  %7.2f gflops"
                       "  err %.1e dropped %s %s %s" % (
                           label, r.get("run_ms") or 0, spread(r, "run_min_ms", "run_max_ms"), x,
                           r.get("whole_ms") or 0, r.get("first_ms") or 0, r.get("gflops") or 0,
                           r.get("max_rel_err") or 0, r.get("dropped", 0), status_word(r),
                           r.get("detail", "")))
    return out


def main(argv):
    if len(argv) != 6:
        sys.exit(__doc__)
    work, base, gpu = argv[1], argv[2], argv[3]
    copy_gbs, l2_mb = float(argv[4] or 0), float(argv[5] or 0)
    spmv = load_runs(work, "b")
    spgemm = load_runs(work, "g")
    meta = {"gpu": gpu, "copy_gbs": copy_gbs, "l2_mb": l2_mb,
            "note": "copy_gbs counts bytes read + written; gbs by the DESIGN.md bytes model"}
    json.dump({"meta": meta, "records": spmv, "spgemm_records": spgemm}, open(base + ".json", "w"),
              indent=1)
    with open(base + ".csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(SPMV_KEYS)
        for r in spmv:
            w.writerow([r.get(k, "") for k in SPMV_KEYS])
    out = ["GPU: %s; device-to-device copy %.0f GB/s (read + write); L2 %.0f MB" % (gpu, copy_gbs, l2_mb),
           "gflops per format; x = ratio to peer-cusparse-csr in the same process; %bw = gbs / copy",
           "ms = median per call, +-% = half the spread of the batches (max - min) / median;"
           " first = the first call alone",
           "(L2) marks a matrix whose bytes model fits in L2: it measures the cache, not HBM",
           "auto:F: AUTO's pick F (spx_plan_format of the auto plan)",
           "fp16: h = ratio to peer-cusparse-csr-h (x in half once, cusparseSpMV alone timed)",
           "[mid]: the 3M-12M fp64 runs (AUTO's rule between the L2-resident and the large matrices),"
           " kept out of the means",
           "[xhalf]: fp16 runs with --param xtype=half (SpX reads x in half, as the peer csr-h does)", ""]
    out += SpmvReport(spmv, copy_gbs, l2_mb).lines()
    out += spgemm_lines(spgemm)
    open(base + ".txt", "w").write("\n".join(out) + "\n")
    print("\n".join(out))


if __name__ == "__main__":
    main(sys.argv)
