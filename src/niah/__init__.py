"""niah: build, run, score and report long-context needle-in-a-haystack benchmarks.

The Python API is :mod:`niah.api` (``build``, ``run``, ``score``, ``headlines``, ``report``, ``audit``,
``load_dataset``; docs/python-api.md). This package root imports nothing, so that ``import niah`` stays cheap
and no stage depends on it; each stage's own package exports its entry point too (``niah.run.run_dataset``,
``niah.scoring.score.score_run``, ``niah.report.build_report``, ``niah.audit.audit_enough``).
"""

__version__ = "0.1.0"

#: The name this project is installed by (``pip install niah-bench``): the package index's ``niah`` is another
#: project. The command and the import name stay ``niah``.
DISTRIBUTION = "niah-bench"


def pip_install(extra: str | None = None) -> str:
    """The install line for this project, with one of its extras (``hf``, ``inspect``, ``torch``, ...)."""
    return f"pip install '{DISTRIBUTION}[{extra}]'" if extra else f"pip install {DISTRIBUTION}"
