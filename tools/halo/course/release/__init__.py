"""`./workbook release` and what it stands on, one room: make.py writes a release (the Classroom
template) from the last commit; files.py says what a release holds and cuts chapters/ down
(toml_cuts.py); leaks.py and withheld.py refuse a release that would carry a line of a solution
or a withheld answer's value; readme.py writes its README; guard.py marks a release so that the
instructor's commands refuse in it; check.py is the project's own end-to-end check of a release."""
