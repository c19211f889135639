"""One vocabulary: every command's options (read from the CLI itself) and every eval-config key spell one concept
one way. An option name has one shape everywhere (the same short flag, the same --no- pair, repeatable or not);
no visible option uses another spelling of a concept; a builder's config keys are its build command's options;
old spellings are hidden aliases that still work and say they are deprecated."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterator
from typing import Any

import click
import pytest
import typer.main
from typer.testing import CliRunner

from niah.benchmarks.registry import FAMILIES, get_family
from niah.cli import app
from niah.eval.config import BENCHMARK_KEYS, MODEL_KEYS

ROOT = typer.main.get_command(app)

#: Spellings of one concept: the first is the one used; any other, visible anywhere, fails.
SYNONYMS: tuple[tuple[str, ...], ...] = (
    ("out", "output", "output_dir", "out_dir", "json", "json_out"),
    ("tasks", "pipelines"),
    ("family", "benchmark"),
    ("lang", "langs", "language", "languages"),
    ("per_cell", "per_length", "samples_per_cell_per_length"),
    ("image_tokens", "image_rule"),
    ("media_root", "image_root", "images_root", "videos", "video_root"),
    ("images_per_sample", "images", "num_images", "image_count"),
    ("concurrency", "workers", "jobs", "parallel"),
    ("no_progress", "progress"),
    ("ids", "sample_ids"),
    ("dataset", "data_dir", "dataset_dir"),
)
#: The same long name may take a different shape only where the concept's shape differs, said here.
SHAPES_THAT_DIFFER = {
    "--name": "report names each of its inputs (repeated); an export names its one task",
}
#: Builder config keys with no option of the same name on the build command, and why.
CONFIG_KEYS_WITHOUT_OPTION = {
    ("mm-niah", "max_images"): "a cap niah eval applies to its small grid; a build takes --tasks and --lengths",
    ("mm-niah", "image_max_side"): "as max_images",
    ("video-niah", "lengths"): "niah eval's shared --lengths, read as the video durations",
}
#: Old config spellings, accepted for one release with a note, and the key that replaced each.
DEPRECATED_CONFIG_KEYS = {
    ("seq-niah", "langs"): "lang",
    ("seq-niah", "pipelines"): "tasks",
    ("mmlongbench-vh", "images"): "source",
    ("video-niah", "image_rule"): "image_tokens",
    ("mm-niah", "depths"): "depth_cells",
}


#: What each option name means, wherever it appears, and a pattern every command's help for it must match. Every
#: long option two commands share is here, so that one spelling cannot carry two meanings: ``--seed`` meant the
#: build's seed on the builders and niah eval but the sampling seed on niah run; ``--depths`` meant depth cells by
#: lower edge on the MM-NIAH builders but exact needle depths on video-niah; ``--limit`` meant the first N samples on
#: run and eval but a cap per task on niah audit. A new shared name, or a help that drifts from its meaning,
#: fails here.
MEANINGS: dict[str, tuple[str, str]] = {
    "--allow-failures": ("exit 0 though requests failed or were skipped", r"exit 0 even when requests failed"),
    "--allow-missing": ("go on where samples have no reply", r"no (reply|response)"),
    "--api-key-env": ("the environment variable that holds a key", r"variable holding the"),
    "--base-url": ("an OpenAI-compatible endpoint (repeatable)", r"base URL|endpoint"),
    "--concurrency": ("requests in flight", r"in flight"),
    "--corpus": ("the haystack corpus: embedded or a path", r"default.? \(embedded\)"),
    "--dataset": ("the niah dataset folder read", r"dataset"),
    "--depth-cells": ("the grid's depth cells: a count of cells or their edges", r"cell edges"),
    "--depths": ("exact needle depths", r"exact .*needle depths"),
    "--format": ("the files' layout: niah's own or an official one", r"official"),
    "--image-tokens": ("the rule an image's token cost is counted by", r"fixed:N"),
    "--judge": ("the judge model's spec", r"judge model spec"),
    "--lang": ("the corpus language(s)", r"language"),
    "--lengths": ("the context lengths built", r"length"),
    "--limit": ("only the first N (selected) samples", r"only the first N"),
    "--max-per-task": ("the most samples of a task", r"the most samples of a task"),
    "--max-attempts": ("attempts per request", r"attempts per"),
    "--max-context": ("the model's context limit in tokens", r"context"),
    "--max-frames": ("frames a video becomes for the model", r"frame"),
    "--max-images": ("images per request the model takes", r"images"),
    "--max-pixels": ("qwen2vl-28px max_pixels", r"qwen2vl-28px max_pixels"),
    "--min-pixels": ("qwen2vl-28px min_pixels", r"qwen2vl-28px min_pixels"),
    "--max-tokens": ("the answer's budget of new tokens", r"max new tokens|answer budget"),
    "--media-root": ("a folder media are read from in place", r"folder|root|where media .* are read"),
    "--model": ("the model: a spec or its name", r"model (spec|name)|openai:NAME"),
    "--name": ("a name (see SHAPES_THAT_DIFFER)", r"name"),
    "--needles": ("how many needles a sample holds", r"needle|query images"),
    "--no-progress": ("no progress on stderr", r"no (progress|stage lines)"),
    "--out": ("where the command writes", r"write|folder|directory|file|jsonl"),
    "--over-limit": ("the policy for a prompt over the model's limits", r"skip.*truncate.*downscale.*official"),
    "--overwrite": ("replace what is at --out", r"replace|discard"),
    "--per-cell": ("samples per cell of the build's grid", r"samples per"),
    "--published": ("show published rows beside yours", r"published rows"),
    "--question-first": ("the question before the context", r"question before the context"),
    "--retry-delay": ("the first backoff in seconds", r"initial backoff"),
    "--retry-failed": ("ask the failed verdicts again", r"stored verdict failed"),
    "--sampling-seed": ("the sampling seed sent with each request", r"sampling seed sent"),
    "--seed": ("what a build or a draw is made from: the same seed gives the same output",
               r"the same seed (gives|keeps) the same"),
    "--source": ("what a build draws its material from besides the corpus", r"build from|source"),
    "--split": ("the split's name", r"split|val, test"),
    "--tasks": ("the tasks (a Sequential-NIAH sample's task is its pipeline)",
                r"tasks|pipelines|NeedleInAHaystack|retrieval"),
    "--timeout": ("seconds a request may take", r"seconds (per|for a whole)"),
    "--tokenizer": ("the tokenizer lengths are counted in", r"tokenizer|cl100k_base"),
    "--video-fps": ("the frame rate videos are sampled at", r"fps|frame rate"),
}


def meaning_problems(name: str, help_text: str) -> list[str]:
    """Why ``help_text`` does not say ``name``'s one meaning (none when it does, or the name declares none)."""
    if name not in MEANINGS:
        return []
    meaning, pattern = MEANINGS[name]
    if re.search(pattern, " ".join(help_text.split()), flags=re.IGNORECASE):
        return []
    return [f"{name} means {meaning!r} (its help should match {pattern!r}), not {help_text!r}"]


