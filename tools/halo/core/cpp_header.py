"""The chapter's formulas, examples and measurements as a C++17 header for the grader.

The grader's expected numbers then come from the same questions.toml as the answer key, so
the two cannot disagree.
"""
from __future__ import annotations

import textwrap

from . import expressions as ex
from . import own_names

_PREAMBLE = """\
// Generated from chapters/*/questions.toml by `./workbook`; it must not be edited: edit the
// TOML files and regenerate it.
#pragma once

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

namespace halo::data {

// The book's integer divisions, over double like every formula below.
inline double floor_div(double a, double b) { return std::floor(a / b); }
inline double ceil_div(double a, double b) { return std::ceil(a / b); }
"""

_EXAMPLE_STRUCT = """\
struct Example {
    const char* name;
    std::vector<double> N, M;
    std::vector<std::pair<int, double>> P_known;  // [index, value] pairs the book prints
};
"""


def _comment(text: str, indent: str = "") -> list[str]:
    # A trailing backslash would splice the next line into the // comment.
    return [f"{indent}// {line.rstrip(chr(92))}" for line in textwrap.wrap(text, 96 - len(indent))]


def _name(name: str, what: str) -> str:
    if name in ex.CPP_KEYWORDS:
        raise ValueError(f"{what} {name!r} is a C++ keyword and cannot be a C++ name")
    return name


def _formula(f, known) -> list[str]:
    used = set(ex.names_used(f.expr))
    for _, let_expr in f.lets:
        used |= ex.names_used(let_expr)
    # Unused parameters keep their name in a comment, so -Wunused-parameter stays quiet.
    params = ", ".join(f"double {p}" if p in used else f"double /*{p}*/" for p in f.params)
    head = f"inline double {_name(f.name, 'formula')}({params})"
    lines = _comment(f"{f.doc} [section {f.section_id}]".strip())
    body = ex.to_cpp(f.expr, known)
    if not f.lets:
        return lines + [f"{head} {{ return {body}; }}"]
    lines.append(head + " {")
    lines += [f"    const double {n} = {ex.to_cpp(e, known)};" for n, e in f.lets]
    return lines + [f"    return {body};", "}"]


def _doubles(values) -> str:
    return "{" + ", ".join(ex._cpp_literal(v) for v in values) + "}"


def _example(e) -> list[str]:
    pairs = ", ".join(f"{{{int(i)}, {ex._cpp_literal(v)}}}" for i, v in e.fields.get("P_known", []))
    init = (f'"{e.name}", {_doubles(e.fields.get("N", []))}, {_doubles(e.fields.get("M", []))}, '
            f"{{{pairs}}}")
    return _comment(e.doc, "") + [f"inline const Example {_name(e.name, 'example')}{{{init}}};"]


def _measurement(m) -> list[str]:
    lines = _comment(m.doc)
    lines.append(f"inline constexpr struct {_name(m.name, 'measurement')}_t {{")
    lines += [f"    double {_name(k, 'measurement field')};" for k in m.fields]
    values = ", ".join(ex._cpp_literal(v) for v in m.fields.values())
    return lines + [f"}} {m.name}{{{values}}};"]


def emit_header(chapter) -> str:
    """The header text; ValueError if a name cannot be a C++ name."""
    clash = set(chapter.formulas) & {"floor_div", "ceil_div", "Example", "examples", "measurements"}
    if clash:
        raise ValueError(f"formula name(s) {', '.join(sorted(clash))} clash with the header's own names")
    out = [_PREAMBLE]
    for name in chapter.formula_order():
        out += _formula(chapter.formulas[name], chapter.formulas) + [""]
    out += [_EXAMPLE_STRUCT, "namespace examples {", ""]
    for e in chapter.examples.values():
        out += _example(e) + [""]
    out += ["}  // namespace examples", "", "namespace measurements {", ""]
    for m in chapter.measurements.values():
        out += _measurement(m) + [""]
    out += ["}  // namespace measurements", "", "namespace defines {", ""]
    for name, (value, section_id) in chapter.defines.items():
        # Where chapter_defines.hpp is also included the name is a macro already: use that.
        out += [f"#ifndef {name}", f"inline constexpr int {name} = {value};  // [section {section_id}]", "#endif"]
    out += ["", "}  // namespace defines", "", "}  // namespace halo::data", ""]
    return "\n".join(out)


def emit_defines(chapter) -> str:
    """The chapter's compile-time constants as #defines, pre-included into every kernel file
    (as the book's `#define MAX_MASK_WIDTH 10` would be), so kernels and tests share them."""
    out = ["// Generated from the [defines] of chapters/*/questions.toml by `./workbook`; do not edit.",
           "#pragma once", ""]
    # A kernel file that declares the name itself is compiled with -DHALO_OWN_<name> (own_names.py).
    for name, (value, section_id) in chapter.defines.items():
        out += [f"#if !defined({name}) && !defined({own_names.FLAG_PREFIX}{name})",
                f"#define {name} {value}  // [section {section_id}]", "#endif"]
    return "\n".join(out) + "\n"
