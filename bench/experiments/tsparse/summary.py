#!/usr/bin/env python3
"""Tables from a run of bench/experiments/tsparse/run.sh (its output folder).

For each matrix: Table 1 of the paper (from NAME.stats.json), then the
times of tsparse fp16 and fp64, gpu-rows fp64 and fp32, AUTO fp64 and
cuSPARSE fp32 and fp64 (from NAME.json, `spx bench --op spgemm`), whole
product (plan + product, as one call) and product on a prepared plan, and
the speed-ups against cuSPARSE the issue asks for:
  tsparse fp16 against cuSPARSE fp32, tsparse fp64 and AUTO fp64 against
  cuSPARSE fp64, both with the host boundaries SpX's product has
  (peer-cusparse-spgemm-host: B uploaded, C copied to the host) and with
  cuSPARSE's operands on the device (no transfers for it only); geometric means over the matrices meeting the paper's
  criteria (nnz(A) > 300000 and mean row > 42) and over all.
Usage: summary.py OUTDIR"""
import glob
import json
import math
import os
import sys

DEV, HOST = "peer-cusparse-spgemm", "peer-cusparse-spgemm-host"
ROWS = [("tsparse", "f16"), ("tsparse", "f64"), ("gpu-rows", "f64"), ("gpu-rows", "f32"),
        ("auto", "f64"), (DEV, "f32"), (DEV, "f64"), (HOST, "f32"), (HOST, "f64")]
# SpX's times run host to host (B up, C down); cuSPARSE-host's the same, cuSPARSE's
# device to device: the host ratios compare like with like.
RATIOS = [("tsparse f16 / cuSPARSE-host f32", ("tsparse", "f16"), (HOST, "f32")),
          ("tsparse f64 / cuSPARSE-host f64", ("tsparse", "f64"), (HOST, "f64")),
          ("gpu-rows f64 / cuSPARSE-host f64", ("gpu-rows", "f64"), (HOST, "f64")),
          ("AUTO f64 / cuSPARSE-host f64", ("auto", "f64"), (HOST, "f64")),
          ("tsparse f16 / cuSPARSE (device only) f32", ("tsparse", "f16"), (DEV, "f32")),
          ("tsparse f64 / cuSPARSE (device only) f64", ("tsparse", "f64"), (DEV, "f64")),
          ("AUTO f64 / cuSPARSE (device only) f64", ("auto", "f64"), (DEV, "f64"))]


def load(outdir):
    runs = {}
    for path in sorted(glob.glob(os.path.join(outdir, "*.json"))):
        if path.endswith(".stats.json"):
            continue
        name = os.path.basename(path)[:-5]
        with open(path) as f:
            records = json.load(f)
        stats = {}
        spath = os.path.join(outdir, name + ".stats.json")
        if os.path.exists(spath):
            with open(spath) as f:
                stats = json.load(f)
        runs[name] = (stats, records)
    return runs


def pick(records, fmt, prec):
    for r in records:
        if r.get("format") == fmt and r.get("precision") == prec:
            return r
    return None


def ms(r, key):
    v = r.get(key) if r else None
    return v if isinstance(v, (int, float)) and v > 0 else None


def geomean(xs):
    xs = [x for x in xs if x]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def fmt_ms(v):
    return "-" if v is None else "%.3f" % v


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    runs = load(sys.argv[1])
    print("## Table 1 (CPU, spx spgemm --stats)\n")
    print("| matrix | rows | nnz(A) | mean row | nnz(C) | products | tiles(C) | tile pairs "
          "| tile products | density (median, mean, std) | criteria |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name, (s, _) in runs.items():
        if not s:
            continue
        print("| %s | %d | %d | %.1f | %d | %d | %d | %d | %d | %g, %.1f, %.1f | %s |" % (
            name, s["rows_a"], s["nnz_a"], s["rave_a"], s["nnz_c"], s["products"], s["tiles_c"],
            s["tile_pairs"], s["tile_products"], s["density_median"], s["density_mean"],
            s["density_std"], "yes" if s["paper_criteria"] else "no"))
    failures = []
    for key, title in (("whole_ms", "whole A*A (plan + product)"),
                       ("run_ms", "product on a prepared plan")):
        print("\n## %s, ms (median)\n" % title)
        print("| matrix | " + " | ".join("%s %s" % (f.replace(DEV, "cuSPARSE"), p)
                                        for f, p in ROWS) + " |")
        print("|---" * (len(ROWS) + 1) + "|")
        ratios = {label: ([], []) for label, _, _ in RATIOS}
        for name, (s, records) in runs.items():
            cells = []
            for f, p in ROWS:
                r = pick(records, f, p)
                cell = fmt_ms(ms(r, key))
                if r and r.get("status") == "SPX_ERR_UNSUPPORTED":
                    cell += " (declined)"  # e.g. fp16 values beyond half's range
                elif r and not r.get("ok", True):
                    cell += " (check failed)"
                    failures.append("%s %s %s" % (name, f, p))
                if f == "auto" and r and r.get("chosen"):
                    cell += " [%s]" % r["chosen"]
                if r and "ALG3" in r.get("detail", ""):
                    cell += " (ALG3)"
                cells.append(cell)
            print("| %s | %s |" % (name, " | ".join(cells)))
            for label, ours, peer in RATIOS:
                a, b = ms(pick(records, *ours), key), ms(pick(records, *peer), key)
                if a and b:
                    ratios[label][0].append(b / a)
                    if s.get("paper_criteria"):
                        ratios[label][1].append(b / a)
        print("\nSpeed-up against cuSPARSE (its time / ours), geometric mean:\n")
        for label, (every, crit) in ratios.items():
            g, c = geomean(every), geomean(crit)
            print("- %s: all %s (%d matrices, min %s), paper's criteria %s (%d)" % (
                label, "-" if g is None else "%.2fx" % g, len(every),
                "-" if not every else "%.2fx" % min(every), "-" if c is None else "%.2fx" % c,
                len(crit)))
    print("\nChecks failed: %s" % (", ".join(sorted(set(failures))) or "none"))


if __name__ == "__main__":
    main()
