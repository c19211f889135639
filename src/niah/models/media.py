"""Encoding prompt media for transport: base64 data URLs, file URLs, optional resize.

Kept apart from the backends so that the OpenAI-compatible and vLLM backends encode images the same way.
"""

from __future__ import annotations

import base64
import io
import mimetypes
from collections import OrderedDict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from niah.sample import ImagePart, TextPart, VideoPart, merge_text_parts
from niah.util.errors import ConfigError

if TYPE_CHECKING:
    from niah.prompts.types import RenderedPrompt

_MIME_BY_SUFFIX = {
    ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".png": "image/png", ".webp": "image/webp",
    ".gif": "image/gif", ".bmp": "image/bmp", ".mp4": "video/mp4", ".webm": "video/webm",
    ".mov": "video/quicktime", ".mkv": "video/x-matroska",
}


def mime_type(path: Path) -> str:
    return _MIME_BY_SUFFIX.get(path.suffix.lower()) or mimetypes.guess_type(path.name)[0] or "application/octet-stream"


#: Largest side ``image_size`` may resize images to (8192x8192 = 67 Mpx, under PIL's decompression-bomb limit).
MAX_IMAGE_SIDE = 8192


def parse_image_size(value: str | int | tuple[int, int] | None) -> tuple[int, int] | None:
    """``"448x448"``, ``448`` or ``(448, 448)`` to (width, height); None stays None."""
    if value is None or value == "":
        return None
    if isinstance(value, int):
        w = h = value
    elif isinstance(value, tuple):
        w, h = value
    else:
        text = str(value).lower().strip()
        try:
            if "x" in text:
                a, _, b = text.partition("x")
                w, h = int(a), int(b)
            else:
                w = h = int(text)
        except ValueError:
            raise ConfigError(f"image size {value!r} must look like 448 or 448x448") from None
    if w <= 0 or h <= 0:
        raise ConfigError(f"image size {value!r} must be positive")
    if w > MAX_IMAGE_SIDE or h > MAX_IMAGE_SIDE:  # every image would be upscaled to it: 400 Mpx per request
        raise ConfigError(f"image size {value!r}: each side must be at most {MAX_IMAGE_SIDE} pixels")
    return (w, h)


class ImageEncoder:
    """Turns image files into what a request carries, with a small LRU so that images shared by many
    samples (haystacks drawn from one image pool) are read and encoded once.

    ``size`` resizes every image to exactly that size (e.g. 448x448: one InternVL tile per image);
    ``scale`` (set per prompt by the downscale policy) shrinks images further by a linear factor.
    """

    def __init__(self, *, size: tuple[int, int] | None = None, max_entries: int = 64) -> None:
        self.size = size
        self._cache: OrderedDict[tuple[str, float | None], tuple[str, bytes]] = OrderedDict()
        self._max = max_entries

    def transformed(self, path: Path, scale: float | None = None) -> tuple[str, bytes]:
        """(mime type, bytes) of the image after the configured resize and ``scale``."""
        key = (str(path), scale)
        hit = self._cache.get(key)
        if hit is not None:
            self._cache.move_to_end(key)
            return hit
        if self.size is None and (scale is None or scale >= 1.0):
            out = (mime_type(path), path.read_bytes())
        else:
            from PIL import Image

            with Image.open(path) as img:
                img.load()
                w, h = self.size or img.size
                if scale is not None and scale < 1.0:
                    w, h = max(1, round(w * scale)), max(1, round(h * scale))
                resized = img.convert("RGB").resize((w, h), Image.Resampling.BICUBIC)
                buf = io.BytesIO()
                resized.save(buf, format="PNG")
            out = ("image/png", buf.getvalue())
        self._cache[key] = out
        if len(self._cache) > self._max:
            self._cache.popitem(last=False)
        return out

    def data_url(self, path: Path, scale: float | None = None) -> str:
        mime, data = self.transformed(path, scale)
        return f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"

    def pil(self, path: Path, scale: float | None = None):  # -> PIL.Image.Image
        from PIL import Image

        _, data = self.transformed(path, scale)
        img = Image.open(io.BytesIO(data))
        img.load()
        return img.convert("RGB")


def raw_data_url(path: Path) -> str:
    """A file as a data URL, bytes unchanged (videos: never decoded or resized here)."""
    return f"data:{mime_type(path)};base64,{base64.b64encode(path.read_bytes()).decode('ascii')}"


def file_url(path: Path) -> str:
    return path.resolve().as_uri()


def _media_url(prompt: RenderedPrompt, rel: str, images: ImageEncoder, transport: str) -> str:
    path = prompt.resolve(rel)
    if transport == "file" and images.size is None and not prompt.image_scale:
        return file_url(path)
    return images.data_url(path, prompt.image_scale)


def openai_messages(prompt: RenderedPrompt, images: ImageEncoder, *, transport: str = "data") -> list[dict[str, Any]]:
    """The prompt as OpenAI chat messages: one user turn whose content parts keep the prompt's order.

    Text-only prompts get a plain string as content, which every server accepts. Images become
    ``image_url`` parts (base64 data URLs, or ``file://`` URLs with ``transport="file"`` when no resize is
    needed); a video file becomes a ``video_url`` part, a video given as frames becomes its frames in order.
    """
    messages: list[dict[str, Any]] = []
    if prompt.system:
        messages.append({"role": "system", "content": prompt.system})
    if all(isinstance(p, TextPart) for p in prompt.parts):
        messages.append({"role": "user", "content": prompt.text()})
        return messages
    content: list[dict[str, Any]] = []
    for part in merge_text_parts(prompt.parts):  # adjacent text as one part: the official string, byte for byte
        if isinstance(part, TextPart):
            content.append({"type": "text", "text": part.text})
        elif isinstance(part, ImagePart):
            content.append({"type": "image_url",
                            "image_url": {"url": _media_url(prompt, part.path, images, transport)}})
        elif isinstance(part, VideoPart):
            if part.path is not None:
                path = prompt.resolve(part.path)
                url = file_url(path) if transport == "file" else raw_data_url(path)
                content.append({"type": "video_url", "video_url": {"url": url}})
            else:
                for frame in part.frames or ():
                    content.append({"type": "image_url",
                                    "image_url": {"url": _media_url(prompt, frame, images, transport)}})
    messages.append({"role": "user", "content": content})
    return messages
