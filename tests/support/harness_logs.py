"""Harness logs written the way inspect_ai and lmms-eval write them, from a {niah id: reply} map, for the
``niah import responses`` tests. Shapes follow the harnesses' documented log schemas (inspect_ai ``EvalLog`` /
``EvalSample``; lmms-eval ``--log_samples`` lines); only the fields a real log always has are filled, and the
sample key a niah export's task logs (``keys``: niah id -> :meth:`niah.sample.Sample.content_key`, see
:func:`sample_keys`), which tells the import which sample of the dataset each line answers."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

MODEL = "mockllm/model"


def _eval_spec() -> dict[str, Any]:
    return {"eval_id": "e1", "run_id": "r1", "created": "2026-01-01T00:00:00+00:00", "task": "niah",
            "task_id": "t1", "task_version": 0, "dataset": {"name": "niah", "samples": 0},
            "model": MODEL, "config": {}}


def sample_keys(dataset: Path) -> dict[str, str]:
    """niah id -> the sample's content key, as a niah export's task logs it (inspect metadata, lmms-eval item)."""
    from niah.sample import Dataset

    return {sample.id: sample.content_key() for sample in Dataset(dataset)}


def inspect_sample(index: int, sample_id: str, reply: str, *, id_in_metadata: bool = False,
                   as_parts: bool = False, key: str | None = None) -> dict[str, Any]:
    """An EvalSample. ``id_in_metadata``: the niah id is in ``metadata.niah_id`` and ``id`` is inspect's own
    1-based number; ``as_parts``: the reply is only in the assistant message, as a list of content parts;
    ``key``: the sample key in ``metadata.niah_sample_key`` (a niah export's task logs it)."""
    content: Any = [{"type": "text", "text": reply}] if as_parts else reply
    output: dict[str, Any] = {"model": MODEL, "choices": [{"message": {"role": "assistant", "content": content,
                                                                       "source": "generate"},
                                                           "stop_reason": "stop"}]}
    if not as_parts:
        output["completion"] = reply
    return {
        "id": index + 1 if id_in_metadata else sample_id, "epoch": 1, "input": "prompt", "target": "",
        "messages": [{"role": "user", "content": "prompt"}, {"role": "assistant", "content": content}],
        "output": output,
        "scores": {"niah_scorer": {"value": 1.0}},
        "metadata": ({"niah_id": sample_id} if id_in_metadata else {})
                    | ({"niah_sample_key": key} if key is not None else {}),
    }


def inspect_log(replies: dict[str, str], *, keys: dict[str, str] | None = None, **kwargs: Any) -> dict[str, Any]:
    samples = [inspect_sample(i, sid, text, key=(keys or {}).get(sid), **kwargs)
               for i, (sid, text) in enumerate(replies.items())]
    return {"version": 2, "status": "success", "eval": _eval_spec(),
            "plan": {"name": "plan", "steps": [], "config": {}}, "samples": samples}


def write_inspect_json(path: Path, replies: dict[str, str], **kwargs: Any) -> Path:
    path.write_text(json.dumps(inspect_log(replies, **kwargs)), encoding="utf-8")
    return path


def write_inspect_eval(path: Path, replies: dict[str, str], *, samples: list[dict[str, Any]] | None = None,
                       **kwargs: Any) -> Path:
    """An ``.eval`` log: a zip of header.json and samples/<id>_epoch_<n>.json (inspect's layout)."""
    log = inspect_log(replies, **kwargs)
    header = {k: v for k, v in log.items() if k != "samples"}
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("header.json", json.dumps(header))
        for sample in samples if samples is not None else log["samples"]:
            archive.writestr(f"samples/{sample['id']}_epoch_{sample['epoch']}.json", json.dumps(sample))
    return path


def lmms_eval_line(doc_id: int, reply: str, *, niah_id: str | None = None, id_in: str = "metric",
                   key: str | None = None) -> dict[str, Any]:
    """One line of lmms-eval's samples file for a niah export's task: the sample's niah id in the metric items
    (``id_in="metric"``: lmms-eval 0.7.3 logs no ``doc``), in the doc (``"doc"``), or nowhere (``"none"``);
    ``key``: the sample key in the metric item (a niah export's ``process_results`` puts it there)."""
    # no target: what the log says the gold was is checked against the dataset (tests that need one add it)
    line: dict[str, Any] = {"doc_id": doc_id, "arguments": [["prompt", {"max_new_tokens": 32}]],
                            "resps": [[reply]], "filtered_resps": [reply.strip()], "doc_hash": "h",
                            "prompt_hash": "p", "target_hash": "t"}
    item = {"niah_id": niah_id, "benchmark": "mm-niah", "score": 1.0} if niah_id is not None else {"score": 1.0}
    keyed = {"niah_sample_key": key} if key is not None else {}
    item |= keyed
    if id_in == "doc":
        line["doc"] = {"question": "q", **({"niah_id": niah_id} if niah_id is not None else {})}
        line["niah_score"] = {"score": 1.0, **keyed}
    elif id_in == "metric":
        line["niah_score"] = item
        line["niah_aggregate"] = item
    return line


def write_lmms_eval(path: Path, replies: dict[str, str], order: list[str], *, id_in: str = "metric",
                    keys: dict[str, str] | None = None) -> Path:
    """samples_<task>.jsonl of the replies; ``id_in`` and ``keys`` as for :func:`lmms_eval_line`."""
    lines = [lmms_eval_line(order.index(sid), text, niah_id=sid, id_in=id_in, key=(keys or {}).get(sid))
             for sid, text in replies.items()]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path
