"""`./workbook lesson SECTION` with the student's own numbers: the parameters their answers file
records (its variant lines). A student's machine has no course secret, so it cannot recompute
them, but the file the course handed out carries them, and the lesson must state the same
numbers the questions ask about. A recorded value that is not one of the question's choices
(an edited line) is not used: that question keeps the chapter's numbers, and grade reports it."""
from ..core import answers


def own_questions(chapter, section, exercises):
    """(the section's questions with the numbers of exercises/<folder>/answers.toml's variant, or
    None when it has none; a line saying whose numbers they are, or None)."""
    path = exercises / section.folder / "answers.toml"
    shown = f"exercises/{section.folder}/answers.toml"
    try:
        found = answers.file_variant(path, shown) if path.is_file() else None
    except answers.AnswersError:
        found = None  # grade names what is wrong with the file
    if not found:
        return None, None
    student, recorded = found
    questions = []
    for q in chapter.questions(section.id):
        params = recorded.get(q.id) if q.vary else None
        usable = isinstance(params, dict) and all(params.get(n) in choices for n, choices in q.vary.items())
        questions.append(q.with_params({n: params[n] for n in q.vary}) if usable else q)
    return questions, f"(with the numbers of {shown}: the variant of student {student!r})"
