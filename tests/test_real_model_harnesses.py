"""The done-when round trip of issue 43: the real SmolLM2-135M-Instruct served by llama.cpp with its prompt cache
off, behind a loopback recording proxy; one small MM-NIAH and one Sequential-NIAH build run by niah, by the
exported inspect_ai task (`inspect eval`) and by the exported lmms-eval task (`lmms-eval`, the whole group).
What the server was given (its own /apply-template of each request, and the decoding fields) is byte-identical
across the three, the replies are identical, and `niah score` of each imported log equals niah's own run on every
figure (by task and bin) and every sample. Offline."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from niah.cli import app
from support.llama_server import LlamaServer
from support.real_model import N_CTX, smollm2_gguf
from support.recording_proxy import Exchange, RecordingProxy

pytest.importorskip("inspect_ai")
pytest.importorskip("lmms_eval")
# both harnesses reach an OpenAI-compatible server through the openai package (not a niah dependency)
pytest.importorskip("openai")
if importlib.util.find_spec("pytablewriter") is None or importlib.util.find_spec("filelock._api") is None:
    pytest.skip("lmms-eval 0.7.3 needs pytablewriter and filelock<4 (filelock._api) to run from its command line",
                allow_module_level=True)

#: build options of each family (small: the model runs on a CPU), and the answer budget every harness is given
BUILDS: dict[str, tuple[list[str], list[str]]] = {
    # three 200-token text samples, one per text task: two decoding settings, so lmms-eval runs a group
    "mm-niah": (["mm-niah", "--no-images", "--lengths", "200", "--depths", "0.4", "--per-cell", "1"], []),
    # one sample of the shortest bin, its answer cut to 16 tokens (official 1024) in every harness alike
    "seq-niah": (["seq-niah", "--lang", "en", "--needles", "3-5", "--lengths", "2k-4k", "--per-cell", "1"],
                 ["--max-tokens", "16"]),
}


@pytest.fixture(scope="module")
def proxy(tmp_path_factory: pytest.TempPathFactory):
    try:
        gguf = smollm2_gguf()
    except FileNotFoundError as exc:
        pytest.skip(str(exc))
    server = LlamaServer(tmp_path_factory.mktemp("smollm2"), gguf=gguf, n_parallel=1, n_ctx=N_CTX, n_threads=2,
                         prompt_cache=False)
    server.start()
    with RecordingProxy(server.root) as recording:
        yield recording
    server.stop()


def _niah(*args: str | Path) -> str:
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result.output


def _tool(args: list[str], cwd: Path) -> None:
    env = {**os.environ, "OPENAI_API_KEY": "not-a-key", "LLAMACPP_API_KEY": "not-a-key", "HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1",
           "HF_DATASETS_CACHE": str(cwd / "hf-cache"),
           "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=1800, check=False)
    assert done.returncode == 0, (args[0], done.stdout[-3000:], done.stderr[-3000:])


def _by_prompt(exchanges: list[Exchange]) -> dict[str, tuple[str, str | None]]:
    """Each request as the server got it: its prompt (the server's own rendering) -> the request's other fields
    (decoding settings, model name) and the reply."""
    prompts = [e.prompt for e in exchanges]
    assert len(set(prompts)) == len(prompts)  # one request per sample, none retried
    return {e.prompt: (json.dumps(e.params, sort_keys=True), e.reply) for e in exchanges}


#: scores.json keys that hold figures (everything but the run's delivery bookkeeping)
FIGURES = ("benchmark", "mode", "metric", "overall", "ci95", "ci_method", "covered", "n", "by_task", "official")


def _scores(run: Path) -> dict:
    """What `niah score` makes of a run: every figure of scores.json (and the lenient one's where the family has
    it), the run's sample counts, and each sample's score."""
    _niah("score", run)
    found = {}
    for name in ("scores.json", "scores.lenient.json"):
        if (run / name).is_file():
            doc = json.loads((run / name).read_text(encoding="utf-8"))
            found[name] = {key: doc.get(key) for key in FIGURES}
            found[name]["run_status"] = {k: v for k, v in doc["run_status"].items() if k != "requests"}
    rows = [json.loads(line) for line in (run / "scored.jsonl").read_text(encoding="utf-8").splitlines()]
    found["scored.jsonl"] = {r["id"]: (r["response"], r["score"], r.get("scores")) for r in rows}
    return found


def _model(run: Path) -> str:
    return json.loads((run / "run.json").read_text(encoding="utf-8"))["model"]


@pytest.mark.slow
@pytest.mark.parametrize("family", sorted(BUILDS))
def test_niah_inspect_and_lmms_eval_send_the_same_prompt_and_score_the_same(proxy: RecordingProxy, tmp_path: Path,
                                                                             family: str) -> None:
    build, budget = BUILDS[family]
    ds = tmp_path / "ds"
    _niah("build", *build, "--out", ds, "--no-progress")
    proxy.take()
    # niah's own run
    _niah("run", ds, "--model", "openai:smollm2", "--base-url", proxy.base_url, "--concurrency", "1",
          "--no-progress", "--out", tmp_path / "niah", *budget)
    ours = _by_prompt(proxy.take())
    # the exported inspect_ai task
    _niah("export", "inspect", ds, "--out", tmp_path / "task.py", *budget)
    # paths relative to the working folder: inspect refuses an absolute task path's glob
    # inspect's generic OpenAI-compatible provider (chat completions with the task's decoding: its `openai`
    # provider leaves the temperature out for a model it does not know, and the server then samples)
    _tool([str(Path(sys.executable).with_name("inspect")), "eval", "task.py", "--model",
           "openai-api/llamacpp/smollm2", "--model-base-url", proxy.base_url, "--max-connections", "1",
           "--display", "none", "--log-dir", "inspect-logs"], tmp_path)
    inspected = _by_prompt(proxy.take())
    (log,) = sorted((tmp_path / "inspect-logs").glob("*.eval"))
    _niah("import", "responses", log, "--from", "inspect", "--dataset", ds, "--out", tmp_path / "inspect-run")
    # the exported lmms-eval task, the whole group (or task) it names
    _niah("export", "lmms-eval", ds, "--out", tmp_path / "lmms", "--name", "niah_rt", *budget)
    _tool([str(Path(sys.executable).with_name("lmms-eval")), "--model", "openai", "--model_args",
           f"model_version=smollm2,base_url={proxy.base_url},api_key=not-a-key,timeout=1800,num_concurrent=1",
           "--tasks", "niah_rt", "--include_path", str(tmp_path / "lmms"), "--batch_size", "1", "--log_samples",
           "--output_path", str(tmp_path / "lmms-out")], tmp_path)
    through_lmms = _by_prompt(proxy.take())
    samples = sorted((tmp_path / "lmms-out").rglob("*_samples_*.jsonl"))
    assert samples
    _niah("import", "responses", *samples, "--from", "lmms-eval", "--dataset", ds, "--out", tmp_path / "lmms-run")

    # what the model was given, byte for byte, with the same decoding, and what it answered
    assert sorted(inspected) == sorted(ours) and sorted(through_lmms) == sorted(ours)
    assert inspected == ours and through_lmms == ours
    # niah score of each import is niah's own run's, by task and bin, sample by sample
    reference = _scores(tmp_path / "niah")
    assert _scores(tmp_path / "inspect-run") == reference
    assert _scores(tmp_path / "lmms-run") == reference
    # each import names the model the harness ran (read from its log), not an unknown one
    assert _model(tmp_path / "inspect-run").endswith("smollm2")
    assert _model(tmp_path / "lmms-run").endswith("smollm2")
