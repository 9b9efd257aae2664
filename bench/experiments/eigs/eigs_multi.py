"""spx.eigsh on one GPU against spx.eigsh on a MultiPlan over every GPU here
(spx_multi_eigsh, pcsr), in one process: for each matrix and end, each run R
times alternately after a warm-up; the median wall time of a call (plans made
beforehand), products, and the largest relative difference of the values.

Usage: python3 eigs_multi.py [--k K (5)] [--tol T (1e-8)] [--rounds R (3)]
       [--gpus G (all)] [--which LA,SA] [--skip-copies 0|1 (0)] SPEC_OR_MTX ..."""
import sys
import time

import cupy
import numpy as np

import spx
from eigs_vs_peer import arg, load


def timed(f):
    cupy.cuda.Device().synchronize()
    t = time.perf_counter()
    out = f()
    cupy.cuda.Device().synchronize()
    return (time.perf_counter() - t) * 1e3, out


def main():
    k = arg("--k", 5, int)
    tol = arg("--tol", 1e-8, float)
    rounds = arg("--rounds", 3, int)
    gpus = arg("--gpus", cupy.cuda.runtime.getDeviceCount(), int)
    ends = arg("--which", "LA,SA", str).split(",")
    skip = bool(arg("--skip-copies", 0, int))
    print("k=%d tol=%g rounds=%d gpus=%d skip_copies=%d" % (k, tol, rounds, gpus, skip))
    for source in sys.argv[1:]:
        a = load(source)
        one = spx.plan(a, device="cuda")
        many = spx.multi_plan(a, gpus, device="cuda")
        for which in ends:
            def run(P):
                return spx.eigsh(P, k=k, which=which, tol=tol, skip_copies=skip,
                                 return_eigenvectors=False)
            run(one)
            run(many)
            t1, tm = [], []
            for _ in range(rounds):
                ms, (w1, i1) = timed(lambda: run(one))
                t1.append(ms)
                ms, (wm, im) = timed(lambda: run(many))
                tm.append(ms)
            diff = np.max(np.abs(w1 - wm) / np.abs(w1))
            m1, mm = np.median(t1), np.median(tm)
            print("%-16s %s n=%-9d one GPU %9.2f ms (%d products)  %d GPUs %9.2f ms (%d products)"
                  "  one/multi %.2f  max rel diff %.1e" % (
                      source, which, a.shape[0], m1, i1["steps"], gpus, mm, im["steps"],
                      m1 / mm, diff), flush=True)


if __name__ == "__main__":
    main()