def _commands(group: Any = ROOT, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    ctx = click.Context(group)
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        if hasattr(command, "list_commands"):
            yield from _commands(command, (*path, name))
        elif command is not None:
            yield (*path, name), command


def _visible_options(command: Any) -> Iterator[Any]:
    return (p for p in command.params if p.param_type_name == "option" and not p.hidden)


def _snake(option: str) -> str:
    return option.lstrip("-").replace("-", "_")


def _concept_of(name: str) -> tuple[str, ...] | None:
    return next((group for group in SYNONYMS if name in group), None)


def test_an_option_name_has_one_shape_on_every_command() -> None:
    shapes: dict[str, dict[tuple[Any, ...], list[str]]] = defaultdict(lambda: defaultdict(list))
    for path, command in _commands():
        for param in _visible_options(command):
            shape = (tuple(sorted(param.opts + param.secondary_opts)), bool(param.multiple), bool(param.is_flag))
            for name in param.opts + param.secondary_opts:
                if name.startswith("--"):
                    shapes[name][shape].append(" ".join(path))
    differing = {name: dict(by_shape) for name, by_shape in shapes.items()
                 if len(by_shape) > 1 and name not in SHAPES_THAT_DIFFER}
    assert not differing, differing
    assert len(shapes) > 100


def test_no_visible_option_spells_a_concept_another_way() -> None:
    spelled: dict[tuple[str, ...], set[str]] = defaultdict(set)
    wrong = []
    for path, command in _commands():
        for param in _visible_options(command):
            for name in param.opts + param.secondary_opts:
                if not name.startswith("--"):
                    continue
                concept = _concept_of(_snake(name))
                if concept is None:
                    continue
                spelled[concept].add(_snake(name))
                if _snake(name) != concept[0]:
                    wrong.append((" ".join(path), name, f"--{concept[0].replace('_', '-')}"))
    assert not wrong, wrong
    assert spelled[SYNONYMS[0]] == {"out"} and spelled[("family", "benchmark")] == {"family"}


def test_every_config_key_is_the_option_of_the_same_name() -> None:
    """A builder's keys are its build command's options (``images = false`` is ``--no-images``); the model keys
    are ``niah run``'s options (a table of a repeated option takes its plural: ``model_options``)."""
    commands = dict(_commands())
    unmatched = []
    for family_name in FAMILIES:
        family = get_family(family_name)
        for builder in family.builders() if family.builders else ():
            options = {_snake(o) for p in _visible_options(commands[("build", builder.name)])
                       for o in p.opts + p.secondary_opts if o.startswith("--")}
            for key in builder.option_kinds:
                where = (builder.name, key)
                if key in options or f"no_{key}" in options or where in CONFIG_KEYS_WITHOUT_OPTION:
                    continue
                if where in DEPRECATED_CONFIG_KEYS:
                    assert DEPRECATED_CONFIG_KEYS[where] in builder.option_kinds, where
                    continue
                unmatched.append(where)
    run_options = {_snake(o) for p in _visible_options(commands[("run",)]) for o in p.opts if o.startswith("--")}
    unmatched += [("run", key) for key in MODEL_KEYS if key not in run_options and key.removesuffix("s") not in
                  run_options]
    eval_options = {_snake(o) for p in _visible_options(commands[("eval",)]) for o in p.opts if o.startswith("--")}
    unmatched += [("eval", key) for key in BENCHMARK_KEYS if key not in eval_options and key.removesuffix("s") not in
                  eval_options and key not in {"builder", "dataset"}]  # builder: the config's own; dataset: eval's argument
    assert not unmatched, unmatched


#: A config key spelled like another concept's other spelling that is its own concept, and why.
CONFIG_KEYS_OF_ANOTHER_CONCEPT = {
    ("mm-niah", "images"): "the --no-images switch (images = false: text-only contexts), not a count of images",
}


def test_no_config_key_spells_a_concept_another_way() -> None:
    """A builder takes one key per concept: a second spelling (``pipelines`` beside ``tasks``) is a deprecated one,
    never a silent equal, so that an eval config cannot set one concept twice, the second quietly losing."""
    wrong = []
    for family_name in FAMILIES:
        family = get_family(family_name)
        for builder in family.builders() if family.builders else ():
            for key in [*builder.option_kinds, *builder.eval_defaults]:
                concept = _concept_of(key)
                where = (builder.name, key)
                if concept is None or key == concept[0] or where in CONFIG_KEYS_OF_ANOTHER_CONCEPT:
                    continue
                if where not in DEPRECATED_CONFIG_KEYS or key in builder.eval_defaults:
                    wrong.append(where)
    wrong += [("model", key) for key in MODEL_KEYS if (_concept_of(key) or (key,))[0] != key]
    wrong += [("benchmark", key) for key in BENCHMARK_KEYS if (_concept_of(key) or (key,))[0] != key]
    assert not wrong, wrong


def test_deprecated_config_keys_are_documented_as_such() -> None:
    from pathlib import Path

    eval_doc = (Path(__file__).resolve().parents[1] / "docs" / "eval.md").read_text(encoding="utf-8")
    for (_, old), new in DEPRECATED_CONFIG_KEYS.items():
        assert f"`{new}` (`{old}`, deprecated)" in eval_doc, old


@pytest.mark.parametrize(("args", "note"), [
    (["metric", "mm-niah/official", "--input", "none.jsonl", "--output", "o.jsonl"], "--output is deprecated; use --out"),
    (["eval", "--benchmark", "no-such-family", "--out", "ev"], "--benchmark is deprecated; use --family"),
    (["build", "milebench-niah", "--images", "2", "--lengths", "4k-8k", "--out", "ds"],
     "--images is deprecated; use --images-per-sample"),
    (["import", "mmlongbench", "none", "--media-root", ".", "--samples", "3", "--out", "ds"],
     "--samples is deprecated; use --ids"),
    (["build", "mmlongbench-vh", "--media-root", "none", "--lengths", "12k", "--out", "ds"],
     "--media-root is deprecated; use --source"),
    (["audit", "none", "--progress"], "--progress is deprecated"),
    (["audit", "none", "--limit", "3"], "--limit is deprecated; use --max-per-task"),
    (["build", "seq-niah", "--pipelines", "no-such-pipeline", "--out", "ds"], "--pipelines is deprecated; use --tasks"),
    (["judge-test", "seq-niah", "--n", "0", "--json", "numbers.json"], "--json is deprecated; use --out"),
    (["build", "mm-niah", "--depths", "0.2", "--tasks", "no-such-task", "--out", "ds"],
     "--depths is deprecated; use --depth-cells"),
    (["build", "mmlongbench-niah", "--depths", "0.2", "--tasks", "no-such-task", "--out", "ds"],
     "--depths is deprecated; use --depth-cells"),
    (["run", "none", "--model", "baseline:oracle", "--seed", "1", "--out", "r"],
     "--seed is deprecated; use --sampling-seed"),
])
def test_an_old_spelling_still_parses_and_says_it_is_deprecated(tmp_path, monkeypatch, args, note) -> None:
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, args)
    assert f"note: {note}" in result.stderr, result.output
    assert "Traceback" not in result.output and "No such option" not in result.output


