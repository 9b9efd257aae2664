"""python -m spx bench M [--format a,b] [--device cpu|cuda] [--precision f64|f32]:
SpMV of every format on M (a .mtx file or gen:SPEC) from Python, as a table."""
import argparse
import sys

import spx


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m spx")
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("bench", help="time SpMV per format")
    b.add_argument("matrix", help="a .mtx/.mtx.gz/.spx file or gen:SPEC")
    b.add_argument("--format", default=None, help="comma-separated formats (default: all, and auto)")
    b.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    b.add_argument("--precision", default="f64", choices=["f64", "f32", "f16"])
    b.add_argument("--calls", type=int, default=200)
    args = ap.parse_args(argv)
    A = spx.generate(args.matrix[4:]) if args.matrix.startswith("gen:") else spx.read_mtx(args.matrix)
    recs = spx.bench(A, args.format.split(",") if args.format else None, args.device,
                     args.precision, args.calls)
    print("%s: %d x %d, %d nonzeros, %s %s" % (args.matrix, A.shape[0], A.shape[1], A.nnz,
                                               args.device, args.precision))
    print("%-12s %10s %10s %10s %8s %10s %9s" % ("format", "median ms", "min ms", "max ms",
                                                 "GFLOP/s", "prep ms", "rel err"))
    for r in recs:
        if r.get("status") != "SPX_OK":
            print("%-12s %s" % (r["format"], r.get("status")))
            continue
        label = r["format"] if r["format"] != "auto" else "auto:" + r["chosen"]
        print("%-12s %10.4f %10.4f %10.4f %8.2f %10.2f %9.1e" % (
            label, r["median_ms"], r["min_ms"], r["max_ms"], r["gflops"], r["prep_ms"],
            r["max_rel_err"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
