"""One vocabulary: every command's options (read from the CLI itself) and every eval-config key spell one concept
one way. An option name has one shape everywhere (the same short flag, the same --no- pair, repeatable or not);
no visible option uses another spelling of a concept; a builder's config keys are its build command's options;
old spellings are hidden aliases that still work and say they are deprecated."""

from __future__ import annotations

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