def test_options_given_once_where_repeatable_elsewhere_say_so(tmp_path) -> None:
    result = CliRunner().invoke(app, ["import", "mm-niah", str(tmp_path / "a.jsonl"), "--media-root", str(tmp_path),
                                      "--media-root", str(tmp_path), "--out", str(tmp_path / "ds")])
    assert result.exit_code == 2 and "--media-root given 2 times" in result.stderr and "give it once" in result.stderr
    assert not (tmp_path / "ds").exists()
    two = CliRunner().invoke(app, ["build", "mm-niah", "--lang", "en,zh", "--out", str(tmp_path / "mm")])
    assert two.exit_code == 2 and "--lang given 2 times: an MM-NIAH build is in one language" in two.stderr
    assert not (tmp_path / "mm").exists()


def test_a_config_tasks_key_is_not_lost_to_a_builders_small_grid(tmp_path) -> None:
    """``tasks`` in an eval config (or ``niah eval --tasks``) is what a Sequential-NIAH build builds: the small grid's
    default pipeline, once kept under another key, used to win over it."""
    from niah.util.errors import ConfigError

    (builder,) = get_family("seq-niah").builders()
    with pytest.raises(ConfigError, match="pipelines real-logical need a QA source file"):
        builder.build(tmp_path / "ds", {**builder.eval_defaults, "per_cell": 1, "tasks": ["real-logical"]}, False)


