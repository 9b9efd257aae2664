"""Device-to-device SpGEMM tables of a spgemm-device/run.sh folder.

f64: per matrix cuSPARSE's run_ms (operands and C on the device), AUTO's,
gpu-rows' and tsparse's resident run_ms and cuSPARSE's over each; then the
same ratios over the whole product (whole_ms: plan, product and frees, as a
user calls one; the peer's whole includes its own preparation). f16:
tsparse f16 (half in, fp32 sums) resident against cuSPARSE fp32, the issue's
pairing. Geometric means and the lowest. A matrix missing a row is listed as
incomplete; a format that declined the matrix as "declined"."""
import math
import sys

sys.path.insert(0, "bench/experiments/axt-cuda")
from runs import load_runs  # noqa: E402


def resident(recs, fmt, prec):
    """The resident row of fmt in prec: the record, "declined", or None."""
    for r in recs:
        if (r.get("format") == fmt and "resident" in (r.get("params") or "")
                and r.get("precision") == prec):
            return r if r.get("ok") else "declined"
    return None


def peer(recs, prec):
    for r in recs:
        if r.get("format") == "peer-cusparse-spgemm" and r.get("precision") == prec and r.get("ok"):
            return r
    return None


def geo(v):
    return math.exp(sum(map(math.log, v)) / len(v)) if v else float("nan")


def cell(r, key):
    return "%.3f" % r[key] if isinstance(r, dict) else (r or "-")


def table(runs, prec, peer_prec, fmts, what):
    ratios = {(f, k): [] for f in fmts for k in ("run_ms", "whole_ms")}
    print("\n### %s against cuSPARSE %s, device to device (run_ms)\n" % (what, peer_prec))
    print("| product | products | cuSPARSE ms | " + " | ".join("%s ms" % f for f in fmts) + " | " +
          " | ".join("%s x" % f for f in fmts) + " |")
    print("|---|---|---|" + "---|" * (2 * len(fmts)))
    for label, recs in runs:
        name = label.split("/")[-1]
        p = peer(recs, peer_prec)
        rows = [resident(recs, f, prec) for f in fmts]
        if not p or all(not isinstance(r, dict) for r in rows):
            print("| %s | incomplete |%s" % (name, " |" * (1 + 2 * len(fmts))))
            continue
        xs = []
        for f, r in zip(fmts, rows):
            if isinstance(r, dict):
                for k in ("run_ms", "whole_ms"):
                    if r.get(k) and p.get(k):
                        ratios[(f, k)].append(p[k] / r[k])
                xs.append("%.2f" % (p["run_ms"] / r["run_ms"]))
            else:
                xs.append("-")
        print("| %s | %d | %.3f%s | %s | %s |" % (
            name, p.get("products", 0), p["run_ms"], " (%s)" % p["detail"] if p.get("detail") else "",
            " | ".join(cell(r, "run_ms") for r in rows), " | ".join(xs)))
    print()
    for (f, k), v in ratios.items():
        if v:
            print("- %s %s (%s): geometric mean %.2fx over %d, lowest %.2fx" %
                  (f, prec, k, geo(v), len(v), min(v)))


def main(d):
    runs = load_runs(d)
    table(runs, "f64", "f64", ["auto", "gpu-rows", "tsparse"], "f64")
    table(runs, "f16", "f32", ["tsparse"], "tsparse f16 (half in, fp32 sums)")


if __name__ == "__main__":
    main(sys.argv[1])
