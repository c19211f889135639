"""Settings every test shares."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True, scope="session")
def _frames_outside_the_home_folder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Code that fits a prompt outside ``niah run`` (audit, the harness adapters) caches frames in the user's
    cache folder; tests point that at a folder of the session's own rather than writing into ``~/.cache``."""
    before = os.environ.get("XDG_CACHE_HOME")
    os.environ["XDG_CACHE_HOME"] = str(tmp_path_factory.mktemp("xdg-cache"))
    yield
    if before is None:
        os.environ.pop("XDG_CACHE_HOME", None)
    else:
        os.environ["XDG_CACHE_HOME"] = before
