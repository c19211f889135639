"""Sample-browser labels say what a sample holds per part type, and generated questions use the right article."""

from __future__ import annotations

from typing import Any

import pytest

from niah.build.english import format_with_articles, with_article
from niah.report.samples import context_label, media_summary, preview_parts
from niah.sample import ImagePart, Part, Sample, TextPart, VideoPart


def _ref(path: str, needle: bool) -> dict[str, Any]:
    return {"src": None, "name": path, **({"needle": True} if needle else {})}


def _sample(context: list[Part], needles: list[str]) -> Sample:
    return Sample(id="s", benchmark="b", task="t", context=context, question=[TextPart("q?")], answer="x",
                  meta={"needles": needles})


def _label(sample: Sample) -> str:
    needles = sample.meta["needles"]
    return context_label(sample, preview_parts(sample.context, needles, _ref), needles)


def test_an_image_needle_is_marked_never_called_text_not_found() -> None:
    sample = _sample([TextPart("Some haystack text."), ImagePart("media/a.png"), ImagePart("media/needle.png")],
                     ["media/needle.png"])
    assert _label(sample) == "Context preview (19 characters of text, 2 images, needle images marked)"


def test_text_needles_are_highlighted_or_said_missing() -> None:
    found = _sample([TextPart("Before. The key is 42. After.")], ["The key is 42."])
    assert _label(found) == "Context preview (29 characters of text, needle text highlighted)"
    missing = _sample([TextPart("Before. After.")], ["The key is 42."])
    assert _label(missing) == "Context preview (14 characters of text, needle text not found verbatim)"


def test_videos_are_counted_in_frames_not_images() -> None:
    frames: list[Part] = [VideoPart(frames=tuple(f"media/frames/{i:024x}.jpg" for i in range(60)), fps=1.0)]
    assert media_summary(frames) == ["a video of 60 frames"]
    assert media_summary([VideoPart(path="clips/movie.mp4"), ImagePart("a.png")]) == [
        "1 image", "a video (movie.mp4)"]
    assert _label(_sample(frames, [])) == "Context preview (a video of 60 frames)"


@pytest.mark.parametrize(("noun", "expected"), [
    ("owl", "an owl"), ("cat", "a cat"), ("ukulele", "a ukulele"), ("euphonium", "a euphonium"),
    ("hour", "an hour"), ("ivory comb", "an ivory comb"), ("umbrella stand", "an umbrella stand"),
    ("unicorn", "a unicorn"), ("one-eyed cat", "a one-eyed cat"), ("Emu", "an Emu")])
def test_article_by_sound(noun: str, expected: str) -> None:
    assert with_article(noun) == expected


def test_template_articles_follow_their_slot_value() -> None:
    text = format_with_articles("A {x} met a {y} and an {z}.", {"x": "owl", "y": "oboe", "z": "cat"})
    assert text == "An owl met an oboe and a cat."
