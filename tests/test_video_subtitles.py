"""Subtitles: SRT and WebVTT parsing, alignment to sampled frames (both modes), token accounting, bad files."""

from __future__ import annotations

from pathlib import Path

import pytest

from niah.tokens import get_tokenizer
from niah.util.errors import DataError
from niah.video import align_to_frames, count_video_tokens, frame_spans, load_subtitles, transcript
from niah.video.subtitles import Cue

SRT = """1
00:00:01,000 --> 00:00:02,500
<i>Hello</i> there.

2
00:00:04,000 --> 00:00:07,000
Second line
spans two rows.

3
00:00:09,900 --> 00:00:10,100
Third.
"""

VTT = """WEBVTT

00:01.000 --> 00:02.500
<v Bob>Hello</v> there.

cue-2
00:00:04.000 --> 00:00:07.000 align:start
Second line
spans two rows.

00:09.900 --> 00:10.100
Third.
"""


@pytest.fixture
def srt_file(tmp_path: Path) -> Path:
    p = tmp_path / "ep.srt"
    p.write_text(SRT, encoding="utf-8")
    return p


def test_srt_and_vtt_parse_alike(srt_file: Path, tmp_path: Path) -> None:
    vtt = tmp_path / "ep.vtt"
    vtt.write_text(VTT, encoding="utf-8")
    expected = [Cue(1.0, 2.5, "Hello there."), Cue(4.0, 7.0, "Second line\nspans two rows."), Cue(9.9, 10.1, "Third.")]
    assert load_subtitles(srt_file) == expected
    assert load_subtitles(vtt) == expected


def test_bom_and_cp1252(tmp_path: Path) -> None:
    p = tmp_path / "a.srt"
    p.write_bytes(b"\xef\xbb\xbf" + "1\n00:00:00,000 --> 00:00:01,000\ncaf\u00e9\n".encode())
    assert load_subtitles(p)[0].text == "caf\u00e9"
    p.write_bytes("1\n00:00:00,000 --> 00:00:01,000\ncaf\u00e9\n".encode("cp1252"))
    assert load_subtitles(p)[0].text == "caf\u00e9"


def test_frame_spans_tile_the_video() -> None:
    assert frame_spans([1.0, 3.0, 7.0]) == [(float("-inf"), 2.0), (2.0, 5.0), (5.0, float("inf"))]
    with pytest.raises(ValueError):
        frame_spans([2.0, 1.0])


def test_per_frame_alignment_by_start_gives_each_line_once(srt_file: Path) -> None:
    cues = load_subtitles(srt_file)
    # frames at 0, 3, 6, 9 s: spans (-inf,1.5) [1.5,4.5) [4.5,7.5) [7.5,inf)
    per_frame = align_to_frames(cues, [0.0, 3.0, 6.0, 9.0])
    assert per_frame == [["Hello there."], ["Second line\nspans two rows."], [], ["Third."]]
    assert sum(len(x) for x in per_frame) == len(cues)


def test_per_frame_alignment_by_overlap_repeats_long_lines(srt_file: Path) -> None:
    cues = load_subtitles(srt_file)
    per_frame = align_to_frames(cues, [0.0, 3.0, 6.0, 9.0], assign="overlap")
    assert per_frame == [["Hello there."], ["Hello there.", "Second line\nspans two rows."],
                         ["Second line\nspans two rows."], ["Third."]]


def test_transcript_mode(srt_file: Path) -> None:
    assert transcript(load_subtitles(srt_file)) == "Hello there.\nSecond line\nspans two rows.\nThird."


def test_bad_srt_names_file_and_line(tmp_path: Path) -> None:
    p = tmp_path / "bad.srt"
    p.write_text("1\n00:00:01,000 --> 00:00:02,000\nok\n\n2\n00:00:0x,000 --> 00:00:04,000\nbroken\n")
    with pytest.raises(DataError) as err:
        load_subtitles(p)
    assert err.value.file == str(p) and err.value.line == 5


def test_bad_vtt_names_file_and_line(tmp_path: Path) -> None:
    p = tmp_path / "bad.vtt"
    p.write_text("WEBVTT\n\n00:01.000 --> 00:02.000\nok\n\n00:03.x00 --> 00:04.000\nbroken\n")
    with pytest.raises(DataError) as err:
        load_subtitles(p)
    assert err.value.file == str(p) and err.value.line == 6
    p2 = tmp_path / "bad2.vtt"
    p2.write_text("no header\n")
    with pytest.raises(DataError) as err:
        load_subtitles(p2)
    assert err.value.file == str(p2)


@pytest.mark.parametrize("timing", ["00:01.000 -> 00:03.000", "00:01.000 00:03.000", "00:01.000 - 00:03.000",
                                    "00:01.000 => 00:03.000"])
