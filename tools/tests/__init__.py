"""Tests of the halo tools (a package so that `unittest discover -s tests -t .` finds them)."""
