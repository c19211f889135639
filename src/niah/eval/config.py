"""`niah eval --config eval.toml`: several models x several benchmarks from one file, one report over all runs.

The file (TOML, read with the standard library) names the output folder, the models (each a ``niah run`` model
spec with its endpoint, key variable, concurrency and run options) and the benchmarks (each a family and its
builder's options, or an existing dataset). The whole file is checked before anything is built, run or written:
an unknown key, a wrong type, an unknown family or builder option, or an API key written into the file stops
with one line naming the file, the line (where it can be found), the table and the key.

Execution reuses the stages one by one: each benchmark is built once into ``OUT/datasets/<benchmark>/`` (shared
by every model), each model runs on each dataset into ``OUT/runs/<model>/<benchmark>/`` with ``niah run``'s
cache and resume (a rerun after a kill asks only what was not answered), each run is scored officially, and one
``niah report`` over every run goes to ``OUT/report/`` (its accuracy-vs-length charts and leaderboard), with the
leaderboard also at ``OUT/leaderboard.md`` and ``OUT/leaderboard.csv`` and a record of what was done in
``OUT/eval.json``.

Relative paths in the file (``out``, ``dataset``, ``media_roots``, ``cache_dir``, and paths inside builder
options) are read from the current directory, as the same paths on the command line are.
"""

from __future__ import annotations

import math
import os
import re
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from niah.util.errors import ConfigError
from niah.util.iox import jsonable

if TYPE_CHECKING:
    from niah.benchmarks.protocol import Builder
    from niah.models.base import GenerationSettings, ModelSpec
    from niah.prompts.types import PromptOptions
    from niah.report.inputs import ReportInput
    from niah.run import RetryPolicy, RunSummary

#: What ``OUT`` holds besides the report; ``eval.json`` records the benchmarks it was built with.
DATASETS_DIR = "datasets"
RUNS_DIR = "runs"
REPORT_DIR = "report"
RECORD_FILE = "eval.json"
LEADERBOARD_MD = "leaderboard.md"
LEADERBOARD_CSV = "leaderboard.csv"

#: Model and benchmark names become folder names: letters, digits, ``.``, ``_`` and ``-``, starting with a letter
#: or digit (no ``..``, no separators, nothing hidden).
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

#: Kinds of value beyond a builder's (:data:`niah.benchmarks.protocol.OptionKind`): ``strings`` is one text or a
#: list of texts taken whole (URLs, stop strings: never split at commas); ``table`` a TOML table of settings;
#: ``path``/``paths`` texts naming files or folders.
TOP_KEYS: dict[str, str] = {"out": "path", "title": "text", "audit": "bool", "published": "bool",
                            "models": "table", "benchmarks": "table"}

#: ``niah run``'s options, as a model table writes them (the flag without ``--``, ``-`` written ``_``;
#: ``--prompt-option``/``--model-option`` pairs as the tables ``prompt_options``/``model_options``).
MODEL_KEYS: dict[str, str] = {
    "model": "text", "base_url": "strings", "api_key_env": "text", "concurrency": "int", "max_tokens": "int",
    "temperature": "number", "top_p": "number", "sampling_seed": "int", "stop": "strings", "timeout": "number",
    "max_attempts": "int", "retry_delay": "number", "prompt_options": "table", "model_options": "table",
    "max_images": "int", "max_context": "int", "no_vision": "bool", "video": "bool", "over_limit": "text",
    "question_first": "bool", "max_frames": "int", "video_fps": "number", "subtitles": "text",
    "frame_limit": "int", "max_video_seconds": "number", "limit": "int", "cache_dir": "path", "no_cache": "bool",
    "rpm": "number", "system_prompt": "text",
}
#: Old model-table spellings, accepted for one release with a note, and the key that replaced each: ``seed`` is a
#: build's seed in a benchmark table, so a model's sampling seed took its own name.
DEPRECATED_MODEL_KEYS: dict[str, str] = {"seed": "sampling_seed"}
#: A benchmark table's own keys; every other key is an option of its builder.
BENCHMARK_KEYS: dict[str, str] = {"family": "text", "builder": "text", "dataset": "path", "media_roots": "paths",
                                  "tasks": "texts"}
