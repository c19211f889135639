"""Layering: the shared stages know no benchmark family.

Every module of the ``niah`` package outside ``niah/benchmarks/`` may use the family protocol, the types beside it
(``niah.benchmarks.results``) and the registry, nothing else of ``niah.benchmarks``, and its source text (code, comments and docstrings) names no family. The
family names come from the registry (each family's name, title and package), so a new family is covered as soon
as it has its registry line.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import niah
from niah.benchmarks import registry

PACKAGE = Path(niah.__file__).resolve().parent
FAMILY_ROOT = PACKAGE / "benchmarks"
#: What a shared stage may import from ``niah.benchmarks``.
ALLOWED = frozenset({"niah.benchmarks.protocol", "niah.benchmarks.results", "niah.benchmarks.registry"})


def shared_modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if FAMILY_ROOT not in p.parents)


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(tree: ast.AST, name: str, is_package: bool) -> list[tuple[int, str]]:
    """(line, absolute module) for every import in ``tree``; ``from a import b`` yields ``a.b`` as well as ``a``,
    since ``b`` may be a submodule. String constants that look like a ``niah.benchmarks`` module (what
    ``importlib.import_module`` would be given) count as imports too."""
    package = name if is_package else name.rpartition(".")[0]
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[:len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, *([base] if base else [])])
            found.append((node.lineno, base))
            found.extend((node.lineno, f"{base}.{alias.name}") for alias in node.names if alias.name != "*")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            ref = node.value.partition(":")[0]
            if re.fullmatch(r"niah\.benchmarks(\.\w+)+", ref):
                found.append((node.lineno, ref))
    return found


def forbidden_import(module: str) -> bool:
    """True for a module of ``niah.benchmarks`` other than the protocol, its types and the registry (or their
    members)."""
    if not module.startswith("niah.benchmarks."):
        return False
    return not any(module == ok or module.startswith(ok + ".") for ok in ALLOWED)


def family_terms() -> dict[str, set[str]]:
    """Shipped family name -> the words that name it: its name, title and package (``niah.benchmarks.<pkg>``)."""
    terms: dict[str, set[str]] = {}
    for name, module in registry.FAMILIES.items():
        if not module.startswith("niah.benchmarks."):
            continue  # registered at run time by a test, not shipped
        family = registry.get_family(name)
        terms[name] = {name, family.title, module.split(".")[2]}
    return terms


def term_pattern(term: str) -> re.Pattern[str]:
    """``MM-NIAH`` -> matches MM-NIAH, mm_niah, mm niah, mmniah, ... as a whole word (case-insensitive)."""
    words = [w for w in re.split(r"[^0-9A-Za-z]+", term) if w]
    return re.compile(r"(?<![0-9a-z])" + r"[\s_\-.]?".join(map(re.escape, words)) + r"(?![0-9a-z])", re.I)


def family_mentions(text: str, terms: dict[str, set[str]]) -> list[tuple[int, str, str]]:
    """(line, family, matched text) for every mention of a family in ``text``."""
    out = []
    for family, words in terms.items():
        for pattern in {term_pattern(w).pattern: term_pattern(w) for w in words}.values():
            for m in pattern.finditer(text):
                out.append((text.count("\n", 0, m.start()) + 1, family, m.group(0)))
    return sorted(set(out))


def test_the_checks_see_what_they_are_meant_to() -> None:
    terms = family_terms()
    assert {"mm-niah", "seq-niah"} <= set(terms)  # the shipped families are found through the registry
    text = "a\nMM-NIAH\nmm_niah.build\nSequential-NIAH\nseq niah\n'milebench/rouge-l'\nniah and NIAH stay\nxmm_niahx"
    assert [(line, fam) for line, fam, _ in family_mentions(text, terms)] == [
        (2, "mm-niah"), (3, "mm-niah"), (4, "seq-niah"), (5, "seq-niah"), (6, "milebench")]
    tree = ast.parse("from niah.benchmarks import registry, mm_niah\nimport niah.benchmarks.protocol\n"
                     "from ..benchmarks.seq_niah import build\nx = 'niah.benchmarks.milebench.family:FAMILY'\n")
    bad = [(line, m) for line, m in imported_modules(tree, "niah.report.build", False) if forbidden_import(m)]
    assert bad == [(1, "niah.benchmarks.mm_niah"), (3, "niah.benchmarks.seq_niah"),
                   (3, "niah.benchmarks.seq_niah.build"), (4, "niah.benchmarks.milebench.family")]


@pytest.mark.parametrize("path", shared_modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_shared_module_uses_only_the_protocol_and_the_registry(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    bad = [f"line {line}: {module}"
           for line, module in imported_modules(tree, module_name(path), path.name == "__init__.py")
           if forbidden_import(module)]
    assert not bad, f"{path.relative_to(PACKAGE)} imports family code: {', '.join(bad)}"


@pytest.mark.parametrize("path", shared_modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_shared_module_names_no_family(path: Path) -> None:
    found = family_mentions(path.read_text(encoding="utf-8"), family_terms())
    assert not found, f"{path.relative_to(PACKAGE)} names a family: " + ", ".join(
        f"line {line}: {text!r} ({family})" for line, family, text in found)
