"""The command line builds only the parser of the command a run names (cli._parse): the same
arguments as the whole tree reads, the same messages where a run names no command or a wrong one."""
import contextlib
import io
import unittest

from halo import cli

# One command line per kind of parser: positionals, options with values, a nested subcommand,
# an internal one, flags.
SAMPLES = [
    ["grade", "7.2", "7.4", "--student", "bob", "--build-dir", "b"],
    ["grade-class", "subs", "--jobs", "2", "--fresh", "--assignment", "one"],
    ["export", "gradescope", "--results", "r.json", "--execution-time", "3"],
    ["bench", "--loop", "--busy", "2"],
    ["hint", "7.4", "--all"],
    ["internal", "check-answer", "--section", "7.1", "--question", "book3_p6", "--file", "a.toml"],
    ["internal", "expect-failure", "--binary", "b", "--wrong-kernel", "7.8", "some name"],
    ["check", "--arch", "arm64"],
]


def _choices(parser):
    return list(parser._subparsers._group_actions[0].choices)


def _fails(argv) -> str:
    """What argparse prints when `argv` is refused (it exits)."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        with unittest.TestCase().assertRaises(SystemExit):
            cli._parse(argv)
    return err.getvalue()


class NamedCommandOnly(unittest.TestCase):
    def test_the_named_command_reads_its_arguments_as_the_whole_tree_does(self):
        for argv in SAMPLES:
            with self.subTest(argv=argv):
                try:
                    expected = cli._parser().parse_args(argv)
                except SystemExit:  # a sample argparse refuses must be refused alike
                    self.fail(f"{argv} is not a valid command line")
                self.assertEqual(vars(cli._parse(argv)), vars(expected))

    def test_only_the_named_command_is_built(self):
        self.assertEqual(_choices(cli._parser("grade")), ["grade"])
        internal = cli._parser("internal", "check-answer")
        inner = internal._subparsers._group_actions[0].choices["internal"]
        self.assertEqual(_choices(inner), ["check-answer"])
        self.assertGreater(len(_choices(cli._parser())), 10)

    def test_every_command_and_internal_command_can_be_built_alone(self):
        whole = cli._parser()
        for name in _choices(whole):
            with self.subTest(command=name):
                self.assertEqual(_choices(cli._parser(name)), [name])
        for name in _choices(whole._subparsers._group_actions[0].choices["internal"]):
            with self.subTest(internal=name):
                self.assertIsNotNone(cli._parser("internal", name))

    def test_a_command_no_parser_has_gets_the_whole_list(self):
        self.assertIsNone(cli._parser("gradee"))
        said = _fails(["gradee"])
        self.assertIn("invalid choice: 'gradee'", said)
        self.assertIn("grade-class", said)
        said = _fails(["internal", "no-such"])
        self.assertIn("invalid choice: 'no-such'", said)
        self.assertIn("check-answer", said)

    def test_an_unknown_option_is_told_with_the_whole_tree_s_usage(self):
        said = _fails(["grade", "--no-such-option"])
        self.assertIn("unrecognized arguments: --no-such-option", said)
        self.assertIn("grade-class", said)  # the usage line names every command, as before


if __name__ == "__main__":
    unittest.main()
