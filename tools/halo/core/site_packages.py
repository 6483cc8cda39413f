"""The installation's site-packages, for the one process that needs them.

Halo's own processes start Python with -S (the `workbook` launcher, CMake's HALO_WORKBOOK,
workbook_argv): the grader needs only the standard library, and `site` with the .pth files an
installation carries is most of a bare start on some machines (59 ms against 12 ms here, where
one .pth imports certifi; 18 ms less for `./workbook --help`, whose own imports overlap), paid
by every grade and by each of the check's some 2,700 Python processes. A command that does need
a package from site-packages (Jinja2 for the handouts, tomli on a Python older than 3.11) calls
`enable()` first: it adds what -S left out, exactly as the start would have (virtual
environments and user site included)."""
import sys

_done = False


def enable():
    """Adds the site directories that -S skipped; nothing when they are there already."""
    global _done
    if _done or not sys.flags.no_site:
        return
    _done = True
    import site
    site.main()