def test_a_model_tables_seed_is_its_sampling_seed_under_its_own_name(tmp_path, capsys) -> None:
    """``seed`` in a benchmark table is the build's seed; a model's sampling seed is ``sampling_seed``, its old key
    ``seed`` still read, with a note."""
    from pathlib import Path

    from niah.eval.config import load_eval_config
    from niah.util.errors import ConfigError

    def sampling_seed(model_keys: str) -> int | None:
        path = tmp_path / "eval.toml"
        path.write_text(f'out = "out"\n[models.m]\nmodel = "baseline:oracle"\n{model_keys}\n'
                        '[benchmarks.b]\nfamily = "mm-niah"\nseed = 5\n', encoding="utf-8")
        (model,) = load_eval_config(Path(path)).models
        return model.generation.seed

    assert sampling_seed("sampling_seed = 7") == 7 and "deprecated" not in capsys.readouterr().err
    assert sampling_seed("seed = 7") == 7
    assert "note: the seed key of a model table is deprecated; use sampling_seed" in capsys.readouterr().err
    with pytest.raises(ConfigError, match="give sampling_seed once"):
        sampling_seed("seed = 7\nsampling_seed = 8")


def test_depth_cells_are_read_alike_by_every_builder(tmp_path) -> None:
    """``--depth-cells`` is a count of cells or their edges on every builder (MM-NIAH's cells are its five official
    ones); ``--depths`` is exact needle depths (video-niah); MM-NIAH's old ``--depths``, cells by lower edge, and
    its config key ``depths`` still build the same dataset, with a note."""
    import json

    from niah.benchmarks.mm_niah.cli import official_cells
    from niah.util.errors import ConfigError

    assert official_cells(["5"]) == [0.0, 0.2, 0.4, 0.6, 0.8] == official_cells(["0", "0.2", "0.4", "0.6", "0.8", 1])
    assert official_cells(["0.4", "0.6", "0.8"]) == [0.4, 0.6]
    for wrong in (["3"], ["0", "0.4"], ["0.1", "0.3"], ["0.4", "0.2"], ["x", "y"]):
        with pytest.raises(ConfigError, match="--depth-cells"):
            official_cells(wrong)
    (builder,) = get_family("mm-niah").builders()
    grid = {"tasks": ["retrieval-text"], "lengths": ["1k-2k"], "per_cell": 1, "seed": 0}
    builder.build(tmp_path / "new", {**grid, "depth_cells": ["0.4", "0.6", "0.8"]}, False)
    builder.build(tmp_path / "old", {**grid, "depths": [0.4, 0.6]}, False)
    new, old = ((tmp_path / name / "samples.jsonl").read_bytes() for name in ("new", "old"))
    assert new == old and [json.loads(line)["meta"]["depth_cell"] for line in new.splitlines()] == [2, 3]
    with pytest.raises(ConfigError, match="give depth_cells once"):
        builder.build(tmp_path / "both", {**grid, "depth_cells": ["5"], "depths": [0.4]}, False)


