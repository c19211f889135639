"""lmms-eval: a niah dataset as an lmms-eval task folder, scored by niah's official rule.

``niah export lmms-eval DATASET --out DIR`` writes a folder that ``lmms-eval --tasks NAME --include_path DIR``
loads (lmms-eval's task registry indexes every YAML under the include path)::

    DIR/
      NAME.yaml            # the task; or a group over NAME_1.yaml, NAME_2.yaml, ... (see below)
      utils.py             # doc_to_visual, doc_to_text, doc_to_messages, doc_to_target, process_results and the
                           # aggregations: each a one-line call into this module
      docs/NAME.jsonl      # one doc per niah sample, in samples.jsonl order
      media/...            # every image the prompts show (a copy), video frames as images
      README.md            # how to run it, what it needs, what the metrics are

The YAML reads the docs with ``dataset_path: json`` and ``dataset_kwargs.data_files`` relative to the YAML
(lmms-eval resolves local data files against the YAML's folder), and utils.py finds the media next to itself, so
the folder works from any working directory and can be moved as a whole. A doc is:

* ``niah_id``, ``benchmark``, ``task``: the sample's id (what ``niah import responses --from lmms-eval`` reads
  back from ``--log_samples`` output), family and task;
* ``prompt``: the family's rendered prompt as ``niah run`` sends it to a model without native video (JSON
  text): the system message and the parts in order, text as text and images by their path under ``media/``;
  a video's frames are sampled as ``niah run`` samples them (``max_frames``) and shown as images, with their
  subtitles in the text;
* ``target``: the gold answer as a reply (empty without gold);
* ``sample``: the samples.jsonl object (JSON text), which the official rule scores against.

The task functions: ``doc_to_visual`` gives the prompt's images as PIL images in order; ``doc_to_text`` the
prompt's text parts joined (simple lmms-eval models place the images themselves); ``doc_to_messages`` the same
prompt as chat messages with the images interleaved where the official prompt puts them, and the system
message (chat models use it); ``process_results`` scores the reply with the family's scorer from niah's
registry. Its metrics:

* ``niah_score``: the official per-sample score, aggregated as the mean over the samples the rule scores
  (as scored.jsonl holds them: a sample without gold, or one the rule refuses, is left out, as ``niah score``
  leaves it out). Where the family's official figure is not the plain mean over samples (a mean over context
  bins, then over tasks), this mean is not that figure; the next metric is;
* ``niah_aggregate``: the family's official aggregation of those samples (``Scorer.aggregate``), the
  structure ``niah score`` writes to scores.json (without ``run_status``), e.g. per-task bin scores and the
  overall.

lmms-eval sets decoding per task, niah per sample (a family's tasks may differ, e.g. a longer answer budget for
counting). Samples sharing one decoding setting form one lmms-eval task; when the dataset has several settings
the folder holds one task per setting (``NAME_1``, ``NAME_2``, ...) and a group ``NAME`` over them whose
``niah_score`` is the sample-weighted mean (the per-sample mean over all). ``niah_aggregate`` is then
per task; the official structure over the whole dataset is ``niah import responses --from lmms-eval`` of the
task's ``--log_samples`` files followed by ``niah score``.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
import shutil
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from niah.sample import Dataset, ImagePart, Sample, TextPart, VideoPart, merge_text_parts
from niah.util.errors import ConfigError, DataError

#: The per-sample metric and the structure metric every exported task reports.
OFFICIAL_METRIC = "niah_score"
STRUCTURE_METRIC = "niah_aggregate"
DOCS_DIR = "docs"
MEDIA_DIR = "media"
UTILS_FILE = "utils.py"
CARD = "README.md"
#: The doc's split name (``test_split`` in the YAML).
SPLIT = "test"
#: Images that come from a video (sampled frames) are stored here under media/, by a hash of their source.
DERIVED_DIR = "_frames"
_NAME = re.compile(r"[a-z][a-z0-9_]*")

UTILS_TEMPLATE = '''"""lmms-eval task functions for a niah dataset, written by `niah export lmms-eval` (niah {version}).

