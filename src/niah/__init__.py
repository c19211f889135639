"""niah: build, run, score and report long-context needle-in-a-haystack benchmarks."""

__version__ = "0.1.0"

#: The name this project is installed by (``pip install niah-bench``): the package index's ``niah`` is another
#: project. The command and the import name stay ``niah``.
DISTRIBUTION = "niah-bench"


def pip_install(extra: str | None = None) -> str:
    """The install line for this project, with one of its extras (``hf``, ``inspect``, ``torch``, ...)."""
    return f"pip install '{DISTRIBUTION}[{extra}]'" if extra else f"pip install {DISTRIBUTION}"
