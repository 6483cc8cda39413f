"""The expression language: what it accepts, what it rejects, and what it computes."""
import unittest

from halo.core.expressions import (ExpressionError, calls_used, conv1d, evaluate, format_number,
                              format_value, names_used, to_cpp)


class Rejected(unittest.TestCase):
    # Each construct outside the language, with a word its error message must contain.
    CASES = {
        "a.b": "attribute",
        "math.floor(a)": "attribute",
        "2 ** 3": "**",
        "a // b": "//",
        "a % b": "%",
        "a @ b": "@",
        "a << 1": "<<",
        "a & b": "&",
        "a < b": "comparison",
        "a == b": "comparison",
        "a and b": "and",
        "not a": "not",
        "~a": "~",
        "f(x=1)": "keyword",
        "f(*xs)": "unpacking",
        "'text'": "string",
        "b'x'": "bytes",
        "True": "boolean",
        "None": "None",
        "1j": "complex",
        "lambda: 1": "lambda",
        "a if b else c": "conditional",
        "[x for x in xs]": "comprehension",
        "(1, 2)": "tuple",
        "{1, 2}": "set",
        "{1: 2}": "dict",
        "xs[1:2]": "slice",
        "xs[0.5]": "index",
        "(y := 1)": ":=",
        "f'{a}'": "f-string",
        "f(x)(y)": "plain function name",
        "1 2": "syntax error",
        "": "empty",
    }

    def test_every_construct_is_rejected_by_name(self):
        for expr, word in self.CASES.items():
            with self.subTest(expr=expr):
                with self.assertRaises(ExpressionError) as ctx:
                    evaluate(expr, {"a": 1, "b": 2, "c": 3, "xs": [1, 2], "x": 1},
                             {"f": lambda *a: 1})
                self.assertIn(word, str(ctx.exception))

    def test_attribute_never_reaches_python(self):
        with self.assertRaises(ExpressionError):
            evaluate("().__class__", {})

    def test_runtime_errors(self):
        for expr, env in [("a / 0", {"a": 1}), ("q + 1", {}), ("nope(1)", {}),
                          ("floor_div(1)", {}), ("xs[5]", {"xs": [1]}), ("xs + 1", {"xs": [1]}),
                          ("a[0]", {"a": 3}), ("conv1d(1, 2)", {})]:
            with self.subTest(expr=expr), self.assertRaises(ExpressionError):
                evaluate(expr, env)


class Evaluation(unittest.TestCase):
    def test_arithmetic_is_true_division(self):
        self.assertEqual(evaluate("7 / 2"), 3.5)
        self.assertEqual(evaluate("-(2 + 3) * +4 - 1"), -21)
        self.assertEqual(evaluate("10 - 4 - 3"), 3)

    def test_floor_and_ceil_div_on_negatives(self):
        self.assertEqual(evaluate("floor_div(7, 2)"), 3)
        self.assertEqual(evaluate("floor_div(-7, 2)"), -4)
        self.assertEqual(evaluate("floor_div(7, -2)"), -4)
        self.assertEqual(evaluate("ceil_div(-7, 2)"), -3)
        self.assertEqual(evaluate("ceil_div(1000, 256)"), 4)

    def test_min_max(self):
        self.assertEqual(evaluate("min(3, 1, 2) + max(4, 9)"), 10)
        self.assertEqual(evaluate("max(xs)", {"xs": [4, 8, 1]}), 8)

    def test_functions_and_names(self):
        env, funcs = {"n": 4}, {"twice": lambda v: 2 * v}
        self.assertEqual(evaluate("twice(n) + 1", env, funcs), 9)
        # Builtins keep their meaning whatever is passed in.
        self.assertEqual(evaluate("min(2, 3)", {}, {"min": lambda *a: 99}), 2)

    def test_conv1d_against_the_books_examples(self):
        self.assertEqual(conv1d([1, 2, 3, 4, 5, 6, 7], [3, 4, 5, 4, 3])[:4], [22, 38, 57, 76])
        self.assertEqual(conv1d([8, 2, 5, 4, 1, 7, 3], [1, 3, 5, 3, 1])[:4], [51, 53, 52, 47])
        self.assertEqual(evaluate("conv1d([4, 1, 3, 2, 3], [2, 1, 4])"), [8, 21, 13, 20, 7])
        self.assertEqual(evaluate("conv1d(N, M)[6]", {"N": [1, 2, 3, 4, 5, 6, 7],
                                                      "M": [3, 4, 5, 4, 3]}),
                         5 * 3 + 6 * 4 + 7 * 5)  # the two ghost cells past the end count 0

    def test_names_and_calls_used(self):
        expr = "min(i + radius(W), n - 1) + xs[k]"
        self.assertEqual(names_used(expr), {"i", "W", "n", "xs", "k"})
        self.assertEqual(calls_used(expr), {"min", "radius"})


class Formatting(unittest.TestCase):
    def test_format_number(self):
        self.assertEqual(format_number(22.0), "22")
        self.assertEqual(format_number(5242874.0), "5242874")
        self.assertEqual(format_number(-4.0), "-4")
        self.assertEqual(format_number(3.5), "3.5")
        self.assertEqual(format_number(1 / 3), "0.333333")
        self.assertEqual(format_number(2.1000004), "2.1")
        self.assertEqual(format_number(1e-9), "1e-09")
        self.assertEqual(format_value([8.0, 21.0, 0.5]), "[8, 21, 0.5]")


class Cpp(unittest.TestCase):
    def test_translation(self):
        self.assertEqual(to_cpp("n * (n + 1) / 2"), "n * (n + 1.0) / 2.0")
        self.assertEqual(to_cpp("a - (b - c)"), "a - (b - c)")
        self.assertEqual(to_cpp("(a - b) - c"), "a - b - c")
        self.assertEqual(to_cpp("a / (b * c)"), "a / (b * c)")
        self.assertEqual(to_cpp("-(-x)"), "-(-x)")  # not the decrement --x
        self.assertEqual(to_cpp("min(a, b, c)"), "std::min(a, std::min(b, c))")
        self.assertEqual(to_cpp("max(radius(m), 0) + floor_div(m, 2) + ceil_div(m, 2)", {"radius"}),
                         "std::max(radius(m), 0.0) + floor_div(m, 2.0) + ceil_div(m, 2.0)")

    def test_rejected_in_cpp(self):
        for expr in ["conv1d(N, M)", "[1, 2]", "xs[0]", "unknown(1)", "min(a)", "a + int"]:
            with self.subTest(expr=expr), self.assertRaises(ExpressionError):
                to_cpp(expr, {"radius"})
        with self.assertRaises(ExpressionError) as ctx:
            to_cpp("conv1d(N, M)[0]")
        self.assertIn("not available in C++", str(ctx.exception))


if __name__ == "__main__":
    unittest.main()
