"""What `./workbook grade` says, before anything is submitted, about whose numbers an answers
file holds. In a course each student answers their own variant, and the course's grader scores a
varied question of a file with no variant (the release's generic one) 0; a student's machine has
no course secret, so it cannot check the numbers, but it can see that a file has none, or whose
they are."""
from ..core import answers

GET_YOURS = ("get yours: on GitHub Classroom, `git pull` once your instructor has committed it into your "
             "repository (`./workbook variants --into-clones`); on Gradescope, the answers file of your own "
             "handout. Move your answers into it, then grade again")


def notices(chapter, sections, exercises, in_course):
    """One line per answers file of `sections` that has no variant while some of its questions
    vary (only `in_course`: a release of a course), or that names its student."""
    lines = []
    for s in sections:
        varied = [q.id for q in chapter.questions(s.id) if q.vary]
        path = exercises / s.folder / "answers.toml"
        if not varied or not path.is_file():
            continue
        shown = f"exercises/{s.folder}/answers.toml"
        try:
            found = answers.file_student(path, shown)
        except answers.AnswersError:
            continue  # the answers' own check names what is wrong with the file
        if found is None and in_course:
            lines.append(f"{shown} has no variant: your course gives each student their own numbers, and its "
                         f"grader scores the {len(varied)} questions that vary 0 in a file without yours.\n  "
                         + GET_YOURS[0].upper() + GET_YOURS[1:] + ".")
        elif found is not None:
            lines.append(f"{shown} holds the numbers of student {found!r}; the course grades each student "
                         f"against their own.\n  If you are not {found!r}, " + GET_YOURS + ".")
    return lines

