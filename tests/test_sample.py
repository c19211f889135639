"""Sample model, dataset directory, validation errors and atomic writing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from niah.sample import Dataset, DatasetWriter, ImagePart, Sample, TextPart, VideoPart, parts_text
from niah.util.errors import DataError


def _sample(i: int, **kw) -> Sample:
    base = dict(id=f"t/{i}", benchmark="mm-niah", task="retrieval-text",
                context=[TextPart("Hello"), ImagePart("media/a.png"), TextPart(" world.")],
                question=[TextPart("Q?")], answer="world", meta={"depth": [0.5]})
    base.update(kw)
    return Sample(**base)


def test_roundtrip_and_text(tmp_path: Path) -> None:
    with DatasetWriter(tmp_path / "ds") as w:
        w.write_media("a.png", b"\x89PNG fake")
        for i in range(3):
            w.write(_sample(i))
        w.write(_sample(9, choices=[[TextPart("a")], [ImagePart("media/a.png")]], answer=1,
                        context=[VideoPart(frames=("media/a.png",), fps=1.0)]))
        w.finish({"benchmark": "mm-niah"})
    ds = Dataset(tmp_path / "ds")
    samples = list(ds)
    assert len(samples) == 4 == len(ds)
    assert samples[0].to_json() == _sample(0).to_json()
    assert parts_text(samples[0].context) == "Hello world."
    assert samples[3].choices[1][0] == ImagePart("media/a.png")
    assert samples[3].context[0].frames == ("media/a.png",)
    assert samples[0].depth == 0.5
    assert ds.manifest["num_samples"] == 4


def _write_lines(path: Path, lines: list[str]) -> None:
    path.mkdir(parents=True, exist_ok=True)
    (path / "samples.jsonl").write_text("\n".join(lines) + "\n")


@pytest.mark.parametrize(("line", "field", "message"), [
    ('{"id": "a", "benchmark": "b", "task": "t", "context": [], "question": []}', "answer", "missing"),
    ('{"id": "a", "benchmark": "b", "task": "t", "context": [{"type": "audio"}], "question": [], "answer": 1}',
     "context[0].type", "unknown part type"),
    ('{"id": "a", "benchmark": "b", "task": "t", "context": [{"type": "image"}], "question": [], "answer": 1}',
     "context[0].path", "path"),
    ('{"id": "", "benchmark": "b", "task": "t", "context": [], "question": [], "answer": 1}', "id", "non-empty"),
    ('{"id": "a", "benchmark": "b", "task": "t", "context": [], "question": [], "answer": 1, "choices": 3}',
     "choices", "list"),
])
def test_validation_errors_name_file_line_and_field(tmp_path: Path, line: str, field: str, message: str) -> None:
    good = json.dumps(_sample(0).to_json())
    _write_lines(tmp_path / "ds", [good, line])
    with pytest.raises(DataError) as err:
        list(Dataset(tmp_path / "ds"))
    e = err.value
    assert e.line == 2 and e.field == field and e.file.endswith("samples.jsonl")
    assert message in str(e) and "samples.jsonl:2" in str(e)


def test_bad_json_and_duplicate_ids(tmp_path: Path) -> None:
    good = json.dumps(_sample(0).to_json())
    _write_lines(tmp_path / "a", [good, "{not json"])
    with pytest.raises(DataError, match=r"samples.jsonl:2.*invalid JSON"):
        list(Dataset(tmp_path / "a"))
    _write_lines(tmp_path / "b", [good, good])
    with pytest.raises(DataError, match="duplicate sample id"):
        list(Dataset(tmp_path / "b"))


@pytest.mark.parametrize("path", ["../outside.png", "/etc/passwd", "media/../../x.png"])
def test_media_paths_cannot_escape_the_media_root(tmp_path: Path, path: str) -> None:
    s = _sample(0, context=[ImagePart(path)])
    _write_lines(tmp_path / "ds", [json.dumps(s.to_json())])
    with pytest.raises(DataError, match="escapes the media root") as err:
        list(Dataset(tmp_path / "ds"))
    assert err.value.line == 1 and err.value.field == "media[0]"


def test_symlink_escape_is_refused(tmp_path: Path) -> None:
    (tmp_path / "ds" / "media").mkdir(parents=True)
    (tmp_path / "secret.png").write_bytes(b"x")
    (tmp_path / "ds" / "media" / "link.png").symlink_to(tmp_path / "secret.png")
    s = _sample(0, context=[ImagePart("media/link.png")])
    (tmp_path / "ds" / "samples.jsonl").write_text(json.dumps(s.to_json()) + "\n")
    with pytest.raises(DataError, match="escapes"):
        list(Dataset(tmp_path / "ds"))


def test_missing_media_reported_when_checked(tmp_path: Path) -> None:
    _write_lines(tmp_path / "ds", [json.dumps(_sample(0).to_json())])
    assert len(list(Dataset(tmp_path / "ds").iter_samples())) == 1
    with pytest.raises(DataError, match="not found"):
        list(Dataset(tmp_path / "ds").iter_samples(check_media=True))


def test_failed_write_leaves_no_directory_and_keeps_the_old_one(tmp_path: Path) -> None:
    out = tmp_path / "ds"
    with DatasetWriter(out) as w:
        w.write(_sample(0))
        w.finish({})
    before = (out / "samples.jsonl").read_bytes()
    with pytest.raises(RuntimeError), DatasetWriter(out) as w:
        w.write(_sample(1))
        raise RuntimeError("boom")
    assert (out / "samples.jsonl").read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["ds"]  # no temporary leftovers
    with pytest.raises(RuntimeError), DatasetWriter(tmp_path / "new") as w:
        raise RuntimeError("boom")
    assert not (tmp_path / "new").exists()


def test_a_killed_build_leaves_nothing_behind_after_the_next_build(tmp_path: Path) -> None:
    stale = tmp_path / ".ds.999999999.abcd.building"  # no such process
    stale.mkdir()
    (stale / "samples.jsonl").write_text("half\n")
    with DatasetWriter(tmp_path / "ds") as w:
        w.write(_sample(0))
        w.finish({})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ds"]


def test_a_rebuild_with_other_samples_says_it_replaced_the_dataset(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                                                   ) -> None:
    def build(n: int) -> None:
        with DatasetWriter(tmp_path / "ds") as w:
            for i in range(n):
                w.write(Sample(id=f"s{i}", benchmark="toy", task="t", context=[TextPart("x")],
                               question=[TextPart("q")], answer="a"))
            w.finish({})

    build(3)
    build(3)  # the same samples again (a rebuild with the same seed): nothing to say
    assert "replaced" not in capsys.readouterr().err
    build(2)
    assert f"note: replaced the dataset in {tmp_path / 'ds'} (3 samples before, 2 now" in capsys.readouterr().err
    assert len(list(Dataset(tmp_path / "ds"))) == 2


def test_an_atomic_write_over_a_folder_is_one_line_naming_it(tmp_path: Path) -> None:
    from niah.util.errors import ConfigError
    from niah.util.iox import write_atomic

    (tmp_path / "out").mkdir()
    with pytest.raises(ConfigError, match=r"output .*out is a folder; give a file path"):
        write_atomic(tmp_path / "out", "x")
    assert [p.name for p in tmp_path.iterdir()] == ["out"]  # no temporary file left beside it
