"""A graded submission's points per section, as every platform scores them: the tests' scores of
points.per_section summed for each section of the assignment. The student's `grade` prints them,
and the course's gradebook, feedback and Gradescope export give the same numbers, made here once."""
from .assignment import section_points
from .points import per_section


def scores(res, chapter, assignment):
    """{section id: (points got, points worth)} of one student's results."""
    out = {}
    for s, scored in per_section(res, chapter, assignment.sections):
        out[s.id] = (round(sum(t.score for t in scored), 2), round(sum(t.max_score for t in scored), 2))
    return out


def zero_scores(assignment):
    """{section id: (0, points worth)}: a student with nothing graded."""
    return {s.id: (0.0, section_points(s)) for s in assignment.sections}