#: What ``niah eval`` gives every builder besides its ``eval_defaults`` (its --per-cell and --seed defaults).
SMALL_GRID: dict[str, Any] = {"per_cell": 1, "seed": 0}
OVER_LIMIT = ("skip", "truncate", "downscale", "official")
SUBTITLES = ("frames", "transcript", "none")

#: Keys that would hold a secret. A key written into the file would be copied, shared and committed with the
#: results, so it is refused outright: the file names the environment variable that holds it.
_SECRET_KEY = re.compile(r"(^|_)(api_?key|key|token|secret|password|passwd|authorization|bearer)$", re.IGNORECASE)


# --------------------------------------------------------------------------------------------- the parsed file


@dataclass(frozen=True)
class ModelEntry:
    name: str
    spec: ModelSpec
    concurrency: int
    generation: GenerationSettings
    prompt_options: PromptOptions
    retry: RetryPolicy
    limit: int | None
    cache_dir: Path | None
    use_cache: bool
    rpm: float | None


@dataclass(frozen=True)
class BenchmarkEntry:
    """A family's builder with its options (``builder`` set), or an existing dataset (``dataset`` set)."""

    name: str
    family: str | None = None
    builder: Builder | None = None
    options: Mapping[str, Any] = field(default_factory=dict)
    dataset: Path | None = None
    media_roots: tuple[Path, ...] = ()
    tasks: tuple[str, ...] = ()

    def record(self) -> dict[str, Any]:
        """What the dataset folder is built from (compared on a rerun: a changed benchmark is never reused)."""
        if self.builder is not None:
            return {"family": self.family, "builder": self.builder.name, "options": dict(self.options)}
        return {"dataset": str(self.dataset)}


@dataclass(frozen=True)
class EvalConfig:
    path: Path
    out: Path
    models: tuple[ModelEntry, ...]
    benchmarks: tuple[BenchmarkEntry, ...]
    title: str = "niah eval"
    audit: bool = True
    published: bool = True


# ------------------------------------------------------------------------------------------- where a key is


class _Lines:
    """The line of each ``key =`` in each ``[table]`` of the file, for messages (tomllib gives values only).
    Keys inside inline tables are not found; their messages then carry the line of the table's own key, or none."""

    _HEADER = re.compile(r"^\s*\[\s*([^\[\]]+?)\s*\]\s*(#.*)?$")
    _KEY = re.compile(r"""^\s*((?:"[^"]*"|'[^']*'|[A-Za-z0-9_-]+)(?:\s*\.\s*(?:"[^"]*"|'[^']*'|[A-Za-z0-9_-]+))*)\s*=""")

    def __init__(self, text: str) -> None:
        self.tables: dict[tuple[str, ...], int] = {}
        self.keys: dict[tuple[tuple[str, ...], str], int] = {}
        table: tuple[str, ...] = ()
        for number, line in enumerate(text.splitlines(), start=1):
            header = self._HEADER.match(line)
            if header:
                table = tuple(_unquote(p) for p in _split_dotted(header.group(1)))
                self.tables.setdefault(table, number)
                continue
            key = self._KEY.match(line)
            if key:  # a dotted key (models.a.seed = 1) names its table in the key
                parts = [_unquote(p) for p in _split_dotted(key.group(1))]
                self.keys.setdefault(((*table, *parts[:-1]), parts[-1]), number)

    def line(self, table: tuple[str, ...], key: str | None) -> int | None:
        if key is not None and (table, key) in self.keys:
            return self.keys[(table, key)]
        if table and key is not None and (table[:-1], table[-1]) in self.keys:  # models.x = {...} inline
            return self.keys[(table[:-1], table[-1])]
        return self.tables.get(table)


def _split_dotted(text: str) -> list[str]:
    return [p.strip() for p in re.findall(r"""("[^"]*"|'[^']*'|[^.]+)""", text)]


def _unquote(text: str) -> str:
    text = text.strip()
    return text[1:-1] if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'" else text


class _Where:
    """Builds the one error line: ``FILE:LINE: [table] key: what``."""

    def __init__(self, path: Path, lines: _Lines) -> None:
        self.path = path
        self.lines = lines

    def error(self, table: tuple[str, ...], key: str | None, what: str) -> ConfigError:
        line = self.lines.line(table, key)
        place = f"{self.path}:{line}" if line is not None else str(self.path)
        name = f"[{'.'.join(table)}]" if table else ""
        target = " ".join(x for x in (name, key or "") if x)
        return ConfigError(f"{place}: {target}: {what}" if target else f"{place}: {what}")