@pytest.mark.parametrize("identifier", [False, True])
def test_vtt_timing_without_an_arrow_names_file_and_line(tmp_path: Path, timing: str, identifier: bool) -> None:
    # webvtt-py skips such a cue (the file loaded as []); it must fail at the timing line instead
    p = tmp_path / "arrow.vtt"
    cue = ("cue-2\n" if identifier else "") + f"{timing}\nlost line\n"
    p.write_text(f"WEBVTT\n\n00:00.000 --> 00:00.500\nok\n\n{cue}")
    with pytest.raises(DataError, match="invalid WebVTT cue timing") as err:
        load_subtitles(p)
    assert err.value.file == str(p) and err.value.line == (7 if identifier else 6)
    assert timing in str(err.value)


def test_vtt_first_cue_without_an_arrow_is_refused(tmp_path: Path) -> None:
    p = tmp_path / "only.vtt"
    p.write_text("WEBVTT\n\n00:01.000 -> 00:03.000\nhello\n")
    with pytest.raises(DataError) as err:
        load_subtitles(p)
    assert (err.value.file, err.value.line) == (str(p), 3)
    crlf = tmp_path / "crlf.vtt"
    crlf.write_bytes(b"WEBVTT\r\nKind: captions\r\n\r\n00:01.000 00:03.000\r\nhello\r\n")
    with pytest.raises(DataError) as err:
        load_subtitles(crlf)
    assert (err.value.file, err.value.line) == (str(crlf), 4)


def test_vtt_text_block_without_timing_is_refused(tmp_path: Path) -> None:
    # a blank line inside a cue's text: webvtt-py drops the rest of the text without a word
    p = tmp_path / "gap.vtt"
    p.write_text("WEBVTT\n\n00:01.000 --> 00:02.000\nline one\n\nline two\n")
    with pytest.raises(DataError, match="without a 'start --> end' timing line") as err:
        load_subtitles(p)
    assert (err.value.file, err.value.line) == (str(p), 6)


def test_vtt_note_style_and_region_blocks_are_not_cues(tmp_path: Path) -> None:
    p = tmp_path / "blocks.vtt"
    p.write_text("WEBVTT - a title\nKind: captions\n\nNOTE written by hand\nno timing here\n\n"
                 "STYLE\n::cue { color: yellow }\n\nREGION\nid:left width:40%\n\n"
                 "00:01.000 --> 00:02.000 region:left\nok -> fine\n")
    assert load_subtitles(p) == [Cue(1.0, 2.0, "ok -> fine")]


@pytest.mark.parametrize("timing", ["00:00:03,000 -> 00:00:04,000", "00:00:03,000 00:00:04,000"])
def test_srt_timing_without_an_arrow_names_file_and_line_too(tmp_path: Path, timing: str) -> None:
    # the SRT path (the srt library) already refuses these; kept here so both formats stay alike
    p = tmp_path / "arrow.srt"
    p.write_text(f"1\n00:00:01,000 --> 00:00:02,000\nok\n\n2\n{timing}\nlost line\n")
    with pytest.raises(DataError) as err:
        load_subtitles(p)
    assert err.value.file == str(p) and err.value.line == 5  # the block's first line, as for any bad SRT block


def test_binary_and_missing_files(tmp_path: Path) -> None:
    p = tmp_path / "x.srt"
    p.write_bytes(bytes(range(256)) * 4)
    with pytest.raises(DataError) as err:
        load_subtitles(p)
    assert err.value.file == str(p)
    with pytest.raises(DataError, match="not found"):
        load_subtitles(tmp_path / "none.srt")
    q = tmp_path / "x.ass"
    q.write_text("[Script Info]\n")
    with pytest.raises(DataError, match="unknown subtitle format"):
        load_subtitles(q)


def test_cue_ending_before_start_is_rejected(tmp_path: Path) -> None:
    p = tmp_path / "rev.vtt"
    p.write_text("WEBVTT\n\n00:05.000 --> 00:04.000\nbackwards\n")
    with pytest.raises(DataError, match="ends before it starts"):
        load_subtitles(p)


def test_video_token_accounting() -> None:
    tok = get_tokenizer("cl100k_base")
    texts = ["Hello there.", "", "Third."]
    counted = count_video_tokens([(1280, 720)] * 4, "qwen2vl-28px", texts, tok)
    # Qwen2-VL smart resize: 1280x720 -> 1288x728 (46 x 26 patches of 28 px) = 1196 tokens a frame
    assert counted.frame_tokens == 4 * 46 * 26
    assert counted.subtitle_tokens == tok.count("Hello there.") + tok.count("Third.")
    assert counted.total == counted.frame_tokens + counted.subtitle_tokens
    assert count_video_tokens([(448, 448)] * 3, "fixed:64").to_json()["total"] == 192
    with pytest.raises(ValueError):
        count_video_tokens([(10, 10)], "fixed:1", ["text"])
