"""Summarizes the SASS page of an Nsight Compute report (ncu -i R --page
source --csv --print-source sass): the warp-state samples by stall reason
over the whole kernel and for each role (the code between two
`USETMAXREG`s: the prologue, then each warp role in the order the kernel
lays them out), and the SASS lines with the most samples, in address
order, each with its role and reasons.

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
    executed = head.index("Instructions Executed") \
        if "Instructions Executed" in head else None
    # Each reason has an "all samples" column (stall_X) and a "not issued"
    # one (stall_X (Not Issued)); the first add up to the total.
    reasons = [i for i, c in enumerate(head)
               if c.startswith("stall_") and "(Not Issued)" not in c]
    print("columns:", "; ".join(head))
    if total_col is None:
        print("no 'Warp Stall Sampling (All Samples)' column")
        return
    # Roles: split at each setmaxnreg.
    starts = [0] + [j for j, r in enumerate(body) if "SETMAXREG" in r[src]]
    bounds = list(zip(starts, starts[1:] + [len(body)]))

    def role(j):
        return next(k for k, (a, b) in enumerate(bounds) if a <= j < b)

    def table(name, rows):
        t = sum(num(r[total_col]) or 0 for r in rows)
        ins = sum(num(r[executed]) or 0 for r in rows) \
            if executed is not None else 0
        print("\n%s: %d samples, %d warp instructions executed"
              % (name, t, ins))
        sums = {head[i]: sum(num(r[i]) or 0 for r in rows) for i in reasons}
        for k, v in sorted(sums.items(), key=lambda kv: -kv[1]):
            if v:
                print("  %-40s %8d  %5.1f%%" % (k, v, 100 * v / max(t, 1)))

    table("whole kernel (%d SASS lines)" % len(body), body)
    for k, (a, b) in enumerate(bounds):
        first = body[a][src].strip()[:60]
        table("role %d, lines %d-%d (from: %s)" % (k, a, b - 1, first),
              body[a:b])
    ranked = sorted(range(len(body)),
                    key=lambda j: -(num(body[j][total_col]) or 0))[:top]
    print("\ntop %d lines (index, role, address, samples, reasons > 5%% of "
          "the line, SASS):" % top)
    for j in sorted(ranked):
        r = body[j]
        t = num(r[total_col]) or 0
        why = ", ".join("%s %d" % (head[i].replace("stall_", ""), num(r[i]))
                        for i in reasons if (num(r[i]) or 0) > 0.05 * t)
        print("%5d %d %s %7d  %-40s %s" % (
            j, role(j), r[addr] if addr is not None else "", t, why[:40],
            r[src][:90]))

if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 60)
