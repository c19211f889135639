"""The project installs by its own name: a wheel built from this tree is ``niah-bench`` (the index's ``niah`` is an
unrelated project), every extra resolves, and ``niah --help`` runs from a fresh virtual environment.

The build and install are offline: the wheel is built without build isolation from a copy of the tree (so no
``build/`` or egg-info lands in the checkout), and the fresh venv sees the test environment's packages through
a path entry, so that ``pip install --no-index`` finds every dependency and every extra already there and
installs only the wheel itself. ``PYTHONPATH`` is cleared: the ``niah`` that runs is the one the wheel put in the
fresh venv."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

from niah import DISTRIBUTION, __version__

ROOT = Path(__file__).resolve().parents[1]
#: Every extra but vllm, which needs a GPU stack the test environment does not have.
EXTRAS = ("hf", "inspect", "torch", "dense", "test")


def _clean_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV"}}


def _built_wheel(tmp: Path) -> Path:
    tree = tmp / "tree"
    tree.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy2(ROOT / name, tree / name)
    shutil.copytree(ROOT / "src", tree / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    dist = tmp / "dist"
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
                            "-q", "-w", str(dist), str(tree)], capture_output=True, text=True, env=_clean_env(),
                           timeout=600)
    assert built.returncode == 0, built.stderr
    wheels = list(dist.glob("*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]


@pytest.mark.slow
def test_a_built_wheel_installs_as_niah_bench_with_its_extras_and_runs(tmp_path: Path) -> None:
    wheel = _built_wheel(tmp_path)
    assert wheel.name.startswith(f"niah_bench-{__version__}-") and DISTRIBUTION == "niah-bench"

    env_dir = tmp_path / "fresh"
    venv.create(env_dir, with_pip=False)  # the test environment's pip installs into it (pip --python)
    python = env_dir / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                               capture_output=True, text=True, check=True, env=_clean_env()).stdout.strip())
    # the dependencies, from the test environment (offline), through a folder of links to its packages that leaves
    # out this project's own install (an editable one, here or in CI), so that pip installs the wheel
    deps = tmp_path / "deps"
    deps.mkdir()
    for entry in Path(sysconfig.get_path("purelib")).iterdir():
        if not entry.name.lower().startswith(("niah", "__editable__")) and entry.suffix != ".pth":
            (deps / entry.name).symlink_to(entry)
    (site / "test-env.pth").write_text(f"{deps}\n")

    requirement = f"{DISTRIBUTION}[{','.join(EXTRAS)}]"
    installed = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-index", "-q",
                                "--find-links", str(wheel.parent), requirement], capture_output=True, text=True,
                               env=_clean_env(), timeout=600)
    assert installed.returncode == 0, installed.stderr  # every extra's requirements resolve by this name

    shown = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "show", "-f", DISTRIBUTION],
                           capture_output=True, text=True, env=_clean_env(), timeout=300)
    assert shown.returncode == 0 and f"Name: {DISTRIBUTION}" in shown.stdout, shown.stderr
    assert "niah/data/" in shown.stdout  # the embedded corpus and the families' data travel in the wheel

    niah = env_dir / "bin" / "niah"
    helped = subprocess.run([str(niah), "--help"], capture_output=True, text=True, env=_clean_env(), timeout=300,
                            cwd=tmp_path)
    assert helped.returncode == 0, helped.stderr
    assert "eval" in helped.stdout and "build" in helped.stdout
    where = subprocess.run([str(python), "-c", "import niah; print(niah.__file__)"], capture_output=True, text=True,
                           env=_clean_env(), cwd=tmp_path, check=True).stdout.strip()
    assert Path(where).is_relative_to(site), where  # the wheel's copy, not the checkout's
    listed = subprocess.run([str(niah), "list"], capture_output=True, text=True, env=_clean_env(), timeout=300,
                            cwd=tmp_path)
    assert listed.returncode == 0 and "mm-niah" in listed.stdout, listed.stderr  # the families' files are there
