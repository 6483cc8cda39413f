"""Counts measured on the student's own kernels, as the test binaries saved them in this run's
report folder ($HALO_REPORT_DIR/loads/*.json). A question with `measured_ratio` is checked
against the ratio of two tagged counts as well as against its formula, so an answer must
agree with what the student's kernels actually did."""
import json
from pathlib import Path


def tagged_counts(report_dir):
    """{tag: measured count} over every saved launch whose output was verified correct."""
    counts = {}
    for path in sorted(Path(report_dir, "loads").glob("*.json")) if report_dir else []:
        try:
            record = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        if not record.get("output_correct"):
            continue
        for row in record.get("rows", []):
            if row.get("tag"):
                counts[row["tag"]] = row["measured"]
    return counts


def ratio(report_dir, tags):
    """(numerator, denominator) measured for the two tags, or None when either is missing
    (that kernel has not passed yet in this run)."""
    counts = tagged_counts(report_dir)
    num, den = (counts.get(t) for t in tags)
    if num is None or not den:
        return None
    return num, den
