"""The runner's behaviour pinned: for a small build of every family, `niah run` with the oracle, the random
baseline and a real llama.cpp server, then `niah score`, write what tests/data/run_pins.json records (one digest
per row of responses.jsonl and scored.jsonl, scores.json, run.json's counts and settings, and the dry run's plan).

The pins were written by the runner before it was split into its four stages (tools/pin_runs.py); a change
to the runner that alters any of them is a change of behaviour, to be made on purpose: rerun the tool, and say
why in the commit. A machine whose float arithmetic gives the tiny server other replies (its canary differs)
compares that server's rows on what niah decides alone: request keys, statuses, errors, counts.
"""

from __future__ import annotations

import json
from pathlib import Path

from support.run_pins import differences, pin_runs

PINS = Path(__file__).parent / "data" / "run_pins.json"


def test_every_family_runs_and_scores_as_pinned(tmp_path: Path) -> None:
    expected = json.loads(PINS.read_text(encoding="utf-8"))
    actual = pin_runs(tmp_path)
    same_arithmetic = actual["canary"] == expected["canary"]
    assert differences(expected, actual, server_text=same_arithmetic) == []
    assert set(actual["families"]) == set(expected["families"])  # a family added is pinned too
