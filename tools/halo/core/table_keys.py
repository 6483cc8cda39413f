"""The one message for a course-file table with keys Halo does not know (an assignment, its late
policy): the stray keys and the known ones, so that a typo is found at a glance."""


def unknown_keys(table, known):
    """"unknown key(s) a, b (known: ...)" of a course file table, or None when it has none."""
    unknown = set(table) - set(known)
    return f"unknown key(s) {', '.join(sorted(unknown))} (known: {', '.join(sorted(known))})" if unknown else None
