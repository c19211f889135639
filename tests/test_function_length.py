"""Function length: no function or method of the ``niah`` package runs over 100 lines.

A stage reads as a short function that wires named steps (``niah.run.run_dataset``); a 300-line function is
read by nobody. A function's length is counted from its ``def`` line to its last line (decorators excluded,
docstring and comments included, nested functions counted in their parent as well as on their own).

The one way past the limit is a hot path whose length is measured: its docstring holds a line

    Length: hot path; bench/NAME.py: FIGURE

where ``bench/NAME.py`` is a bench script of this repository that times the function and ``FIGURE`` is the
figure it gave (a number with its unit), so a reader can check that splitting it would cost speed.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

import niah

PACKAGE = Path(niah.__file__).resolve().parent
REPO = PACKAGE.parent.parent
MAX_LINES = 100
#: The docstring line that lets a hot path run longer: the bench script that times it and the figure it gave.
HOT_PATH = re.compile(r"^\s*Length: hot path; (bench/[\w/]+\.py): (.*\d.*)$", re.MULTILINE)


@dataclass(frozen=True)
class LongFunction:
    """A function over the limit: where it is, its qualified name, its length, and its hot-path line if any."""

    path: str
    line: int
    name: str
    lines: int
    bench: str | None


def long_functions(source: str, path: str, limit: int = MAX_LINES) -> list[LongFunction]:
    """Every function or method of ``source`` longer than ``limit`` lines (``def`` line to last line)."""
    found: list[LongFunction] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = prefix + child.name
                length = (child.end_lineno or child.lineno) - child.lineno + 1
                if length > limit:
                    hot = HOT_PATH.search(ast.get_docstring(child) or "")
                    found.append(LongFunction(path, child.lineno, name, length, hot.group(1) if hot else None))
                visit(child, name + ".")
            elif isinstance(child, ast.ClassDef):
                visit(child, prefix + child.name + ".")
            else:
                visit(child, prefix)

    visit(ast.parse(source), "")
    return found


def package_long_functions() -> list[LongFunction]:
    found: list[LongFunction] = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE).as_posix()
        found.extend(long_functions(path.read_text(encoding="utf-8"), relative))
    return found


def test_no_function_over_the_limit_unless_a_measured_hot_path() -> None:
    unjustified = [f for f in package_long_functions() if f.bench is None]
    assert not unjustified, f"functions over {MAX_LINES} lines (split them into named steps):\n" + "\n".join(
        f"  src/niah/{f.path}:{f.line}: {f.name} ({f.lines} lines)" for f in unjustified)


def test_every_hot_path_names_a_bench_script_that_exists() -> None:
    missing = [f for f in package_long_functions() if f.bench is not None and not (REPO / f.bench).is_file()]
    assert not missing, "hot paths naming a bench script that does not exist:\n" + "\n".join(
        f"  src/niah/{f.path}:{f.line}: {f.name}: {f.bench}" for f in missing)


def _function(body_lines: int, docstring: str = "") -> str:
    """A function ``body_lines`` + 1 lines long (its ``def`` line, then the docstring and ``pass`` lines)."""
    doc = [f'    """{line}"""' if len(docstring.splitlines()) == 1 else line for line in docstring.splitlines()]
    return "\n".join(["def f() -> None:", *doc, *["    pass"] * (body_lines - len(doc))]) + "\n"


@pytest.mark.parametrize(("body_lines", "expected"), [(MAX_LINES - 1, []), (MAX_LINES, [("f", MAX_LINES + 1)])])
def test_the_count_runs_from_the_def_line_to_the_last(body_lines: int, expected: list[tuple[str, int]]) -> None:
    source = "@decorator\n@other\n" + _function(body_lines)  # decorators are not counted
    assert [(f.name, f.lines) for f in long_functions(source, "x.py")] == expected


def test_methods_and_nested_functions_are_counted_with_their_qualified_name() -> None:
    body = ["        def f() -> None:", *["            pass"] * MAX_LINES]
    source = "\n".join(["class C:", "    def m(self) -> None:", *body]) + "\n"
    found = [(f.name, f.lines) for f in long_functions(source, "x.py")]
    assert found == [("C.m", MAX_LINES + 2), ("C.m.f", MAX_LINES + 1)]


def test_only_a_docstring_hot_path_line_with_a_bench_figure_justifies_a_long_function() -> None:
    marked = '    """Fast.\n\n    Length: hot path; bench/haystack_build.py: 1.9 ms/sample\n    """'
    unmarked = '    """Fast.\n\n    Length: hot path; bench/haystack_build.py: soon\n    """'
    assert [f.bench for f in long_functions(_function(MAX_LINES, marked), "x.py")] == ["bench/haystack_build.py"]
    assert [f.bench for f in long_functions(_function(MAX_LINES, unmarked), "x.py")] == [None]
    # the line in a comment rather than the docstring does not count
    commented = "def f() -> None:\n    # Length: hot path; bench/haystack_build.py: 1.9 ms/sample\n" + "    pass\n" * MAX_LINES
    assert [f.bench for f in long_functions(commented, "x.py")] == [None]
