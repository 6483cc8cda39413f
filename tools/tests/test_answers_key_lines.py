"""answers._key_lines finds each key's line by plain string tests. It must name the same line as
the one regular expression per key it replaced (kept here as the reference), on every answers file
of the project and on texts made to sit on its edges: quotes, tables, arrays of tables, blanks,
carriage returns, keys that are prefixes of others or start with a bracket."""
import random
import re
import unittest

from halo.core import answers
from tests.helpers import REPO_ROOT


def by_pattern(text, keys):
    """The replaced form: one expression a key, searched with re.M."""
    lines = {}
    for key in keys:
        k = re.escape(key)
        name = rf"(?:{k}|\"{k}\"|'{k}')"
        pattern = re.compile(rf"^[ \t]*(?:{name}[ \t]*[=.]|\[\[?[ \t]*{name}[ \t]*[\].])", re.M)
        m = pattern.search(text)
        if m:
            lines[key] = text.count("\n", 0, m.start()) + 1
    return lines


KEYS = ["a", "ab", "a.b", "[x", "q_1", "exercise1_p0", "exercise1", "sp ace"]
PIECES = ["a", "ab", "a.b", "[x", "q_1", "exercise1_p0", "exercise1", "sp ace", '"a"', "'ab'", '"a.b"', "'[x'",
          "[", "[[", "]", "]]", " ", "\t", "=", ".", "\n", "\r\n", "\r", "1", "#", '"', "'", "x", "\u2028"]


class KeyLines(unittest.TestCase):
    def test_every_answers_file_of_the_project(self):
        files = sorted(REPO_ROOT.glob("*/7.*/answers.toml"))
        self.assertGreater(len(files), 10)
        for path in files:
            text = path.read_text()
            keys = list(answers.loads_toml(text))
            with self.subTest(str(path.relative_to(REPO_ROOT))):
                self.assertTrue(keys)
                self.assertEqual(answers._key_lines(text, keys), by_pattern(text, keys))

    def test_texts_on_the_edges(self):
        rng = random.Random(7)
        for _ in range(4000):
            text = "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 30)))
            keys = rng.sample(KEYS, rng.randint(1, len(KEYS)))
            with self.subTest(text=text, keys=keys):
                self.assertEqual(answers._key_lines(text, keys), by_pattern(text, keys))

    def test_control_a_wrong_line_is_seen(self):
        # The comparison above can fail: a version that counts lines by splitlines() (which also
        # splits at a form feed too) names another line than the expression does.
        text = "x = 1\x0cy\nab = 3\n"
        self.assertEqual(by_pattern(text, ["ab"]), {"ab": 2})
        self.assertEqual(answers._key_lines(text, ["ab"]), {"ab": 2})
        wrong = {"ab": next(n for n, line in enumerate(text.splitlines(), 1) if line.startswith("ab"))}
        self.assertNotEqual(wrong, by_pattern(text, ["ab"]))


if __name__ == "__main__":
    unittest.main()
