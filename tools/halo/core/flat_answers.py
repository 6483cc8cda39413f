"""Which section an answers file uploaded outside its section's folder belongs to.

Gradescope's drag-and-drop flattens folders, so a student who uploads their answers as a plain
`answers.toml` (or `answers (1).toml`, two sections' files renamed by their system) gives no
folder to place it by. Its questions tell: a file whose question ids (and variant lines) all
belong to one section, and to no other, is that section's. A file whose questions fit no section
or several is not guessed at; the intake names it and says why."""
from __future__ import annotations

from .answers import VARIANT_KEY, AnswersError, parse_answers_bytes


def question_ids(chapter) -> dict:
    """{section folder: the ids of its questions}."""
    return {s.folder: {q.id for q in chapter.questions(s.id)} for s in chapter.sections}


def keys_of(data: bytes, shown: str) -> set:
    """The question ids an answers file sets (entries that do not parse count by their key),
    and those its variant lines name."""
    parsed = parse_answers_bytes(data, shown)
    keys = {k for k in parsed.values if k != VARIANT_KEY}
    keys |= {b.key for b in parsed.broken if b.key and b.key != VARIANT_KEY}
    variant = parsed.values.get(VARIANT_KEY)
    params = variant.get("params") if isinstance(variant, dict) else None
    if isinstance(params, dict):
        keys |= set(params)
    return keys


def identify(data: bytes, shown: str, ids: dict) -> tuple:
    """(section folder, None) when the file's questions are one section's alone; (None, why) when
    they are not, `why` in words for the student."""
    try:
        keys = keys_of(data, shown)
    except AnswersError as e:
        return None, f"it cannot be read as an answers file ({e})"
    if not keys:
        return None, "it answers no question"
    fits = [folder for folder, known in ids.items() if keys <= known]
    if len(fits) == 1:
        return fits[0], None
    if fits:
        return None, (f"its questions are in {' and in '.join(fits)} alike; put it in its section's folder "
                      f"(for example {fits[0]}/answers.toml)")
    unknown = sorted(k for k in keys if not any(k in known for known in ids.values()))
    if unknown:
        return None, f"{unknown[0]} is no question of the workbook"
    return None, "its questions belong to more than one section; upload each section's answers.toml in its folder"

