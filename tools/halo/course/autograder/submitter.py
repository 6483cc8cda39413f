"""Prints who submitted, from Gradescope's submission_metadata.json: the first user's student ID
(`sid`), or their email when the course gave no IDs. That is the ID a roster (and so each
student's variant) is made from. Prints nothing when there is no metadata (a local test run)."""
import json
import sys


def submitter(path):
    try:
        with open(path, encoding="utf-8") as f:
            users = json.load(f).get("users") or []
    except (OSError, ValueError, AttributeError):
        return ""
    for key in ("sid", "email"):
        for user in users:
            value = user.get(key) if isinstance(user, dict) else None
            if isinstance(value, str) and value.strip():
                return value.strip()
    return ""


if __name__ == "__main__":
    print(submitter(sys.argv[1]) if len(sys.argv) > 1 else "")