# ------------------------------------------------------------------------------------------------ value kinds


def _type_name(value: Any) -> str:
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a text"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a table"
    return "a date/time"


_EXPECTED = {
    "int": "an integer", "number": "a number", "bool": "true or false", "text": "a text",
    "value": "a text or a number", "texts": "a list of texts (or one comma-separated text)",
    "numbers": "a list of numbers", "items": "a list of texts or numbers (or one comma-separated text)",
    "strings": "a text or a list of texts", "table": "a table", "path": "a text (a path)",
    "paths": "a text or a list of texts (paths)",
}


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _finite(value: Any) -> bool:
    return not isinstance(value, float) or math.isfinite(value)


def check_kind(value: Any, kind: str) -> Any:
    """``value`` as the stage takes it (comma-separated texts split into lists), or a ValueError saying what was
    expected. TOML's ``nan`` and ``inf`` are refused: no setting, length or seed can use them."""
    def bad() -> ValueError:
        return ValueError(f"must be {_EXPECTED[kind]}, not {_type_name(value)}")

    def split(text: str) -> list[str]:
        return [x.strip() for x in text.split(",") if x.strip()]

    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"must be a finite number, not {value}")
    if kind == "int":
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        raise bad()
    if kind == "number":
        if _is_number(value):
            return value
        raise bad()
    if kind == "bool":
        if isinstance(value, bool):
            return value
        raise bad()
    if kind in ("text", "path"):
        if isinstance(value, str):
            return value
        raise bad()
    if kind == "value":
        if isinstance(value, str) or _is_number(value):
            return value
        raise bad()
    if kind in ("strings", "paths"):
        if isinstance(value, str):
            return [value]
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return list(value)
        raise bad()
    if kind == "texts":
        if isinstance(value, str):
            return split(value)
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return list(value)
        raise bad()
    if kind == "numbers":
        if isinstance(value, list) and all(_is_number(v) and _finite(v) for v in value):
            return list(value)
        raise bad()
    if kind == "items":
        if isinstance(value, str):
            return split(value)
        if isinstance(value, list) and all((isinstance(v, str) or _is_number(v)) and _finite(v) for v in value):
            return list(value)
        raise bad()
    if kind == "table":
        if isinstance(value, dict):
            return value
        raise bad()
    raise ValueError(f"unknown kind {kind!r}")  # a declaration error in the code, not the user's


def _secret_problem(key: str, value: Any) -> str | None:
    if key == "api_key_env":
        return None
    if _SECRET_KEY.search(key):
        return ("an API key is never read from the config file (it would be copied and shared with the results); "
                "put it in an environment variable and name that: api_key_env = \"OPENAI_API_KEY\"")
    return None


def _refuse_secrets(where: _Where, table: tuple[str, ...], values: Mapping[str, Any]) -> None:
    """Anywhere in the file, a key that would hold a secret is refused before any other check."""
    for key, value in values.items():
        problem = _secret_problem(key, value)
        if problem is not None:
            raise where.error(table, key, problem)
        if isinstance(value, dict):
            _refuse_secrets(where, (*table, key), value)


