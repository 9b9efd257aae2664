"""Device-to-device SpGEMM tables of a spgemm-device/run.sh folder.

f64: per matrix cuSPARSE's run_ms (operands and C on the device), AUTO's,
gpu-rows' and tsparse's resident run_ms and cuSPARSE's over each; then the
same ratios over the whole product (whole_ms: plan, product and frees, as a
user calls one; the peer's whole includes its own preparation). f16:
tsparse f16 (half in, fp32 sums) resident against cuSPARSE fp32, the issue's
pairing. Geometric means and the lowest. A matrix missing a row is listed as
incomplete; a format that declined the matrix as "declined". With numeric
rows (run.sh NUMERIC=1, spx bench --numeric): repeated products with one
pattern, SpX's spx_spgemm_numeric (F[numeric]) against cuSPARSE's
cusparseSpGEMMreuse_compute (peer-cusparse-spgemm-reuse), and SpX's
numeric call against its own whole product (resident run_ms)."""
import math
import sys

sys.path.insert(0, "bench/experiments/axt-cuda")
from runs import load_runs  # noqa: E402


def resident(recs, fmt, prec, tag="resident"):
    """The row of fmt in prec whose params hold tag (resident, numeric): the
    record, "declined", or None."""
    for r in recs:
        if (r.get("format") == fmt and tag in (r.get("params") or "")
                and r.get("precision") == prec):
            return r if r.get("ok") else "declined"
    return None


def peer(recs, prec, name="peer-cusparse-spgemm"):
    for r in recs:
        if r.get("format") == name and r.get("precision") == prec and r.get("ok"):
            return r
    return None


def geo(v):
    return math.exp(sum(map(math.log, v)) / len(v)) if v else float("nan")


def cell(r, key):
    return "%.3f" % r[key] if isinstance(r, dict) else (r or "-")


def table(runs, prec, peer_prec, fmts, what, tag="resident", peer_name="peer-cusparse-spgemm"):
    ratios = {(f, k): [] for f in fmts for k in ("run_ms", "whole_ms")}
    print("\n### %s against %s %s, device to device (run_ms)\n" % (what, peer_name, peer_prec))
    print("| product | products | cuSPARSE ms | " + " | ".join("%s ms" % f for f in fmts) + " | " +
          " | ".join("%s x" % f for f in fmts) + " |")
    print("|---|---|---|" + "---|" * (2 * len(fmts)))
    for label, recs in runs:
        name = label.split("/")[-1]
        p = peer(recs, peer_prec, peer_name)
        rows = [resident(recs, f, prec, tag) for f in fmts]
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


def numeric_gain(runs, fmts):
    """SpX's numeric call against its own whole product on the same plan."""
    print("\n### spx_spgemm_numeric against spx_spgemm_run, same format (run_ms)\n")
    print("| product | " + " | ".join("%s run / numeric ms" % f for f in fmts) + " |")
    print("|---|" + "---|" * len(fmts))
    for label, recs in runs:
        cells = []
        for f in fmts:
            a, b = resident(recs, f, "f64"), resident(recs, f, "f64", "numeric")
            cells.append("%.3f / %.3f (%.2fx)" % (a["run_ms"], b["run_ms"], a["run_ms"] / b["run_ms"])
                         if isinstance(a, dict) and isinstance(b, dict) else "-")
        print("| %s | %s |" % (label.split("/")[-1], " | ".join(cells)))


def has_numeric(runs):
    return any("numeric" in (r.get("params") or "") for _, recs in runs for r in recs)


def main(d):
    runs = load_runs(d)
    table(runs, "f64", "f64", ["auto", "gpu-rows", "tsparse"], "f64")
    table(runs, "f16", "f32", ["tsparse"], "tsparse f16 (half in, fp32 sums)")
    if has_numeric(runs):
        table(runs, "f64", "f64", ["auto", "gpu-rows"], "numeric phase alone, f64", "numeric",
              "peer-cusparse-spgemm-reuse")
        numeric_gain(runs, ["auto", "gpu-rows"])


if __name__ == "__main__":
    main(sys.argv[1])