def test_one_option_name_has_one_meaning_on_every_command() -> None:
    """Each long option shared by two commands declares its meaning in MEANINGS, and every command's help for it
    says that meaning."""
    commands_of: dict[str, list[str]] = defaultdict(list)
    problems = []
    for path, command in _commands():
        for param in _visible_options(command):
            for name in param.opts:
                if name.startswith("--"):
                    commands_of[name].append(" ".join(path))
                    problems += [f"{' '.join(path)}: {p}" for p in meaning_problems(name, param.help or "")]
    undeclared = sorted(name for name, where in commands_of.items() if len(where) > 1 and name not in MEANINGS)
    assert not undeclared, f"options shared by several commands with no meaning declared in MEANINGS: {undeclared}"
    assert not problems, "\n".join(problems)
    assert len(commands_of["--seed"]) > 5 and commands_of["--sampling-seed"] == ["run"]


@pytest.mark.parametrize(("name", "old_help"), [
    ("--seed", "Sampling seed sent with each request (where the backend takes one)."),
    ("--depths", "official depth cells by lower edge, default 0,0.2,0.4,0.6,0.8"),
    ("--limit", "The most samples of a task to measure."),
])
def test_the_meaning_check_catches_the_spellings_that_had_two_meanings(name: str, old_help: str) -> None:
    assert meaning_problems(name, old_help), name
