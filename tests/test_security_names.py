"""Issue 44, items 1-3: names a dataset carries (sample id, benchmark, task) are checked where a dataset is read
or written, and the exports write every value through a serializer (a YAML dumper, ``repr``), so that loading an
export of a downloaded dataset in lmms-eval or inspect_ai never runs code the dataset planted."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from niah.cli import app
from niah.sample import SAMPLES_FILE, Dataset, DatasetWriter, Sample, TextPart
from niah.util.errors import DataError
from support.datasets import write_mm_niah_like
from support.openai_server import OpenAIServer
from support.processes import niah_env

runner = CliRunner()

#: The issue's payload: a newline ends the YAML scalar a formatter writes and starts a Jinja-rendered key.
YAML_BREAKOUT = 'retrieval-text\ndescription: "{{ cycler.__init__.__globals__.os.system(\'touch PWNED\') }}"\n#'
HOSTILE_NAMES = {
    "task": [YAML_BREAKOUT, "../../escaped", "a/b", "..", "bad\rname", "tab\tname", "bidi\u202ename", "x\u2028y",
             " padded"],
    "benchmark": ["mm-niah\nx: 1", "../mm-niah", "mm\\niah"],
    "id": ["../../etc/passwd", "/abs/0001", "a/../b", "line\nbreak", "a\\b", "a//b"],
}


def _rewrite(dataset: Path, field: str, value: str, line: int = 1) -> None:
    """Put ``value`` in ``field`` of the ``line``-th sample, as a hostile download would have it."""
    path = dataset / SAMPLES_FILE
    lines = path.read_text().splitlines()
    obj = json.loads(lines[line - 1])
    obj[field] = value
    lines[line - 1] = json.dumps(obj)
    path.write_text("\n".join(lines) + "\n")


@pytest.fixture()
def dataset(tmp_path: Path) -> Path:
    return write_mm_niah_like(tmp_path / "ds", per_task=1, tasks=("retrieval-text", "reasoning-text"))


@pytest.mark.parametrize(("field", "value"), [(f, v) for f, vs in HOSTILE_NAMES.items() for v in vs])
def test_every_reader_refuses_a_hostile_name_naming_file_line_and_field(dataset: Path, field: str,
                                                                         value: str) -> None:
    _rewrite(dataset, field, value, line=2)
    with pytest.raises(DataError) as err:
        Dataset(dataset).validate(check_media=False)
    assert err.value.line == 2 and err.value.field == field and str(dataset / SAMPLES_FILE) in str(err.value.file)
    with pytest.raises(DataError) as streamed:
        list(Dataset(dataset))
    assert streamed.value.line == 2 and streamed.value.field == field


def test_names_builders_write_stay_valid() -> None:
    from niah.sample import name_problem

    for kind, good in (("id", "retrieval-text/000001"), ("id", "vqa/K8/12_a"), ("task", "counting-image"),
                       ("task", "Needle in a haystack (多模态): v2"), ("benchmark", "mm-niah")):
        assert name_problem(good, kind) is None, (kind, good)


def test_the_writer_refuses_what_the_readers_refuse(tmp_path: Path) -> None:
    with DatasetWriter(tmp_path / "out") as writer, pytest.raises(DataError) as err:
        writer.write(Sample("x/1", "mm-niah", YAML_BREAKOUT, [TextPart("c")], [TextPart("q")], answer="a"))
    assert err.value.field == "task"
    assert not (tmp_path / "out").exists()


def test_niah_run_refuses_a_path_like_task_before_any_request(dataset: Path, tmp_path: Path) -> None:
    _rewrite(dataset, "task", "../../outside")
    with OpenAIServer() as server:
        result = runner.invoke(app, ["run", str(dataset), "--model", "openai:echo", "--base-url", server.base_url,
                                     "--out", str(tmp_path / "run"), "--no-progress"])
        assert result.exit_code != 0 and "task" in result.output and "samples.jsonl:1" in result.output
        assert server.log == []  # nothing was sent
    assert not (tmp_path / "outside").exists()


def test_lmms_eval_export_of_a_hostile_dataset_is_refused_and_nothing_is_written(dataset: Path,
                                                                                 tmp_path: Path) -> None:
    _rewrite(dataset, "task", YAML_BREAKOUT)
    result = runner.invoke(app, ["export", "lmms-eval", str(dataset), "--out", str(tmp_path / "task")])
    assert result.exit_code != 0 and "task" in result.output and result.exception is None or \
        isinstance(result.exception, SystemExit)
    assert not (tmp_path / "task").exists()


def _lmms_load(folder: Path, name: str, cwd: Path) -> dict[str, object]:
    """The task config lmms-eval's own registry builds from the exported folder, in a fresh process."""
    code = (
        "import json, sys\n"
        "from lmms_eval.tasks import TaskManager\n"
        "manager = TaskManager(include_path=sys.argv[1], include_defaults=False)\n"
        "task = manager.load_task_or_group([sys.argv[2]])[sys.argv[2]]\n"
        "config = task.config\n"
        "print(json.dumps({'description': config.description, 'metadata': config.metadata,\n"
        "                  'generation_kwargs': config.generation_kwargs, 'docs': len(list(task.test_docs()))}))\n"
    )
    env = {**niah_env(), "HF_DATASETS_OFFLINE": "1", "HF_DATASETS_CACHE": str(cwd / "hf-cache")}
    proc = subprocess.run([sys.executable, "-c", code, str(folder), name], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_lmms_eval_loads_yaml_hostile_but_valid_names_as_data(tmp_path: Path) -> None:
    """Names a dataset may hold (one line, no path) that a string formatter would still turn into YAML syntax:
    the dumper quotes them; lmms-eval reads them back as the same strings and nothing else."""
    pytest.importorskip("lmms_eval")
    dataset = write_mm_niah_like(tmp_path / "ds", per_task=1, tasks=("retrieval-text",))
    hostile = "retrieval-text\" # {{ 7 * 7 }}: description: {% x %} &a *b !!python:object"
    _rewrite(dataset, "task", hostile)
    result = runner.invoke(app, ["export", "lmms-eval", str(dataset), "--out", str(tmp_path / "task"),
                                 "--name", "niah_hostile"])
    assert result.exit_code == 0, result.output
    loaded = _lmms_load(tmp_path / "task", "niah_hostile", tmp_path)
    assert not loaded["description"] and loaded["docs"] == 1
    assert loaded["metadata"]["niah_tasks"] == [hostile]  # type: ignore[index]
    assert not (tmp_path / "PWNED").exists()


INSPECT_FILE_NAME = 't"""+__import__("os").system("touch PWNED")+"""x.py'


def _inspect_load(task_file: Path, cwd: Path) -> list[str]:
    code = ("import sys\nfrom inspect_ai._eval.loader import load_tasks\n"
            "print([t.name for t in load_tasks([sys.argv[1]])])\n")
    proc = subprocess.run([sys.executable, "-c", code, task_file.name], cwd=cwd, env=niah_env(), capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return [proc.stdout.strip().splitlines()[-1]]


@pytest.mark.slow
def test_inspect_task_file_named_to_break_out_of_its_docstring_loads_without_running_it(dataset: Path,
                                                                                         tmp_path: Path) -> None:
    pytest.importorskip("inspect_ai")
    work = tmp_path / "work"
    work.mkdir()
    task_file = work / INSPECT_FILE_NAME
    result = runner.invoke(app, ["export", "inspect", str(dataset), "--out", str(task_file), "--name", "niah_x"])
    assert result.exit_code == 0, result.output
    assert _inspect_load(task_file, work) == ["['niah-ds']"]  # the Task niah_task builds
    assert not (work / "PWNED").exists()


@pytest.mark.parametrize("name", ["class", "None", "DATASET", "MEDIA_ROOTS", "task", "Task", "int", "__init__",
                                  "a-b", "1x", "x y", "ｘ"])
def test_inspect_names_that_would_not_load_are_refused(dataset: Path, tmp_path: Path, name: str) -> None:
    result = runner.invoke(app, ["export", "inspect", str(dataset), "--out", str(tmp_path / "t.py"), "--name", name])
    assert result.exit_code != 0 and "--name" in result.output
    assert not (tmp_path / "t.py").exists()


@pytest.mark.parametrize("name", ["class_", "DATASET_task", "niah_x"])
def test_inspect_accepted_names_compile_to_a_task_function_of_that_name(dataset: Path, tmp_path: Path,
                                                                         name: str) -> None:
    out = tmp_path / "t.py"
    result = runner.invoke(app, ["export", "inspect", str(dataset), "--out", str(out), "--name", name])
    assert result.exit_code == 0, result.output
    tree = compile(out.read_text(), str(out), "exec", flags=0x400)  # ast.PyCF_ONLY_AST
    names = [node.name for node in tree.body if node.__class__.__name__ == "FunctionDef"]  # type: ignore[attr-defined]
    assert names == [name]
