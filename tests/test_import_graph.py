"""The import graph: no circle crosses a folder, the family protocol imports nothing above it, and the root of
the package holds only what a reader expects there.

Every import counts, wherever it is written (module level, inside a function, under ``TYPE_CHECKING``): a
deferred import is still a dependency, only a later one. Importing ``a.b.c`` runs ``a/__init__.py`` and
``a/b/__init__.py`` first, so every module also depends on the packages above it.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from pathlib import Path

import niah

PACKAGE = Path(niah.__file__).resolve().parent
ARCHITECTURE = Path(__file__).resolve().parents[1] / "docs" / "architecture.md"


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def all_modules() -> dict[str, Path]:
    return {module_name(p): p for p in PACKAGE.rglob("*.py")}


def imports_of(name: str, source: str, is_package: bool, known: Iterable[str]) -> set[str]:
    """The modules of ``known`` that the module ``name`` (whose text is ``source``) imports: ``from a import b``
    counts ``a.b`` when that is a module, else ``a``; relative imports are resolved; parent packages count."""
    known = set(known)
    package = name if is_package else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[:len(package.split(".")) - (node.level - 1)]
                base = ".".join([*anchor, *([base] if base else [])])
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    out: set[str] = set()
    for module in found:
        while module and module not in known:
            module = module.rpartition(".")[0]
        if module:
            out.add(module)
    parent = name.rpartition(".")[0]
    while parent:  # importing a module runs every package __init__ above it
        if parent in known:
            out.add(parent)
        parent = parent.rpartition(".")[0]
    out.discard(name)
    return out


def import_graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    return {name: imports_of(name, path.read_text(encoding="utf-8"), path.name == "__init__.py", modules)
            for name, path in modules.items()}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of ``graph`` with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    component.append(top)
                    if top == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def folder_of(name: str, modules: dict[str, Path]) -> Path:
    return modules[name].parent


def test_the_graph_sees_what_it_is_meant_to() -> None:
    modules = {"p": Path("p/__init__.py"), "p.a": Path("p/a.py"), "p.b": Path("p/b.py"), "p.q": Path("p/q/__init__.py"),
               "p.q.c": Path("p/q/c.py")}
    sources = {"p": "", "p.a": "def f():\n    from p.q import c\n", "p.b": "from . import a\n",
               "p.q": "", "p.q.c": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from p.b import x\n"}
    graph = {name: imports_of(name, sources[name], path.name == "__init__.py", modules)
             for name, path in modules.items()}
    assert graph["p.a"] == {"p", "p.q", "p.q.c"}  # a deferred import counts, and the packages it runs
    assert graph["p.b"] == {"p", "p.a"}            # a relative import is resolved
    assert graph["p.q.c"] == {"p", "p.q", "p.b"}   # so does one under TYPE_CHECKING
    assert circles(graph) == [["p.a", "p.b", "p.q.c"]]
    assert {folder_of(m, modules) for m in circles(graph)[0]} == {Path("p"), Path("p/q")}


def test_no_import_circle_crosses_a_folder() -> None:
    modules = all_modules()
    crossing = [component for component in circles(import_graph(modules))
                if len({folder_of(m, modules) for m in component}) > 1]
    assert not crossing, "import circles across folders: " + "; ".join(" <-> ".join(c) for c in crossing)


#: The stages above the family layer: the protocol must reach none of them, however indirectly.
ABOVE_THE_PROTOCOL = ("niah.cli", "niah.commands", "niah.run", "niah.scoring.score", "niah.scoring.judges",
                      "niah.report", "niah.audit.dataset", "niah.interop", "niah.eval", "niah.models",
                      "niah.prompts.render", "niah.benchmarks.registry")


def test_every_arrow_of_the_family_protocol_points_down() -> None:
    graph = import_graph(all_modules())
    reached: set[str] = set()
    todo = ["niah.benchmarks.protocol"]
    while todo:
        for dep in graph[todo.pop()]:
            if dep not in reached:
                reached.add(dep)
                todo.append(dep)
    above = sorted(m for m in reached if any(m == a or m.startswith(a + ".") for a in ABOVE_THE_PROTOCOL))
    assert above == [], f"the family protocol reaches stages above it: {above}"


def test_the_root_holds_at_most_a_dozen_modules() -> None:
    root = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(root) <= 12, root


def layer_of(name: str, modules: dict[str, Path]) -> str:
    """The row of docs/architecture.md's folder table a module belongs to: its folder (``scoring/metrics``), a
    root module's file name (``cli.py``), or ``benchmarks/*`` for a family's folder."""
    rel = modules[name].relative_to(PACKAGE)
    if len(rel.parts) == 1:
        return rel.name
    folder = rel.parent.as_posix()
    if folder.startswith("benchmarks/"):
        return "benchmarks/*"
    return folder


def allowed_imports(doc: str) -> dict[str, set[str]]:
    """docs/architecture.md's folder table: row -> the rows it may import. "every folder above but X" is every
    earlier row but those named; "another family" allows ``benchmarks/*``."""
    table = doc[doc.index("| folder | what it does | may import |"):]
    rows = []
    for line in table.splitlines()[2:]:
        if not line.startswith("|"):
            break  # the table ends at its first line that is not a row
        rows.append(line)
    allowed: dict[str, set[str]] = {}
    order: list[str] = []
    for line in rows:
        folders_cell, _, may = [c.strip() for c in line.strip("|").split("|")]
        keys = [k.rstrip("/") for k in re.findall(r"`([^`]+)`", folders_cell)]
        named = {n.rstrip("/") for n in re.findall(r"`([^`]+?)`", may.split(";")[0])}
        if may.startswith("every folder above but"):
            ok = set(order) - named
        elif may == "nothing of niah":
            ok = set()
        else:
            ok = {n.rstrip("/") for n in re.findall(r"`([^`]+?)`", may)}
        if "another family" in may:
            ok.add("benchmarks/*")
        for key in keys:
            allowed[key] = ok | {key}
        order.extend(keys)
    return allowed


def test_every_import_is_one_the_architecture_table_allows() -> None:
    modules = all_modules()
    allowed = allowed_imports(ARCHITECTURE.read_text(encoding="utf-8"))
    layers = {layer_of(name, modules) for name in modules} - {"__init__.py"}
    assert layers <= set(allowed), f"folders missing from docs/architecture.md's table: {sorted(layers - set(allowed))}"
    bad = []
    for name, deps in import_graph(modules).items():
        here = layer_of(name, modules)
        for dep in deps:
            there = layer_of(dep, modules)
            runs_first = name.startswith(dep + ".")  # a package __init__ above the module: Python runs it first
            if there != "__init__.py" and not runs_first and there not in allowed.get(here, set()):
                bad.append(f"{name} ({here}) imports {dep} ({there})")
    assert not bad, "imports docs/architecture.md does not allow:\n" + "\n".join(sorted(bad))


def test_the_table_reading_sees_what_it_is_meant_to() -> None:
    doc = """| folder | what it does | may import |
| --- | --- | --- |
| `util/` | helpers | nothing of niah |
| `run/` | runs | `util/`, `models/` (the backends) |
| `commands/` | verbs | every folder above but `run/` |
| `benchmarks/*/` | families | every folder above but `commands/`; another family's modules |
"""
    assert allowed_imports(doc) == {"util": {"util"}, "run": {"util", "models", "run"}, "commands": {"util", "commands"},
                                    "benchmarks/*": {"util", "run", "benchmarks/*"}}
