"""Prints who submitted, from Gradescope's submission_metadata.json, as the roster's student ID
(each student's variant is keyed by it).

    submitter.py METADATA [ROSTER]

With a roster (the zip's halo/roster.csv, from `export autograder --roster`), the submitter's
`sid` or email is looked up in its ID, email and GitHub columns: an account `olivia@uni.edu`
whose roster ID is `olivia` is graded as `olivia`. Without one, or when the roster does not
know the account, prints the `sid`, else the email. Prints nothing when there is no metadata
(a local test run)."""
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from halo.core import roster_identity, variants  # noqa: E402  (needs the path above)


def accounts(path):
    """Every identity of the submission's users, sid before email, in Gradescope's order."""
    try:
        with open(path, encoding="utf-8") as f:
            users = json.load(f).get("users") or []
    except (OSError, ValueError, AttributeError):
        return []
    found = []
    for key in ("sid", "email"):
        for user in users:
            value = user.get(key) if isinstance(user, dict) else None
            if isinstance(value, str) and value.strip():
                found.append(value.strip())
    return found


def submitter(path, roster=None):
    found = accounts(path)
    if roster and Path(roster).is_file() and found:
        try:
            matched = roster_identity.student_for(roster, *found)
        except variants.VariantError as e:
            print(f"submitter: the roster cannot be read: {e}", file=sys.stderr)
            matched = None
        if matched:
            return matched
        print(f"submitter: the roster names none of {', '.join(found)}; graded as {found[0]}", file=sys.stderr)
    return found[0] if found else ""


if __name__ == "__main__":
    print(submitter(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None) if len(sys.argv) > 1 else "")
