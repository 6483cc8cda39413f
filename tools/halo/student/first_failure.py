"""The first failing kernel test, shown as soon as it ends: a student reads what is wrong while the
section's other tests still run (the 2^20-element launches take the longest), and the grouped
failures and the table follow when every test has run. A stub's "still a stub" is not shown here:
untouched sections get their one line at the end.

Only on a terminal: a log (CI, a file, the docs' quoted runs) reads the same whichever test
happened to end first, and holds each message once, in the grouped listing."""
from ..core import untouched
from ..core.failure_groups import failure_message
from ..core.results import parse_name

LINES = 25  # as many as the first group of the final listing shows


class FirstFailure:
    def __init__(self, progress):
        self.progress = progress
        self.shown = None  # the name of the test shown, once one has been

    def __call__(self, name, output):
        if not self.progress.live or self.shown is not None or parse_name(name)["kind"] == "answers":
            return
        message = failure_message(output)
        if not message or untouched.is_stub(message):
            return
        self.shown = name
        lines = [f"    {line}" for line in message.splitlines()[:LINES]]
        self.progress.say("\n".join([f"\nFAILED {name} (the first to fail: the rest follow when every test has run)",
                                     *lines, ""]))
