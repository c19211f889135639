"""Commands never write a derived dataset over its input, and sizes that would spin or blow up memory are
refused with a clear error (issue 21)."""

from __future__ import annotations

import pytest

from niah.benchmarks.mm_niah.text_only import derive_text_only
from niah.benchmarks.seq_niah.cli import write_noise_dataset
from niah.models.media import MAX_IMAGE_SIDE, parse_image_size
from niah.tokens.image import MAX_TILES, get_image_rule
from niah.util.errors import ConfigError
from support.datasets import write_text_prompts


@pytest.mark.parametrize("where", ["same", "inside", "around"])
def test_derive_and_noise_refuse_to_write_over_their_input(tmp_path, where):
    ds = write_text_prompts(tmp_path / "ds", ["a", "b"])
    before = (ds / "samples.jsonl").read_bytes()
    out = {"same": ds, "inside": ds / "derived", "around": tmp_path}[where]
    with pytest.raises(ConfigError, match="input dataset"):
        derive_text_only(ds, out)
    with pytest.raises(ConfigError, match="input dataset"):
        write_noise_dataset(ds, out, kinds=["reorder"], variants=1, seed=0, progress=False)
    assert (ds / "samples.jsonl").read_bytes() == before


def test_max_tiles_has_an_upper_bound():
    assert get_image_rule(f"internvl:max_tiles={MAX_TILES}").max_tiles == MAX_TILES  # type: ignore[attr-defined]
    for spec in (f"internvl:max_tiles={MAX_TILES + 1}", "internvl:max_tiles=100000", "internvl-448-max5000"):
        with pytest.raises(ConfigError, match="max_tiles must be at most"):
            get_image_rule(spec)


def test_image_size_has_an_upper_bound():
    assert parse_image_size(f"{MAX_IMAGE_SIDE}x448") == (MAX_IMAGE_SIDE, 448)
    for value in ("20000x20000", f"448x{MAX_IMAGE_SIDE + 1}", "100000"):
        with pytest.raises(ConfigError, match="at most"):
            parse_image_size(value)