Each function calls niah (niah.interop.lmms_task), so niah must be installed where lmms-eval runs. The docs and media
are found next to this file.
"""

from pathlib import Path

from niah.interop import lmms_task

TASK_DIR = Path(__file__).resolve().parent


def niah_doc_to_visual(doc):
    return lmms_task.doc_to_visual(doc, TASK_DIR)


def niah_doc_to_text(doc, lmms_eval_specific_kwargs=None):
    return lmms_task.doc_to_text(doc)


def niah_doc_to_messages(doc, lmms_eval_specific_kwargs=None):
    return lmms_task.doc_to_messages(doc, TASK_DIR)


def niah_doc_to_target(doc):
    return lmms_task.doc_to_target(doc)


def niah_process_results(doc, results):
    return lmms_task.process_results(doc, results)


def niah_official_mean(items):
    return lmms_task.official_mean(items)


def niah_official_scores(items):
    return lmms_task.official_scores(items)
'''


@dataclass
class LmmsExportSummary:
    out_dir: Path
    tasks: list[str] = field(default_factory=list)     # lmms-eval task names, in order
    group: str | None = None                            # the group over them, when there are several
    samples: int = 0
    media_files: int = 0


# ------------------------------------------------------------------------------------------- export


def _check_name(name: str) -> None:
    if not _NAME.fullmatch(name):
        raise ConfigError(f"--name {name!r} must be lower-case letters, digits and underscores, starting with a "
                          "letter (an lmms-eval task name)")


def default_task_name(dataset: str | Path) -> str:
    """``niah_`` and the dataset folder's name in lower case, other characters as underscores."""
    slug = re.sub(r"[^a-z0-9]+", "_", Path(dataset).resolve().name.lower()).strip("_")
    return f"niah_{slug}" if slug else "niah"


def _generation_kwargs(generation: Mapping[str, Any]) -> dict[str, Any]:
    """niah's decoding settings as lmms-eval's ``generation_kwargs`` (greedy when the temperature is 0)."""
    out: dict[str, Any] = {}
    if generation.get("max_tokens") is not None:
        out["max_new_tokens"] = generation["max_tokens"]
    temperature = generation.get("temperature")
    if temperature is not None:
        out["temperature"] = temperature
        out["do_sample"] = temperature > 0
    if generation.get("top_p") is not None:
        out["top_p"] = generation["top_p"]
    if generation.get("stop"):
        out["until"] = list(generation["stop"])
    for key, value in (generation.get("extra") or {}).items():
        out.setdefault(key, value)
    return out


