"""Summarizes the SASS page of an Nsight Compute report (ncu -i R --page
source --csv --print-source sass): the warp-state samples by stall reason
over the whole kernel, and the SASS lines with the most samples, each
with its reasons, in address order within a window around them so that
the role a line belongs to can be read from its neighbours.

python3 scripts/device/stall_summary.py sass.csv [TOP]
"""
import csv
import sys


def num(v):
    try:
        return float(v.replace(",", ""))
    except (ValueError, AttributeError):
        return None


def main(path, top=60):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    # The header is the first row that names the Source column.
    h = next(i for i, r in enumerate(rows) if "Source" in r)
    head, body = rows[h], [r for r in rows[h + 1:] if len(r) == len(rows[h])]
    src = head.index("Source")
    addr = head.index("Address") if "Address" in head else None
    total_col = next((i for i, c in enumerate(head)
                      if c.startswith("Warp Stall Sampling (All")), None)
    reasons = [i for i, c in enumerate(head)
               if c.startswith("stall_") or "Stall" in c and i != total_col
               and "Not-issued" not in c]
    print("columns:", "; ".join(head))
    if total_col is None:
        print("no 'Warp Stall Sampling (All Samples)' column")
        return
    all_samples = sum(num(r[total_col]) or 0 for r in body)
    print("\nsamples: %d over %d SASS lines" % (all_samples, len(body)))
    sums = {}
    for i in reasons:
        sums[head[i]] = sum(num(r[i]) or 0 for r in body)
    print("\nby reason:")
    for k, v in sorted(sums.items(), key=lambda kv: -kv[1]):
        if v:
            print("  %-50s %8d  %5.1f%%" % (k, v, 100 * v / all_samples))
    ranked = sorted(range(len(body)),
                    key=lambda j: -(num(body[j][total_col]) or 0))[:top]
    print("\ntop %d lines (index, address, samples, reasons > 5%% of the "
          "line, SASS):" % top)
    for j in sorted(ranked):
        r = body[j]
        t = num(r[total_col]) or 0
        why = ", ".join("%s %d" % (head[i].replace("stall_", ""), num(r[i]))
                        for i in reasons if (num(r[i]) or 0) > 0.05 * t)
        print("%5d %s %7d  %-40s %s" % (j, r[addr] if addr is not None else "",
                                        t, why[:40], r[src][:90]))


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 60)