def _check_table(where: _Where, table: tuple[str, ...], values: Mapping[str, Any], kinds: Mapping[str, str],
                 *, known_hint: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in values.items():
        kind = kinds.get(key)
        if kind is None:
            raise where.error(table, key, f"unknown key (known: {known_hint or ', '.join(kinds)})")
        try:
            out[key] = check_kind(value, kind)
        except ValueError as exc:
            raise where.error(table, key, str(exc)) from None
    return out


def _name_problem(name: str) -> str | None:
    if not NAME.fullmatch(name) or ".." in name:
        return ("names a folder: letters, digits, '.', '_' and '-', starting with a letter or digit, at most 64 "
                "characters")
    return None


# ------------------------------------------------------------------------------------------------- reading


def load_eval_config(path: Path) -> EvalConfig:
    """Read and check the whole file; a problem is a :class:`ConfigError` of one line. Nothing is written."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise ConfigError(f"--config {path}: no such file") from None
    except IsADirectoryError:
        raise ConfigError(f"--config {path} is a folder; it names a TOML file") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    except RecursionError:  # arrays or inline tables nested thousands deep: no config needs more than a few
        raise ConfigError(f"{path}: not usable TOML: values nested too deeply") from None
    where = _Where(path, _Lines(text))
    _refuse_secrets(where, (), data)
    top = _check_table(where, (), data, TOP_KEYS, known_hint=", ".join(TOP_KEYS))
    for required in ("out", "models", "benchmarks"):
        if required not in top:
            raise where.error((), None, f"missing {required!r}" + {
                "out": " (the output folder, e.g. out = \"out/eval\")",
                "models": " (a [models.NAME] table per model, with model = \"PROVIDER:NAME\")",
                "benchmarks": " (a [benchmarks.NAME] table per benchmark, with family = \"...\" or "
                              "dataset = \"PATH\")"}[required])
    models = tuple(_model(where, name, values) for name, values in _named_tables(where, "models", top["models"]))
    benchmarks = tuple(_benchmark(where, name, values)
                       for name, values in _named_tables(where, "benchmarks", top["benchmarks"]))
    out = Path(top["out"])
    from niah.util.iox import check_folder_option, output_dir_problem

    try:
        check_folder_option(out, option="out")
        why = output_dir_problem(out, kind="eval", ours=is_eval_dir)
        if why is not None:  # "/", a dataset, a run, a report, a folder of the user's own
            raise ConfigError(f"out {out} {why}: give a new folder, or the out of an earlier niah eval")
    except ConfigError as exc:
        raise where.error((), "out", str(exc).removeprefix("out ")) from None
    for model in models:
        _check_cache_dir(where, model, out, benchmarks)
    return EvalConfig(path=path, out=out, models=models, benchmarks=benchmarks,
                      title=top.get("title", "niah eval"), audit=top.get("audit", True),
                      published=top.get("published", True))


def _check_cache_dir(where: _Where, model: ModelEntry, out: Path, benchmarks: tuple[BenchmarkEntry, ...]) -> None:
    """A model's ``cache_dir``, checked when the file is read, before anything is built or asked: never inside
    ``out`` or a dataset (niah writes and replaces those whole), and the user's own private cache folder."""
    from niah.run.cache import check_shared_cache_dir

    if model.cache_dir is None:
        return
    table = ("models", model.name)
    cache = model.cache_dir.resolve()
    inside = [("out", out)] + [(f"the dataset of [benchmarks.{b.name}]", b.dataset) for b in benchmarks
                                if b.dataset is not None]
    for what, folder in inside:
        if cache == folder.resolve() or cache.is_relative_to(folder.resolve()):
            raise where.error(table, "cache_dir", f"{model.cache_dir} is {what} ({folder}) or lies inside it: niah "
                                                  "writes and replaces that folder; give the cache a folder of its own")
    try:
        check_shared_cache_dir(model.cache_dir, create=False)
    except ConfigError as exc:
        raise where.error(table, "cache_dir", str(exc).removeprefix("--cache-dir ")) from None


def _named_tables(where: _Where, kind: str, tables: Mapping[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    if not tables:
        raise where.error((kind,), None, f"no {kind} named (add a [{kind}.NAME] table)")
    out = []
    for name, values in tables.items():
        if not isinstance(values, dict):
            raise where.error((kind,), name, f"must be a table ([{kind}.{name}]), not {_type_name(values)}")
        problem = _name_problem(name)
        if problem is not None:
            raise where.error((kind, name), None, f"the name {name!r} {problem}")
        out.append((name, values))
    return out


def _model(where: _Where, name: str, values: Mapping[str, Any]) -> ModelEntry:
    from niah.models.base import GenerationSettings
    from niah.models.registry import parse_model_spec
    from niah.prompts.types import PromptOptions
    from niah.run import RetryPolicy

    table = ("models", name)
    v = _check_table(where, table, values, {**MODEL_KEYS, **{k: MODEL_KEYS[new] for k, new in
                                                             DEPRECATED_MODEL_KEYS.items()}},
                     known_hint="niah run's options: " + ", ".join(MODEL_KEYS))
    v = _renamed_model_keys(where, table, v)

    def fail(key: str | None, what: str) -> ConfigError:
        return where.error(table, key, what)

    if "model" not in v:
        raise fail(None, "missing 'model' (a niah run model spec, e.g. model = \"openai:NAME\" or "
                         "\"baseline:oracle\")")
    for key, low in (("concurrency", 1), ("max_tokens", 1), ("max_attempts", 1), ("max_images", 0),
                     ("max_context", 1), ("max_frames", 1), ("frame_limit", 1), ("limit", 0)):
        if key in v and v[key] < low:
            raise fail(key, f"must be at least {low}, not {v[key]}")
    for key in ("timeout", "video_fps", "max_video_seconds", "rpm"):
        if key in v and not v[key] > 0:
            raise fail(key, f"must be positive, not {v[key]}")

    for key, why in GenerationSettings(temperature=v.get("temperature"), top_p=v.get("top_p")).problems():
        raise fail(key, why)
    if "retry_delay" in v and v["retry_delay"] < 0:
        raise fail("retry_delay", f"must not be negative, not {v['retry_delay']}")
    if v.get("over_limit", "skip") not in OVER_LIMIT:
        raise fail("over_limit", f"must be {', '.join(OVER_LIMIT[:-1])} or {OVER_LIMIT[-1]}, not {v['over_limit']!r}")
    if v.get("subtitles", "frames") not in SUBTITLES:
        raise fail("subtitles", f"must be {', '.join(SUBTITLES[:-1])} or {SUBTITLES[-1]}, not {v['subtitles']!r}")
    key_env = v.get("api_key_env")
    if key_env is not None:
        if not ENV_NAME.fullmatch(key_env):
            raise fail("api_key_env", "names the environment variable that holds the key (e.g. OPENAI_API_KEY), "
                                      "never the key itself")
        if not os.environ.get(key_env):
            raise fail("api_key_env", f"the environment variable {key_env} is not set or empty")
    for url in v.get("base_url", []):
        if re.match(r"^[a-z]+://[^/@]*@", url):
            raise fail("base_url", "holds credentials (user:KEY@); put the key in an environment variable and "
                                   "name it with api_key_env")

    def table_pairs(key: str) -> dict[str, Any]:
        pairs = v.get(key, {})
        for k, value in pairs.items():
            problem = _non_finite(value)
            if problem:
                raise where.error((*table, key), k, problem)
        # keys as niah run's -P/-O read them (``-`` is ``_``); TOML has typed the values already
        return {k.strip().replace("-", "_"): value for k, value in pairs.items()}

    options = table_pairs("model_options")
    for key, option in (("timeout", "timeout"), ("max_images", "max_images"), ("max_context", "max_context")):
        if key in v:
            options[option] = v[key]
    if v.get("no_vision"):
        options["vision"] = False
    if v.get("video"):
        options["video"] = True
    try:
        spec = parse_model_spec(v["model"], base_urls=v.get("base_url", ()), api_key_env=key_env, options=options)
    except ConfigError as exc:
        raise fail("model", str(exc)) from None
    stop = v.get("stop")
    generation = GenerationSettings(max_tokens=v.get("max_tokens"), temperature=v.get("temperature"),
                                    top_p=v.get("top_p"), seed=v.get("sampling_seed"), stop=tuple(stop) if stop else None)
    prompt_options = PromptOptions(
        question_first=v.get("question_first", False), over_limit=v.get("over_limit", "skip"),
        max_frames=v.get("max_frames"), video_fps=v.get("video_fps"), subtitle_mode=v.get("subtitles", "frames"),
        extra=tuple(sorted(table_pairs("prompt_options").items())), system_prompt=v.get("system_prompt"),
        **{k: v[k] for k in ("frame_limit", "max_video_seconds") if k in v})
    retry = RetryPolicy(max_attempts=v.get("max_attempts", 6), initial_delay=float(v.get("retry_delay", 1.0)))
    return ModelEntry(name=name, spec=spec, concurrency=v.get("concurrency", 8), generation=generation,
                      prompt_options=prompt_options, retry=retry, limit=v.get("limit"),
                      cache_dir=Path(v["cache_dir"]) if "cache_dir" in v else None,
                      use_cache=not v.get("no_cache", False), rpm=v.get("rpm"))


def _renamed_model_keys(where: _Where, table: tuple[str, ...], values: dict[str, Any]) -> dict[str, Any]:
    """A model table's values under their current keys: an old spelling says once it is deprecated."""
    import sys

    renamed = dict(values)
    for old, new in DEPRECATED_MODEL_KEYS.items():
        if old not in renamed:
            continue
        print(f"note: the {old} key of a model table is deprecated; use {new} (as niah run's --{new.replace('_', '-')})",
              file=sys.stderr)
        if new in renamed and renamed[new] != renamed[old]:
            raise where.error(table, old, f"give {new} once (its deprecated spelling {old} was given too, with "
                                          "another value)")
        renamed[new] = renamed.pop(old)
    return renamed


def _non_finite(value: Any) -> str | None:
    if isinstance(value, float) and not math.isfinite(value):
        return f"must be a finite number, not {value}"
    if isinstance(value, list):
        return next((p for p in map(_non_finite, value) if p), None)
    if isinstance(value, dict):
        return next((p for p in map(_non_finite, value.values()) if p), None)
    return None


def _benchmark(where: _Where, name: str, values: Mapping[str, Any]) -> BenchmarkEntry:
    from niah.benchmarks.registry import FAMILIES, find_family

    table = ("benchmarks", name)
    own = {k: v for k, v in values.items() if k in BENCHMARK_KEYS and k != "tasks"}
    checked = _check_table(where, table, own, BENCHMARK_KEYS, known_hint="")
    if ("family" in checked) == ("dataset" in checked):
        raise where.error(table, None, "give either family = \"NAME\" (built here) or dataset = \"PATH\" (an "
                                       "existing dataset), not " + ("both" if checked else "neither"))
    if "dataset" in checked:
        rest = {k: v for k, v in values.items() if k not in own}
        extra = _check_table(where, table, rest, {"tasks": "texts"},
                             known_hint="dataset, media_roots, tasks (an existing dataset is not built)")
        dataset = Path(checked["dataset"])
        if not (dataset / "samples.jsonl").is_file():
            raise where.error(table, "dataset", f"{dataset} is not a niah dataset (no samples.jsonl)")
        return BenchmarkEntry(name=name, dataset=dataset,
                              media_roots=tuple(Path(p) for p in checked.get("media_roots", ())),
                              tasks=tuple(extra.get("tasks", ())))
    if "media_roots" in checked:
        raise where.error(table, "media_roots", "reads media of an existing dataset; a benchmark built here holds "
                                                "its own media")
    family_name = checked["family"]
    family = find_family(family_name)
    if family is None:
        raise where.error(table, "family", f"unknown family {family_name!r} (known: {', '.join(FAMILIES)})")
    builders = tuple(family.builders()) if family.builders else ()
    if not builders:
        raise where.error(table, "family", f"{family_name!r} has no builder here; give dataset = \"PATH\" "
                                           "(its official data imported with niah import)")
    builder = builders[0]
    if "builder" in checked:
        chosen = [b for b in builders if b.name == checked["builder"]]
        if not chosen:
            raise where.error(table, "builder", f"{family_name!r} has no builder {checked['builder']!r} (its "
                                                f"builders: {', '.join(b.name for b in builders)})")
        builder = chosen[0]
    options = {k: v for k, v in values.items() if k not in own}
    if builder.option_kinds:
        options = _check_table(where, table, options, builder.option_kinds,
                               known_hint="family, builder, or an option of the builder "
                                          f"{builder.name!r}: {', '.join(builder.option_kinds)}")
    else:  # a builder that declares no options (a plug-in family): its values are passed unchecked
        for key, value in options.items():
            problem = _non_finite(value)
            if problem:
                raise where.error(table, key, problem)
    # what the file leaves out is niah eval's small grid: the builder's eval defaults, one sample a cell, seed 0
    return BenchmarkEntry(name=name, family=family_name, builder=builder,
                          options={**builder.eval_defaults, **SMALL_GRID, **options})


# ---------------------------------------------------------------------------------------------------- running


@dataclass
class RunOutcome:
    model: str
    benchmark: str
    run_dir: Path
    summary: RunSummary


@dataclass
class EvalResult:
    out: Path
    runs: list[RunOutcome]
    report: Path
    leaderboard_files: list[Path]
    leaderboard: list[Any]


def run_eval_config(config: EvalConfig, *, progress: bool = True,
                    say: Callable[[str], None] | None = None) -> EvalResult:
    """Build every benchmark once, run every model on every dataset, score, audit (when asked) and report.

    A rerun into the same ``out`` resumes: datasets already built are reused (refused when their benchmark
    changed in the file since), and each run resumes as ``niah run`` does."""
    import shutil

    from niah.util.errors import NiahError

    def note(line: str) -> None:
        if say is not None:
            say(line)

    out = config.out
    previous = _previous_record(out)
    for bench in config.benchmarks:  # a changed benchmark is refused before anything is written
        before = previous.get(bench.name)
        if before is not None and before != jsonable(bench.record()) and _dataset_dir(config, bench).exists():
            raise ConfigError(f"{config.path}: [benchmarks.{bench.name}] changed since {_dataset_dir(config, bench)} "
                              f"was built (see {out / RECORD_FILE}); delete that folder to build it again, or give "
                              "another out")
    from niah.util.iox import claim_output_dir

    created = claim_output_dir(out, kind="eval", ours=is_eval_dir, option=f"{config.path}: out")
    try:
        _write_record(config, runs=None, board=None)
        datasets = {bench.name: _dataset(config, bench, progress, note) for bench in config.benchmarks}
    except NiahError:
        if created:  # nothing was run: leave nothing behind, as for any refused argument
            shutil.rmtree(out, ignore_errors=True)
        raise
    return _run_all(config, datasets, progress, note)


def is_eval_dir(folder: Path) -> bool:
    """Whether ``folder`` is the out of an earlier ``niah eval --config`` (its record file, a regular file)."""
    record = folder / RECORD_FILE
    return record.is_file() and not record.is_symlink()


def _dataset_dir(config: EvalConfig, bench: BenchmarkEntry) -> Path:
    return bench.dataset if bench.dataset is not None else config.out / DATASETS_DIR / bench.name


def _dataset(config: EvalConfig, bench: BenchmarkEntry, progress: bool, note: Callable[[str], None]) -> Path:
    target = _dataset_dir(config, bench)
    if bench.builder is None or (target / "samples.jsonl").is_file():
        return target
    note(f"eval: building {bench.name} ({bench.builder.name}) -> {target}")
    try:
        bench.builder.build(target, dict(bench.options), progress)
    except ConfigError as exc:
        raise ConfigError(f"{config.path}: [benchmarks.{bench.name}]: {exc}") from None
    except TypeError as exc:  # a builder refusing an option its declaration lets through
        raise ConfigError(f"{config.path}: [benchmarks.{bench.name}]: {exc}") from None
    return target


def _run_all(config: EvalConfig, datasets: Mapping[str, Path], progress: bool,
             note: Callable[[str], None]) -> EvalResult:
    from niah.run import run_dataset_sync
    from niah.scoring.score import score_run

    outcomes: list[RunOutcome] = []
    total = len(config.models) * len(config.benchmarks)
    for model in config.models:
        for bench in config.benchmarks:
            run_dir = config.out / RUNS_DIR / model.name / bench.name
            note(f"eval: run {len(outcomes) + 1}/{total}: {model.name} on {bench.name} -> {run_dir}")
            summary = run_dataset_sync(
                datasets[bench.name], model.spec, run_dir, concurrency=model.concurrency,
                generation=model.generation, prompt_options=model.prompt_options, progress=progress,
                cache_dir=model.cache_dir, use_cache=model.use_cache, retry=model.retry,
                tasks=list(bench.tasks) or None, limit=model.limit, media_roots=bench.media_roots, rpm=model.rpm)
            note(f"eval: {model.name} on {bench.name}: {summary.answered} answered, {summary.failed} failed, "
                 f"{summary.skipped} skipped; {summary.requests} requests sent, {summary.resumed} resumed, "
                 f"{summary.cached} from cache")
            score_run(run_dir)
            if config.audit:
                _audit(run_dir, datasets[bench.name], bench.media_roots, progress)
            outcomes.append(RunOutcome(model.name, bench.name, run_dir, summary))
    note(f"eval: report over {len(outcomes)} run(s) -> {config.out / REPORT_DIR}")
    inputs = report_inputs(outcomes)
    from niah.report import BrowserOptions, ReportOptions, build_report

    media_roots = tuple(dict.fromkeys(p for bench in config.benchmarks for p in bench.media_roots))
    result = build_report(inputs, config.out / REPORT_DIR,
                          ReportOptions(published=config.published, title=config.title,
                                        browser=BrowserOptions(media_roots=media_roots)))
    board, files = _write_leaderboard(config.out, inputs)
    _write_record(config, runs=outcomes, board=board)
    return EvalResult(out=config.out, runs=outcomes, report=result.index_html, leaderboard_files=files,
                      leaderboard=board)


def _audit(run_dir: Path, dataset: Path, media_roots: tuple[Path, ...], progress: bool) -> None:
    """What the run sent, checked for shortcuts (``niah audit`` with the run's settings); the report shows it."""
    from niah.audit.dataset import AUDIT_FILE, AuditOptions, audit_dataset, options_from_run, write_audit

    settings, _ = options_from_run(run_dir)
    options = AuditOptions(media_roots=tuple(str(p) for p in media_roots),
                           **{k: v for k, v in settings.items() if v is not None})
    write_audit(audit_dataset(dataset, options, progress=progress), run_dir / AUDIT_FILE)


def report_inputs(outcomes: Sequence[RunOutcome]) -> list[ReportInput]:
    """One report input per run, named by its model; a model run on two benchmarks of one family gets the
    benchmark added (``NAME (BENCHMARK)``), so that no family table has two rows of one name."""
    import dataclasses
    from collections import Counter

    from niah.report import load_input

    loaded = [load_input(o.run_dir, name=o.model) for o in outcomes]
    per_family = Counter((o.model, inp.benchmark) for o, inp in zip(outcomes, loaded, strict=True))
    return [dataclasses.replace(inp, name=f"{o.model} ({o.benchmark})") if per_family[(o.model, inp.benchmark)] > 1
            else inp for o, inp in zip(outcomes, loaded, strict=True)]


def _write_leaderboard(out: Path, inputs: Sequence[ReportInput]) -> tuple[list[Any], list[Path]]:
    """The report's leaderboard (the same rows as ``OUT/report/tables/leaderboard.*``) at the top of ``OUT``,
    written for one run too."""
    from niah.report.build import group_by_spec
    from niah.report.compare import leaderboard, leaderboard_csv, leaderboard_markdown
    from niah.util.iox import write_atomic

    board = leaderboard(group_by_spec(inputs))  # grouped as the report groups its tables
    files = [out / LEADERBOARD_MD, out / LEADERBOARD_CSV]
    write_atomic(files[0], leaderboard_markdown(board))
    write_atomic(files[1], leaderboard_csv(board))
    return board, files


def _previous_record(out: Path) -> dict[str, Any]:
    """Benchmark name -> what its dataset was built from, as the last ``niah eval --config`` into ``out`` wrote."""
    from niah.util.iox import read_json_file

    path = out / RECORD_FILE
    if not path.is_file():
        return {}
    record = read_json_file(path, what="eval record", strict=True)
    benchmarks = record.get("benchmarks") if isinstance(record, dict) else None
    if not isinstance(benchmarks, dict):
        raise ConfigError(f"{path}: not an eval record (no benchmarks table); delete it or give another out")
    return benchmarks


def _write_record(config: EvalConfig, *, runs: Sequence[RunOutcome] | None, board: Sequence[Any] | None) -> None:
    from niah.util.iox import write_json_atomic

    previous = _previous_record(config.out)
    benchmarks = {**previous, **{b.name: jsonable(b.record()) for b in config.benchmarks}}
    record: dict[str, Any] = {"config": str(config.path), "benchmarks": benchmarks,
                              "models": {m.name: m.spec.spec_string() for m in config.models}}
    if runs is not None:
        record["runs"] = [{"model": o.model, "benchmark": o.benchmark, "run": str(o.run_dir),
                           **o.summary.counts()} for o in runs]
    if board is not None:
        record["leaderboard"] = [{"model": r.model, "family": r.family, "overall": r.score * 100.0, "n": r.n,
                                  "ci_low": None if r.low is None else r.low * 100.0,
                                  "ci_high": None if r.high is None else r.high * 100.0, "basis": r.basis}
                                 for r in board]
    write_json_atomic(config.out / RECORD_FILE, record)
