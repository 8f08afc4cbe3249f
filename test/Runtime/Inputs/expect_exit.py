#!/usr/bin/env python3
"""expect_exit.py STATUS COMMAND [ARGS...]

Runs COMMAND with its output passed through and exits 0 if it exited with
STATUS, 1 (saying what it got) otherwise. lit's `not` accepts any non-zero
status; nvfp4-run's statuses mean different things (1: the run failed,
2: bad arguments or input), so its tests check the exact one.
"""
import subprocess
import sys

if len(sys.argv) < 3:
    sys.stderr.write(__doc__)
    sys.exit(2)
want = int(sys.argv[1])
sys.stdout.flush()
got = subprocess.run(sys.argv[2:]).returncode
if got != want:
    sys.stderr.write("expect_exit: %s exited with %d, expected %d\n"
                     % (sys.argv[2], got, want))
    sys.exit(1)
