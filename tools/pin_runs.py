"""Write the run pins that tests/test_run_pinned.py checks: what `niah run` and `niah score` write for a small
build of every family, with the oracle, the random baseline and a real llama.cpp server (tests/support/run_pins.py).

Run it with the runner whose behaviour is the reference (before a change that must not alter it):

    .venv/bin/python tools/pin_runs.py --out tests/data/run_pins.json

or with --compare FILE to list what the checkout's runner does differently from a pin file.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from support.run_pins import differences, pin_runs  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, help="write the pins here")
    parser.add_argument("--compare", type=Path, help="compare with this pin file and list the differences")
    parser.add_argument("--family", action="append", help="only this family (repeatable)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        pins = pin_runs(Path(tmp), args.family)
    if args.out is not None:
        args.out.write_text(json.dumps(pins, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        print(f"wrote {args.out}", file=sys.stderr)
    if args.compare is not None:
        expected = json.loads(args.compare.read_text(encoding="utf-8"))
        if args.family:
            expected["families"] = {k: v for k, v in expected["families"].items() if k in args.family}
        found = differences(expected, pins, server_text=expected.get("canary") == pins.get("canary"))
        print("\n".join(found) or "no differences", file=sys.stderr)
        return 1 if found else 0
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
