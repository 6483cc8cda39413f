"""A kernel file's text as code: comments and string and character literals blanked, every other
character (line breaks included) where it was, so that a search of the code finds no word of a
comment and every position found is the file's own (own_names.py, extern_c.py)."""
import re

COMMENT_OR_LITERAL = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)


def code_only(text, keep=()):
    """`text` with comments and literals blanked, but the literals in `keep` (extern_c keeps "C")."""
    def blank(m):
        return m.group(0) if m.group(0) in keep else re.sub(r"[^\n]", " ", m.group(0))
    return COMMENT_OR_LITERAL.sub(blank, text)
