"""CSV files an instructor opens in a spreadsheet, written so that no cell runs as a formula.

A cell that begins with `=`, `+`, `-`, `@`, a tab or a carriage return is read by Excel, LibreOffice
and Google Sheets as a formula (CSV injection: `+cmd|' /C calc'!A0` starts a program through DDE).
Student folder names, IDs from a Gradescope export, emails and messages come from outside, so
every CSV the project writes goes through `writer`, which neutralises such cells as OWASP
recommends: a single quote in front (shown as text, never evaluated) and every cell quoted.
"""
from __future__ import annotations

import csv
import re

TRIGGERS = ("=", "+", "-", "@", "\t", "\r")
# A plain decimal number (what the gradebook's points are, written with :g): a spreadsheet reads
# it as a number, never as a formula, so it stays a number. OWASP quotes any leading '-'; we keep
# "-2" as -2 because a score adjustment of -2 must sum in the sheet, and a text like "-2+cmd" is
# not a plain number and is neutralised like any other.
NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def neutralise(cell) -> str:
    """The cell as text a spreadsheet shows and never evaluates."""
    text = "" if cell is None else str(cell)
    if text.startswith(TRIGGERS) and not NUMBER.fullmatch(text):
        return "'" + text
    return text


class _SafeWriter:
    """csv.writer's writerow/writerows, with every cell neutralised first."""

    def __init__(self, f):
        # QUOTE_ALL: OWASP's advice to keep each cell quoted, so that a separator or quote in a
        # name cannot start a new cell that escapes the neutralising.
        self._w = csv.writer(f, quoting=csv.QUOTE_ALL)

    def writerow(self, row):
        return self._w.writerow([neutralise(c) for c in row])

    def writerows(self, rows):
        for row in rows:
            self.writerow(row)


def writer(f):
    """The one CSV writer of the project: use it for every CSV file it writes."""
    return _SafeWriter(f)
