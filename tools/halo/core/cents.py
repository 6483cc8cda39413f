"""Points exactly as stated (issue 34, item 7): exact shares, one rounding, rows that add up.

Every share is a fraction (10 points over 3 tests is 10/3 each, half a share for an advised
kernel where the course says so), so a student's exact points are the plain sum of what they
earned. The one rounding rule (docs/instructor.md, "How points are rounded"): the student's
total is rounded once to hundredths, halves up; the sections shown are that total shared out
by largest remainder (each the exact section points rounded down or up), the two parts of a
section (tests, answers) likewise, and a part's tests get hundredths that add up to the part,
a passed test always showing its whole share. So every row is within 0.01 of its exact value
and every sum of rows is the total shown: 7 of 10 equal tests passed is 7.00, never 6.98.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Optional, Sequence


def exact(points) -> Fraction:
    """A number of points as written in course.toml (7.5, 10) as an exact fraction."""
    return Fraction(str(points)) if isinstance(points, float) else Fraction(points)


def half_up(hundredths: Fraction) -> int:
    """The rule's one rounding: hundredths (exact) to the nearest whole hundredth, halves up."""
    return (hundredths.numerator * 2 + hundredths.denominator) // (hundredths.denominator * 2)


def apportion(target: int, shares: Sequence[Fraction], caps: Optional[Sequence[int]] = None,
              first: Sequence[int] = ()) -> list:
    """Whole hundredths adding up to `target`, one per exact share (in hundredths), each its
    share rounded down or up (never above its cap): the largest remainders get the odd
    hundredths, ties going to the indices in `first`, then in order."""
    caps = list(caps) if caps is not None else [None] * len(shares)
    out = [min(s.numerator // s.denominator, c) if c is not None else s.numerator // s.denominator
           for s, c in zip(shares, caps)]
    firsts = set(first)
    rank = sorted(range(len(shares)), key=lambda i: (-(shares[i] - (shares[i].numerator // shares[i].denominator)),
                                                     i not in firsts, i))
    left = target - sum(out)
    for room in (lambda i: shares[i] > out[i], lambda i: True):  # rounded up first; then wherever there is room
        for i in rank:
            if left <= 0:
                break
            if room(i) and (caps[i] is None or out[i] < caps[i]):
                out[i] += 1
                left -= 1
    return out


def part(target: int, worth: int, outcomes: Sequence[Fraction]) -> tuple:
    """(scores, maxima) in hundredths of one part's tests, which share `worth` hundredths
    evenly, with `outcomes` the fraction of its share each earned (1 passed, 1/2 partial, 0
    failed) and `target` the part's hundredths: a passed test's score is its maximum, the
    maxima add up to `worth` and the scores to `target`. The odd hundredths of the maxima go
    to as many passed tests as the target needs and the rest to the others."""
    n = len(outcomes)
    if n == 0:
        return [], []
    low, odd = divmod(worth, n)
    passed = [i for i, f in enumerate(outcomes) if f == 1]
    partial = [i for i, f in enumerate(outcomes) if 0 < f < 1]
    others = partial + [i for i, f in enumerate(outcomes) if f == 0]
    share = Fraction(worth, n)
    ideal = Fraction(len(passed) * odd, n)
    for up in sorted(range(min(len(passed), odd) + 1), key=lambda q: (abs(q - ideal), q)):
        if odd - up > len(others):
            continue
        maxima = [low] * n
        for i in passed[:up] + others[:odd - up]:
            maxima[i] += 1
        left = target - len(passed) * low - up
        halves = [share * outcomes[i] for i in partial]
        if sum(h.numerator // h.denominator for h in halves) <= left <= sum(maxima[i] for i in partial):
            scores = [maxima[i] if i in passed else 0 for i in range(n)]
            got = apportion(left, halves, [maxima[i] for i in partial])
            for i, g in zip(partial, got):
                scores[i] = g
            return scores, maxima
    # Not reachable for a target that is the part's exact points rounded down or up; kept so that
    # a wrong target still adds up (the maxima then in order, the scores within them).
    maxima = [low + (1 if k < odd else 0) for k in range(n)]
    return apportion(target, [share * f for f in outcomes], maxima, passed), maxima
