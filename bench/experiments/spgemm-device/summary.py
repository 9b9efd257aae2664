"""Device-to-device SpGEMM table of a spgemm-device/run.sh folder: per matrix
cuSPARSE's run_ms (operands on the device), AUTO's and gpu-rows' resident
run_ms and cuSPARSE's over each; the geometric means and the lowest. A
matrix missing a row is listed as incomplete."""
import math
import sys

sys.path.insert(0, "bench/experiments/axt-cuda")
from runs import load_runs  # noqa: E402


def resident(recs, fmt):
    for r in recs:
        if r.get("format") == fmt and "resident" in (r.get("params") or "") and r.get("ok"):
            return r["run_ms"]
    return None


def main(d):
    ratios = {"auto": [], "gpu-rows": []}
    print("| product | products | cuSPARSE ms | auto ms | gpu-rows ms | auto x | gpu-rows x |")
    print("|---|---|---|---|---|---|---|")
    for label, recs in load_runs(d):
        name = label.split("/")[-1]
        peer = [r for r in recs if r.get("format") == "peer-cusparse-spgemm" and r.get("ok")]
        a, g = resident(recs, "auto"), resident(recs, "gpu-rows")
        if not peer or a is None or g is None:
            print("| %s | incomplete | | | | | |" % name)
            continue
        c = peer[0]["run_ms"]
        ratios["auto"].append(c / a)
        ratios["gpu-rows"].append(c / g)
        print("| %s | %d | %.3f%s | %.3f | %.3f | %.2f | %.2f |" % (
            name, peer[0].get("products", 0), c,
            " (%s)" % peer[0]["detail"] if peer[0].get("detail") else "", a, g, c / a, c / g))
    for k, v in ratios.items():
        if v:
            gm = math.exp(sum(map(math.log, v)) / len(v))
            print("\n%s: geometric mean %.2fx over %d, lowest %.2fx" % (k, gm, len(v), min(v)))


if __name__ == "__main__":
    main(sys.argv[1])