class _MediaCopier:
    """Copies each image a prompt shows into ``media/`` once (a hard link where the file system allows)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.written: dict[str, Path] = {}   # relative path under the task folder -> source

    def add(self, source: Path, rel: str) -> str:
        from niah.util.iox import path_inside

        # "media/../../x.png" would land beside the task folder, "media/../utils.py" over the code lmms-eval runs
        inside = path_inside(self.root / MEDIA_DIR, rel.removeprefix(f"{MEDIA_DIR}/")) \
            if rel.startswith(f"{MEDIA_DIR}/") else None
        if inside is None:
            raise DataError(f"media path {rel!r} is not under {MEDIA_DIR}/")
        rel = inside.relative_to(self.root).as_posix()
        known = self.written.get(rel)
        if known is not None:
            if known != source:
                raise DataError(f"two different media files would both be written to {rel}")
            return rel
        dest = self.root / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.link(source, dest)
        except OSError:
            try:
                shutil.copyfile(source, dest)
            except OSError as exc:
                raise DataError(f"cannot copy the media file: {exc.strerror}", file=source) from None
        self.written[rel] = source
        return rel


def _prompt_doc(sample: Sample, ds: Dataset, options: Any, media: _MediaCopier,
                override: Any = None) -> tuple[dict[str, Any], str]:
    """The doc of one sample and its decoding key (the generation settings as JSON, ``override``, a
    :class:`~niah.models.base.GenerationSettings`, laid over the family's as ``niah run`` lays its options)."""
    from niah.models.base import Capabilities
    from niah.models.baselines import format_gold
    from niah.prompts.render import fit_to_capabilities, render_prompt

    prompt = render_prompt(sample, ds.media_root, options)
    fit = fit_to_capabilities(prompt, sample, Capabilities(), options)  # a video's frames, as niah run sends them
    sent = fit.prompt or prompt
    parts: list[dict[str, str]] = []
    for part in merge_text_parts(sent.parts):  # adjacent text as one part: the official string, byte for byte
        if isinstance(part, TextPart):
            parts.append({"type": "text", "text": part.text})
        elif isinstance(part, ImagePart):
            source = sent.resolve(part.path)
            if part.path in sent.derived:  # a frame sampled from a video: a name of its own
                digest = hashlib.sha256(part.path.encode("utf-8")).hexdigest()[:20]
                rel = f"{MEDIA_DIR}/{DERIVED_DIR}/{digest}{source.suffix}"
            else:
                rel = f"{MEDIA_DIR}/{part.path}"
            try:
                parts.append({"type": "image", "path": media.add(source, rel)})
            except DataError as exc:
                raise DataError(f"sample {sample.id!r}: {exc.message}", file=exc.file or ds.samples_path) from None
        elif isinstance(part, VideoPart):  # not left by the fit for a model without native video
            raise DataError(f"sample {sample.id!r}: a video part was not turned into frames")
    generation = sent.generation.merged(override).to_json()
    doc = {
        "niah_id": sample.id,
        "benchmark": sample.benchmark,
        "task": sample.task,
        "prompt": json.dumps({"system": sent.system, "parts": parts}, ensure_ascii=False),
        "target": "" if sample.answer is None else format_gold(sample.answer),
        "sample": json.dumps(sample.to_json(), ensure_ascii=False),
    }
    return doc, json.dumps(generation, sort_keys=True)


def _max_tokens_override(max_tokens: int | None) -> Any:
    """``--max-tokens`` as the generation override ``niah run`` applies (None: the family's own budgets)."""
    from niah.models.base import GenerationSettings

    if max_tokens is None:
        return None
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
        raise ConfigError(f"--max-tokens {max_tokens!r} must be a positive integer")
    return GenerationSettings(max_tokens=max_tokens)


class _Function(str):
    """A task function by its dotted name under utils.py, written as lmms-eval's ``!function`` tag."""


class _TaskDumper(yaml.SafeDumper):
    """The YAML dumper of the exported task files: every value written by the dumper (quoted and escaped as YAML
    needs), never by formatting strings, so nothing a dataset holds can become a key, a tag or a template."""


_TaskDumper.add_representer(_Function, lambda dumper, value: dumper.represent_scalar("!function", str(value)))


def _dump_yaml(document: Mapping[str, Any], *, comment: str) -> str:
    """``document`` as YAML, under a comment line that holds only niah's own text (no dataset value)."""
    if "\n" in comment or "\r" in comment:
        raise ValueError("a YAML comment is one line")
    body = yaml.dump(dict(document), Dumper=_TaskDumper, sort_keys=False, allow_unicode=False, width=1 << 16,
                     default_flow_style=False)
    return f"# {comment}\n{body}"


def _task_yaml(task: str, docs_rel: str, generation: Mapping[str, Any], *, version: str, samples: int,
               niah_tasks: list[str]) -> str:
    document = {
        "task": task,
        "dataset_path": "json",
        "dataset_kwargs": {"data_files": {SPLIT: docs_rel}},
        "test_split": SPLIT,
        "output_type": "generate_until",
        "doc_to_visual": _Function("utils.niah_doc_to_visual"),
        "doc_to_text": _Function("utils.niah_doc_to_text"),
        "doc_to_messages": _Function("utils.niah_doc_to_messages"),
        "doc_to_target": _Function("utils.niah_doc_to_target"),
        "process_results": _Function("utils.niah_process_results"),
        "metric_list": [
            {"metric": OFFICIAL_METRIC, "aggregation": _Function("utils.niah_official_mean"),
             "higher_is_better": True},
            {"metric": STRUCTURE_METRIC, "aggregation": _Function("utils.niah_official_scores"),
             "higher_is_better": True},
        ],
        "generation_kwargs": _generation_kwargs(generation),
        # the niah tasks as data, not in a comment: a value the dumper writes cannot end a line early
        "metadata": {"version": 1, "niah_version": version, "niah_samples": samples, "niah_tasks": list(niah_tasks)},
    }
    return _dump_yaml(document, comment=f"lmms-eval task for a niah dataset, written by `niah export lmms-eval` "
                                        f"(niah {version}); see README.md.")


def _group_yaml(group: str, tasks: list[str], *, version: str) -> str:
    document = {
        "group": group,
        "task": list(tasks),
        "aggregate_metric_list": [{"metric": OFFICIAL_METRIC, "aggregation": "mean", "weight_by_size": True}],
        "metadata": {"version": 1},
    }
    return _dump_yaml(document, comment=f"lmms-eval group for a niah dataset, written by `niah export lmms-eval` "
                                        f"(niah {version}); one task per decoding setting, niah_score over the "
                                        "group is the sample-weighted mean. See README.md.")


CARD_TEMPLATE = """# {name}: a niah dataset as an lmms-eval task

Written by `niah export lmms-eval` (niah {version}) from `{dataset}` ({samples} samples, {benchmarks}).

## Run

```bash
pip install lmms-eval 'filelock<4'        # filelock 4 removed a module lmms-eval 0.7.3's evaluator patches
pip install --find-links DIST niah-bench  # niah must be importable where lmms-eval runs (utils.py calls it): its
                                          # wheel (pip wheel --no-deps -w DIST CLONE), or pip install -e CLONE
lmms-eval --model MODEL --model_args ... --tasks {name} --include_path {folder} --log_samples --output_path out/
```

The folder can be moved: the YAML reads `docs/*.jsonl` relative to itself and utils.py finds `media/` next to
itself.

## What it holds

{task_lines}

Each doc is one niah sample: `niah_id`, `benchmark`, `task`, `prompt` (the family's rendered prompt as `niah run`
sends it to a model without native video: the system message and the parts in order, images by their path
under `media/`; a video as its sampled frames), `target` (the gold answer) and `sample` (the samples.jsonl
object). `doc_to_visual` gives the images as PIL images in order, `doc_to_text` the text parts joined (the
system message only through `doc_to_messages`), `doc_to_messages` the chat form with images interleaved where
the official prompt puts them. Decoding: the family's settings for the task (`generation_kwargs`).

## Metrics

- `{official}`: niah's official per-sample score, the mean over the samples the rule scores (a sample without
  gold or one the rule refuses is left out, as `niah score` leaves it out). It is the family's official figure
  only where that figure is the mean over samples.
- `{structure}`: the family's official aggregation of those samples: what `niah score` writes to scores.json.
{group_note}
For niah's report (heatmaps, tables, intervals): `niah import responses --from lmms-eval out/**/samples_*.jsonl
--dataset {dataset} --out RUN`, then `niah score RUN` and `niah report RUN`.
"""


def _replaceable(out: Path) -> bool:
    if out.is_symlink() or not out.is_dir():
        return False
    return not any(out.iterdir()) or ((out / UTILS_FILE).is_file() and (out / DOCS_DIR).is_dir())


def export_lmms_eval(dataset: str | Path, out_dir: str | Path, *, name: str | None = None,
                     media_roots: tuple[str | Path, ...] = (), max_frames: int | None = None,
                     question_first: bool = False, overwrite: bool = False,
                     max_tokens: int | None = None) -> LmmsExportSummary:
    """Write the lmms-eval task folder of ``dataset`` at ``out_dir`` (see the module docstring); ``max_tokens``
    replaces every sample's answer budget, as ``niah run --max-tokens`` does."""
    from niah import __version__
    from niah.prompts.types import PromptOptions
    from niah.util.iox import check_export_out, dumps_line, staged_dir, write_atomic

    name = name or default_task_name(dataset)
    _check_name(name)
    ds = Dataset(dataset, media_roots=media_roots)
    ds.validate(check_media=False)
    out = Path(out_dir)
    check_export_out(out, overwrite=overwrite, is_ours=_replaceable,
                     foreign="is not an lmms-eval export (no utils.py and docs/)")
    options = PromptOptions(question_first=question_first, max_frames=max_frames)
    override = _max_tokens_override(max_tokens)
    summary = LmmsExportSummary(out_dir=out)
    with staged_dir(out, suffix=".exporting") as tmp:
        media = _MediaCopier(tmp)
        by_setting: dict[str, list[str]] = {}     # decoding key -> doc lines, in dataset order
        niah_tasks: dict[str, list[str]] = {}     # decoding key -> niah tasks, in order of appearance
        benchmarks: list[str] = []
        for sample in ds:
            doc, key = _prompt_doc(sample, ds, options, media, override)
            by_setting.setdefault(key, []).append(dumps_line(doc))
            tasks = niah_tasks.setdefault(key, [])
            if sample.task not in tasks:
                tasks.append(sample.task)
            if sample.benchmark not in benchmarks:
                benchmarks.append(sample.benchmark)
            summary.samples += 1
        if not summary.samples:
            raise DataError("the dataset has no samples: nothing to export", file=ds.samples_path)
        several = len(by_setting) > 1
        task_lines: list[str] = []
        for k, (key, lines) in enumerate(by_setting.items(), start=1):
            task = f"{name}_{k}" if several else name
            docs_rel = f"{DOCS_DIR}/{task}.jsonl"
            write_atomic(tmp / docs_rel, "".join(lines))
            generation = json.loads(key)
            write_atomic(tmp / f"{task}.yaml", _task_yaml(task, docs_rel, generation, version=__version__,
                                                          samples=len(lines), niah_tasks=niah_tasks[key]))
            summary.tasks.append(task)
            task_lines.append(f"- `{task}` ({task}.yaml, {docs_rel}): {len(lines)} samples of "
                              f"{', '.join(niah_tasks[key])}; generation_kwargs "
                              f"`{json.dumps(_generation_kwargs(generation))}`")
        group_note = ""
        if several:
            summary.group = name
            write_atomic(tmp / f"{name}.yaml", _group_yaml(name, summary.tasks, version=__version__))
            task_lines.insert(0, f"- `{name}` ({name}.yaml): the group of the tasks below (one per decoding "
                                 "setting); `--tasks " + name + "` runs them all")
            group_note = (f"\nThe group `{name}` reports `{OFFICIAL_METRIC}` as the sample-weighted mean of its "
                          f"tasks (the mean over all samples); `{STRUCTURE_METRIC}` is per task.\n")
        write_atomic(tmp / UTILS_FILE, UTILS_TEMPLATE.format(version=__version__))
        write_atomic(tmp / CARD, CARD_TEMPLATE.format(
            name=name, version=__version__, dataset=shlex.quote(str(ds.root.resolve())), samples=summary.samples,
            benchmarks=", ".join(benchmarks), folder=shlex.quote(str(out)), task_lines="\n".join(task_lines),
            official=OFFICIAL_METRIC, structure=STRUCTURE_METRIC, group_note=group_note))
        summary.media_files = len(media.written)
    return summary


# ------------------------------------------------------------------------------------------- task functions
# What utils.py calls: lmms-eval hands each function a doc (a row of docs/*.jsonl) and, for process_results, the
# model's replies; the aggregations get the per-sample items process_results returned.


def _prompt_of(doc: Mapping[str, Any]) -> dict[str, Any]:
    try:
        prompt = json.loads(doc["prompt"])
    except (KeyError, TypeError, ValueError):
        raise DataError(f"doc {doc.get('niah_id')!r}: prompt is not the JSON a niah export writes",
                        field="prompt") from None
    if not isinstance(prompt, dict) or not isinstance(prompt.get("parts"), list):
        raise DataError(f"doc {doc.get('niah_id')!r}: prompt has no parts list", field="prompt")
    return prompt


def _image(task_dir: Path, rel: str) -> Any:
    from PIL import Image

    from niah.util.iox import resolve_under

    path = resolve_under(task_dir, rel)
    with Image.open(path) as image:
        image.load()
        return image.convert("RGB") if image.mode not in ("RGB", "L") else image.copy()


def doc_to_visual(doc: Mapping[str, Any], task_dir: str | Path) -> list[Any]:
    """The prompt's images, as PIL images in prompt order."""
    return [_image(Path(task_dir), p["path"]) for p in _prompt_of(doc)["parts"] if p.get("type") == "image"]


def doc_to_text(doc: Mapping[str, Any]) -> str:
    """The prompt's text parts joined, in order (the images go through ``doc_to_visual``)."""
    return "".join(p["text"] for p in _prompt_of(doc)["parts"] if p.get("type") == "text")


def doc_to_messages(doc: Mapping[str, Any], task_dir: str | Path) -> list[dict[str, Any]]:
    """The prompt as lmms-eval chat messages: the system message, then one user turn whose text and images
    follow the official prompt's order (images as PIL images)."""
    prompt = _prompt_of(doc)
    content: list[dict[str, Any]] = []
    for part in prompt["parts"]:
        if part.get("type") == "image":
            content.append({"type": "image", "url": _image(Path(task_dir), part["path"])})
        elif content and content[-1]["type"] == "text":
            content[-1]["text"] += part["text"]
        else:
            content.append({"type": "text", "text": part["text"]})
    messages: list[dict[str, Any]] = []
    if prompt.get("system"):
        messages.append({"role": "system", "content": [{"type": "text", "text": prompt["system"]}]})
    messages.append({"role": "user", "content": content})
    return messages


def doc_to_target(doc: Mapping[str, Any]) -> str:
    return str(doc.get("target") or "")


def _sample_of(doc: Mapping[str, Any]) -> Sample:
    try:
        return Sample.from_json(json.loads(doc["sample"]))
    except (KeyError, TypeError, ValueError):
        raise DataError(f"doc {doc.get('niah_id')!r}: sample is not the JSON a niah export writes",
                        field="sample") from None


def process_results(doc: Mapping[str, Any], results: list[str]) -> dict[str, Any]:
    """Score the reply with the family's official rule. Both metrics get the same item: the official score
    under ``score`` (lmms-eval's convention for per-sample items) with every named mode, and what the family's
    aggregation reads; a sample without gold, or one the rule refuses, gets an item without ``score``, which
    the aggregations leave out (as ``niah score`` does)."""
    from niah.benchmarks.protocol import OFFICIAL
    from niah.scoring.metrics.base import MetricInputError
    from niah.scoring.score import _CORE_FIELDS, get_scorer

    sample = _sample_of(doc)
    response = results[0] if results else None
    item: dict[str, Any] = {"niah_id": sample.id, "benchmark": sample.benchmark, "task": sample.task,
                            "niah_sample_key": sample.content_key(), "response": response}
    if sample.answer is None:
        item["no_gold"] = True
        return {OFFICIAL_METRIC: item, STRUCTURE_METRIC: item}
    scorer = get_scorer(sample.benchmark)
    try:
        result = scorer.score(sample, response)
    except MetricInputError as exc:
        item["refused"] = f"{exc.field}: {exc.message}" if exc.field else exc.message
        return {OFFICIAL_METRIC: item, STRUCTURE_METRIC: item}
    if OFFICIAL not in result.scores:
        raise ConfigError(f"scorer for {sample.benchmark!r} returned no official score")
    # the row the family's aggregation reads, as niah score keeps it (core fields, then family fields)
    row: dict[str, Any] = {"id": sample.id, "task": sample.task, "context_length": sample.meta.get("context_length"),
                           "depth": sample.depth, "scores": dict(result.scores)}
    extra: dict[str, Any] = {}
    if scorer.row_fields is not None:
        extra.update(scorer.row_fields(sample))
    extra.update(result.row)
    row.update({k: v for k, v in extra.items() if k not in _CORE_FIELDS})
    item.update({"score": result.scores[OFFICIAL], "scores": dict(result.scores), "row": row, "info": result.info})
    return {OFFICIAL_METRIC: item, STRUCTURE_METRIC: item}


def _scored(items: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    return [item for item in items if "score" in item]


def official_mean(items: Iterable[Mapping[str, Any]]) -> float | None:
    """The mean official score over the scored items (None when none is scored)."""
    scored = _scored(items)
    return sum(float(item["score"]) for item in scored) / len(scored) if scored else None


def official_scores(items: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """The scored items aggregated as scores.json holds them (the shared percent layout: headline, intervals,
    ``by_task`` and the family's structure under ``official``; several benchmarks under ``benchmarks``);
    ``gold_missing`` when some items had no gold."""
    from niah.benchmarks.protocol import OFFICIAL
    from niah.scoring.score import GOLD_MISSING_KEY, benchmark_block, combined_block, get_scorer

    items = list(items)
    rows: dict[str, list[tuple[dict[str, Any], dict[str, Any]]]] = {}
    for item in _scored(items):
        rows.setdefault(str(item["benchmark"]), []).append((dict(item["row"]), dict(item["info"])))
    blocks = {benchmark: benchmark_block(get_scorer(benchmark), benchmark, kept, OFFICIAL)
              for benchmark, kept in rows.items()}
    out: dict[str, Any] = next(iter(blocks.values())) if len(blocks) == 1 else combined_block(blocks, OFFICIAL)
    no_gold = sum(1 for item in items if item.get("no_gold"))
    if no_gold:
        out = {**out, GOLD_MISSING_KEY: no_gold}
    return out
