"""Halo workbook tools, in packages by who uses them (tests/test_package_layout.py keeps it so):

  core/     what every command stands on: the chapter's data and formulas, answers and variants,
            assignments, due dates and points (scoring.py), results and how a run's are
            assembled, the toolchain, the build, the sandbox and the kernel validator, the
            chapter's known mistakes (grader/wrong/), lesson rendering (for the terminal, the
            handouts and the docs site)
  student/  the student's loop: grade, status, hint, watch, reset
  course/   the instructor's: releases (release/), handouts, exports and the Gradescope
            autograder, per-student variant files, grade-class and the gradebook
  site/     the docs site, its figures and heat maps, the diagnostics and GPU pages
  bench/    ./workbook bench: CPU, GPU, the edit loop, the class, the isolation cost
  dev/      the project's checks of itself: ./workbook check, the red team, the learner corpus

cli.py is the command line. core imports nothing outside core, no modules import each other,
student and course do not import each other, and nothing a user runs imports dev.
"""
