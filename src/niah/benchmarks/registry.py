"""The one place that names benchmark families. Each is imported only when asked for.

Adding a family: a package ``niah.benchmarks.<family>`` with ``family.py`` defining ``FAMILY``, and one line in
``FAMILIES`` below. Tests (and plug-ins) may add families at run time with :func:`register_family`.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator

from niah.benchmarks.protocol import Builder, Command, Family
from niah.corpus.base import CorpusReader
from niah.util.errors import ConfigError

#: benchmark name (``sample.benchmark``) -> module defining ``FAMILY``; order is the order of listings.
FAMILIES: dict[str, str] = {
    "mm-niah": "niah.benchmarks.mm_niah.family",
    "mmlongbench": "niah.benchmarks.mmlongbench.family",
    "milebench": "niah.benchmarks.milebench.family",
    "infinibench": "niah.benchmarks.infinibench.family",
    "video-niah": "niah.benchmarks.video_niah.family",
    "seq-niah": "niah.benchmarks.seq_niah.family",
}

#: The family ``niah eval`` builds when no dataset is given, and whose layout reads scores files that do not
#: name their benchmark.
DEFAULT_FAMILY = "mm-niah"

_loaded: dict[str, Family] = {}


def register_family(family: Family, *, module: str | None = None) -> None:
    """Add (or replace) a family at run time; ``module`` is recorded for listings."""
    FAMILIES[family.name] = module or f"<registered {family.name}>"
    _loaded[family.name] = family


def unregister_family(name: str) -> None:
    FAMILIES.pop(name, None)
    _loaded.pop(name, None)


def find_family(name: str) -> Family | None:
    """The family called ``name`` (imported on first use), or None when there is none."""
    family = _loaded.get(name)
    if family is not None:
        return family
    module_name = FAMILIES.get(name)
    if module_name is None:
        return None
    loaded = getattr(importlib.import_module(module_name), "FAMILY", None)
    if not isinstance(loaded, Family) or loaded.name != name:
        raise ConfigError(f"{module_name} must define FAMILY = Family(name={name!r}, ...)")
    _loaded[name] = loaded
    return loaded


def get_family(name: str) -> Family:
    """Like :func:`find_family`, but an unknown name is a :class:`ConfigError` listing the known ones."""
    family = find_family(name)
    if family is None:
        raise ConfigError(f"unknown benchmark {name!r}; known: {', '.join(FAMILIES)}")
    return family


def families() -> Iterator[Family]:
    """Every family, in registry order."""
    for name in list(FAMILIES):
        yield get_family(name)


def family_commands() -> list[Command]:
    """Every CLI command the registered families contribute, in registry order."""
    return [command for family in families() if family.commands for command in family.commands()]


def family_builders() -> list[Builder]:
    """Every generator the registered families contribute, in registry order."""
    return [builder for family in families() if family.builders for builder in family.builders()]


def corpus_readers() -> list[CorpusReader]:
    """Every corpus format the registered families contribute (``--corpus KIND:PATH``), for
    :func:`niah.corpus.load_corpus`."""
    return [reader for family in families() for reader in (family.corpora() if family.corpora is not None else ())]
