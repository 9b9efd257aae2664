"""The runs of an AXT experiment's folder (axt-cuda/run.sh, axt-cpu16/run.sh):
(label, records) for each r<n>.json, in run order; label from r<n>.label."""
import glob
import json
import os


def load_runs(d):
    out = []
    for f in sorted(glob.glob(d + "/r*.json"), key=lambda p: int(os.path.basename(p)[1:-5])):
        try:
            recs = json.load(open(f))
        except Exception as e:
            print("unreadable", f, e)
            continue
        label = f[:-5] + ".label"
        out.append((open(label).read().strip() if os.path.exists(label) else "",
                    recs if isinstance(recs, list) else [recs]))
    return out
