"""Stage 2 of a run, **expand media**: a sample's rendered prompt turned into what the model is sent.

Videos become sampled frames (or stay video, with a transcript, for a model that takes video natively), then
the capability fit applies the over-limit policy to images and text (:mod:`niah.prompts.render`). Video decoding runs
in a thread, so requests already planned keep flowing while a long video is sampled, and it stops at the next
frame when the run is stopped (:class:`niah.video.frames.DecodeStop`).

Sampled frames are cached where the run's own files are: ``$NIAH_FRAME_CACHE`` when the user set it, else the
``frames`` folder of ``--cache-dir`` (shared by the runs that name it), else ``RUN_DIR/cache/frames``; a dry run
with neither uses a private temporary folder removed when it ends. Never a folder shared under /tmp.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
from pathlib import Path

from niah.models.base import Capabilities
from niah.prompts.render import expand_media, fit_to_capabilities, render_prompt
from niah.prompts.types import FitResult, PromptOptions, RenderedPrompt
from niah.sample import Sample
from niah.video.frames import DecodeStop

FRAMES_SUBDIR = "frames"


def frame_cache_for(run_cache: Path | None, cache_dir: str | Path | None) -> Path | None:
    """Where a run keeps sampled frames (see the module's docstring); None: a dry run's temporary folder."""
    from niah.video.expand import FRAME_CACHE_ENV  # the video code loads only for a run that samples frames

    if os.environ.get(FRAME_CACHE_ENV):
        return Path(os.environ[FRAME_CACHE_ENV])
    if cache_dir is not None:
        return Path(cache_dir) / FRAMES_SUBDIR
    return run_cache / FRAMES_SUBDIR if run_cache is not None else None


class MediaStage:
    """Renders each sample's prompt and expands its media for one model. Create it in the task that runs the
    run (the decoding scope is that task's context) and :meth:`close` it there."""

    def __init__(self, media_root: Path, caps: Capabilities, options: PromptOptions,
                 frame_cache: Path | None) -> None:
        self.media_root = media_root
        self.caps = caps
        self.options = options
        self._temporary: Path | None = None
        if frame_cache is None:
            self._temporary = frame_cache = Path(tempfile.mkdtemp(prefix="niah-frames-"))  # 0700, ours alone
        self.frame_cache = frame_cache
        self._decoding = DecodeStop()

    def render(self, sample: Sample) -> RenderedPrompt:
        """The family's prompt for ``sample``, media as the dataset holds it."""
        return render_prompt(sample, self.media_root, self.options)

    async def fit(self, prompt: RenderedPrompt, sample: Sample) -> FitResult:
        """``prompt`` with its media expanded and the over-limit policy applied: what is sent, or why not."""
        if prompt.has_video:  # frames are decoded here: off the event loop, requests keep flowing
            expanded, notes = await asyncio.to_thread(expand_media, prompt, self.caps, self.options,
                                                      frame_cache=self.frame_cache)
        else:
            expanded, notes = expand_media(prompt, self.caps, self.options, frame_cache=self.frame_cache)
        return fit_to_capabilities(expanded, sample, self.caps, self.options, expanded_notes=notes)

    def stop(self) -> None:
        """Stop video decoding now (SIGTERM): a sampling thread would otherwise decode on."""
        self._decoding.stop()

    def close(self) -> None:
        """Stop what still decodes, end the decoding scope, and remove a dry run's temporary frames."""
        self._decoding.close()
        if self._temporary is not None:
            shutil.rmtree(self._temporary, ignore_errors=True)
