"""`grade-class --roster FILE`: each submission named by its student's roster ID, the ID their
variant is keyed by. A folder's name says who submitted in the platform's terms (a Classroom
clone's GitHub username, a Gradescope account's sid or email); without the roster, a student
whose account is not their roster ID would be graded against another ID's numbers: a `variant
mismatch` on every varied question. A submission the roster does not know keeps its name, and
is named in one line, so that the instructor can add it."""
from __future__ import annotations

import dataclasses

from ..core import roster_identity


def named(subs, roster):
    """(the submissions, each named by its roster ID where the roster knows it; lines to print)."""
    known = roster_identity.identities(roster)
    usernames = roster_identity.github_usernames(roster) if _has_github(roster) else {}
    out, lines, taken = [], [], {}
    for sub in subs:
        sid = known.get(sub.student.lower())
        if sid is None and usernames:
            owner = roster_identity.clone_owner(sub.folder, usernames)
            sid = usernames[owner] if owner else None
        if sid is None:
            lines.append(f"roster: {sub.student} (folder {sub.folder}) is not on the roster {roster}; graded as "
                         f"{sub.student!r}, whose numbers its varied questions are checked against")
            out.append(sub)
            continue
        if sid in taken:
            lines.append(f"roster: folders {taken[sid]} and {sub.folder} are both {sid!r}; the second is graded as "
                         f"{sub.student!r}")
            out.append(sub)
            continue
        taken[sid] = sub.folder
        out.append(dataclasses.replace(sub, student=sid))
    return sorted(out, key=lambda s: s.student), lines


def _has_github(roster):
    try:
        roster_identity.github_usernames(roster)
        return True
    except roster_identity.VariantError:
        return False
