#!/usr/bin/env bash
#===- test.sh - build nvfp4 and run every test -----------------------------===#
#
# Installs what is missing, builds, runs ctest (the GoogleTest unit tests and
# the lit suite) and ends with one line `N passed, M failed` that counts each
# GoogleTest case and each lit test on its own. Exits non-zero when a test
# failed or when no test ran.
#
#===----------------------------------------------------------------------===#

set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

nvfp4_setup

results="$NVFP4_BUILD_DIR/test-results"
rm -rf "$results"
mkdir -p "$results/gtest"
# Left by an earlier run of the lit ctest entry (test/CMakeLists.txt).
rm -f "$NVFP4_BUILD_DIR/test/lit.xml"

nvfp4_log "running ctest"
ctest_status=0
# Every GoogleTest binary writes <binary>.xml into $results/gtest/.
GTEST_OUTPUT="xml:$results/gtest/" \
  ctest --test-dir "$NVFP4_BUILD_DIR" --output-on-failure \
  --output-junit "$results/ctest.xml" || ctest_status=$?

python=/usr/bin/python3
[[ -x "$python" ]] || python=python3
echo
"$python" - "$results" "$NVFP4_BUILD_DIR/test/lit.xml" "$ctest_status" <<'PY'
"""Counts individual tests across ctest entries and prints the summary.

A ctest entry that is a GoogleTest binary counts as its test cases (from its
XML), the `lit` entry as its lit tests (from lit's xunit XML), any other entry
as one test. An entry that failed without reporting a failed case (a crash
before the XML was written, say) counts as one more failure.
"""
import os
import sys
import xml.etree.ElementTree as ET

results, lit_xml, ctest_status = sys.argv[1], sys.argv[2], int(sys.argv[3])


def cases(path):
    """(passed, failed, skipped) over the <testcase>s of a JUnit file, or
    None when the file cannot be read."""
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError):
        return None
    passed = failed = skipped = 0
    for case in root.iter("testcase"):
        tags = {child.tag for child in case}
        if "failure" in tags or "error" in tags:
            failed += 1
        elif ("skipped" in tags or case.get("status") in ("notrun", "disabled")
              or case.get("result") in ("skipped", "suppressed")):
            skipped += 1
        else:
            passed += 1
    return passed, failed, skipped


rows = []  # (suite, passed, failed, skipped)
ctest_xml = os.path.join(results, "ctest.xml")
entries = []
if os.path.exists(ctest_xml):
    for case in ET.parse(ctest_xml).getroot().iter("testcase"):
        ok = case.get("status") in ("run", "passed") and not any(
            child.tag in ("failure", "error") for child in case)
        skipped = case.get("status") in ("notrun", "disabled") or any(
            child.tag == "skipped" for child in case)
        entries.append((case.get("name"), ok, skipped))

for name, ok, skipped_entry in entries:
    gtest_xml = os.path.join(results, "gtest", name + ".xml")
    counts = None
    if name == "lit" and os.path.exists(lit_xml):
        counts = cases(lit_xml)
    elif os.path.exists(gtest_xml):
        counts = cases(gtest_xml)
    if counts is not None:
        pass
    elif skipped_entry:
        counts = (0, 0, 1)
    else:
        counts = (1, 0, 0) if ok else (0, 1, 0)
    passed, failed, skipped = counts
    if not ok and not skipped_entry and failed == 0:
        failed = 1  # the entry failed but its report does not say why
    rows.append((name, passed, failed, skipped))

if ctest_status != 0 and not any(row[2] for row in rows):
    rows.append(("ctest", 0, 1, 0))  # ctest itself failed

for name, passed, failed, skipped in rows:
    print("  %-24s %5d passed  %4d failed  %4d skipped" % (name, passed, failed, skipped))
total_passed = sum(row[1] for row in rows)
total_failed = sum(row[2] for row in rows)
print("%d passed, %d failed" % (total_passed, total_failed))
sys.exit(1 if total_failed or total_passed + total_failed == 0 else 0)
PY
