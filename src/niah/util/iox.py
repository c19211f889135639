"""Small I/O helpers: atomic writes and safe path resolution."""

from __future__ import annotations

import contextlib
import errno
import functools
import glob
import hashlib
import json
import math
import os
import re
import shutil
import stat
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from niah.util import interrupts
from niah.util.errors import ConfigError, DataError


def refuse_folder_as_file(path: str | Path, what: str = "output") -> None:
    """A file output named by a folder (``--out DIR`` where a file is meant) is refused in one line; commands
    call this before their work, and every atomic write again before it writes."""
    if Path(path).is_dir():
        raise ConfigError(f"{what} {path} is a folder; give a file path (e.g. {Path(path) / 'out.json'})")


# ------------------------------------------------------------------------------------------- links and folders
# Everything niah writes in a run, report, cache or dataset folder goes through these helpers: a symbolic link
# planted where niah writes (requests.log -> ~/.bashrc) would have niah append to or truncate a file outside the
# folder, so no helper ever writes through one, and the folders niah writes into are ones it made or empty ones.


class LinkRefused(ConfigError):
    """A path niah was about to write through is a symbolic link."""


def refuse_link(path: str | Path, what: str = "file") -> None:
    """Raise :class:`LinkRefused` when ``path`` is a symbolic link (niah writes no file and no folder through a
    link; where it points is not the folder the user named)."""
    if os.path.islink(path):
        raise LinkRefused(f"{what} {path} is a symbolic link; niah never writes through a link (it could point "
                          "anywhere): remove the link, or choose another folder")


def _open_no_follow(path: Path, flags: int, what: str, follow: bool = False) -> int:
    # O_NONBLOCK: a FIFO planted at the name would block the open; regular files ignore the flag
    extra = 0 if follow else os.O_NOFOLLOW | os.O_NONBLOCK
    try:
        return os.open(path, flags | extra | os.O_CLOEXEC, 0o644)
    except OSError as exc:
        if exc.errno == errno.ELOOP or os.path.islink(path):
            refuse_link(path, what)
        if exc.errno == errno.ENXIO:  # a FIFO with no reader
            raise ConfigError(f"{what} {path} is not a regular file; remove it") from None
        raise


def open_append(path: str | Path, *, binary: bool = False, what: str = "file", follow_links: bool = False) -> Any:
    """``path`` opened to append (created 0644 when missing), refusing a symbolic link (:class:`LinkRefused`)
    and anything but a regular file. Text mode writes UTF-8 with ``\\n`` line ends. ``follow_links`` is for a
    file in a private folder the user named and niah checked (:func:`private_dir`): a link there is the user's."""
    path = Path(path)
    fd = _open_no_follow(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, what, follow_links)
    return _regular(fd, path, what, "ab" if binary else "a", check=not follow_links)


def open_update(path: str | Path, *, what: str = "file", follow_links: bool = False) -> Any:
    """``path`` opened for reading and writing in binary (``r+b``, never created), refusing a link."""
    path = Path(path)
    fd = _open_no_follow(path, os.O_RDWR, what, follow_links)
    return _regular(fd, path, what, "r+b", check=not follow_links)


def open_lock(path: str | Path, *, what: str = "lock file", follow_links: bool = False) -> int:
    """The file descriptor of a lock file (created when missing), refusing a link and anything but a file."""
    path = Path(path)
    fd = _open_no_follow(path, os.O_RDWR | os.O_CREAT, what, follow_links)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise ConfigError(f"{what} {path} is not a regular file; remove it")
    return fd


def _regular(fd: int, path: Path, what: str, mode: str, *, check: bool = True) -> Any:
    if check and not stat.S_ISREG(os.fstat(fd).st_mode):  # a FIFO or a device would block or write elsewhere
        os.close(fd)
        raise ConfigError(f"{what} {path} is not a regular file; remove it")
    if "b" in mode:
        return os.fdopen(fd, mode)
    return os.fdopen(fd, mode, encoding="utf-8", newline="\n")


def real_dir(path: str | Path, what: str = "folder") -> Path:
    """``path`` as a folder niah may write into: created when missing, refused when it is a link or a file."""
    path = Path(path)
    refuse_link(path, what)
    path.mkdir(parents=True, exist_ok=True)
    refuse_link(path, what)  # made by someone else between the two looks
    if not path.is_dir():
        raise ConfigError(f"{what} {path} is not a folder")
    return path


def private_dir(folder: Path, *, what: str, fix: str, follow_links: bool, create: bool = True) -> Path:
    """``folder``, created 0700 when missing, after checking that only this user can change it: a real folder
    (a link only when ``follow_links``, for a folder the user named), owned by this user, not writable by group
    or others (one they can only read is made 0700). Whoever can write a cache decides what niah reads back
    from it (frames sent to a model, replies scored as the model's). Raises ConfigError naming the folder,
    ``what`` it is and ``fix`` (what to do). ``create=False`` checks a folder that exists and leaves a missing
    one to be created when it is first used (a configuration checked before any work)."""
    if not create and not os.path.lexists(folder):
        return folder
    try:
        folder.mkdir(mode=0o700, parents=True)
    except FileExistsError:
        pass
    except OSError as exc:
        raise ConfigError(f"{what} {folder}: cannot create it ({exc.strerror or exc})") from None
    try:
        st = os.stat(folder) if follow_links else os.lstat(folder)
    except OSError as exc:
        raise ConfigError(f"{what} {folder}: cannot read it ({exc.strerror or exc})") from None
    if stat.S_ISLNK(st.st_mode):
        raise ConfigError(f"{what} {folder} is a symbolic link, not a folder of your own; {fix}")
    if not stat.S_ISDIR(st.st_mode):
        raise ConfigError(f"{what} {folder} is not a folder; {fix}")
    uid = os.getuid()
    if st.st_uid != uid:
        raise ConfigError(f"{what} {folder} is owned by uid {st.st_uid}, not by you (uid {uid}): whoever "
                          f"owns it decides what niah reads back from it; {fix}")
    mode = stat.S_IMODE(st.st_mode)
    if mode & 0o022:
        raise ConfigError(f"{what} {folder} is open to other users (mode {mode:04o}): they could plant what niah "
                          f"reads back from it; run chmod 700 {folder}, or {fix}")
    if mode & 0o077:  # ours, and others could only read it: nothing planted, close it
        try:
            os.chmod(folder, 0o700)
        except OSError as exc:
            raise ConfigError(f"{what} {folder}: cannot make it private ({exc.strerror or exc})") from None
    return folder


#: The file in a folder niah made for its output (a run, an eval, a cache): what :func:`claim_output_dir` reads.
OUTPUT_MARKER = ".niah-output.json"


def check_folder_option(path: Path, option: str = "--out") -> None:
    """Refuse, before anything is written, an output folder option that names an existing file."""
    if path.exists() and not path.is_dir():
        raise ConfigError(f"{option} {path} is a file; {option} names a folder (created if missing, "
                          "or an existing folder)")
    for parent in path.parents:
        if parent.exists():
            if not parent.is_dir():
                raise ConfigError(f"{option} {path}: {parent} is a file, not a folder")
            break


def output_dir_problem(out: str | Path, *, kind: str, ours: Callable[[Path], bool] | None = None,
                       marker_name: str = OUTPUT_MARKER) -> str | None:
    """Why niah may not write its ``kind`` output ("run", "eval", "cache", ...) into the folder ``out``, or None
    when it may: ``out`` is missing, an empty folder, a folder holding niah's :data:`OUTPUT_MARKER` for this
    ``kind``, or one ``ours`` recognises as an earlier output of that kind (written before the marker existed,
    or marked its own way: a run's lock file, a dataset's samples.jsonl). A file, a link to a folder niah did not
    make, a folder of another kind, and any other non-empty folder (``/``, a home directory, a dataset named as
    a run's output) are refused: niah would write beside, or over, the user's own files."""
    out = Path(out)
    if not os.path.lexists(out):
        return None
    if not out.is_dir():
        return "exists and is not a folder"
    marker = out / marker_name
    if marker.is_file() and not marker.is_symlink():
        try:
            recorded = json.loads(marker.read_text(encoding="utf-8")).get("kind")
        except (OSError, ValueError, AttributeError):
            recorded = None
        if recorded == kind:
            return None
        return f"is a folder niah made for another output ({recorded!r}, not {kind!r})"
    if ours is not None and ours(out):
        return None
    try:
        empty = not any(out.iterdir())
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})"
    if empty:
        return None
    return (f"is not empty and was not made by niah for a {kind} (no {marker_name}); niah writes only into "
            "folders it made or empty ones")


def claim_output_dir(out: str | Path, *, kind: str, ours: Callable[[Path], bool] | None = None,
                     option: str = "--out", mark: bool = True) -> bool:
    """Make ``out`` the folder of niah's ``kind`` output, or raise ConfigError (``option`` names where the user
    gave it) when :func:`output_dir_problem` says niah may not write there. The one folder-ownership check of
    every command that writes into a folder (run, eval, caches; build, import and export replace a whole folder
    and check it with this rule too). With ``mark`` the folder gets :data:`OUTPUT_MARKER` (kind, niah version),
    so a later command recognises it. Returns whether the folder was created now."""
    out = Path(out)
    why = output_dir_problem(out, kind=kind, ours=ours)
    if why is not None:
        raise ConfigError(f"{option} {out} {why}: choose a new folder, or empty this one")
    created = not out.exists()
    out.mkdir(parents=True, exist_ok=True)
    if mark and not (out / OUTPUT_MARKER).is_file():
        from niah import __version__

        write_json_atomic(out / OUTPUT_MARKER, {"written_by": "niah", "kind": kind, "niah_version": __version__})
    return created


def write_atomic(path: str | Path, data: str | bytes) -> None:
    """Write a file so that readers see either the old or the complete new content, never a torn one. A
    symbolic link at ``path`` is refused (:class:`LinkRefused`: it was not niah's)."""
    path = Path(path)
    refuse_folder_as_file(path)
    refuse_link(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp: str | None = None
    try:
        with interrupts.deferred():  # a stop between creating the file and naming it here would leave it
            fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        os.fchmod(fd, 0o644)  # mkstemp makes 0600; outputs (reports, datasets) are meant to be shared
        with os.fdopen(fd, "wb") as fh:
            fh.write(data.encode("utf-8") if isinstance(data, str) else data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
        raise


class NonFiniteOutput(DataError, ValueError):
    """A value about to be written holds NaN or an infinity: strict JSON has none, so nothing is written."""


def _strict_dumps(obj: Any, *, path: str | Path | None = None, **options: Any) -> str:
    try:
        return json.dumps(obj, allow_nan=False, **options)
    except ValueError as exc:
        where = non_finite_field(obj)
        if where is None:
            raise
        raise NonFiniteOutput(f"refusing to write a non-finite number (NaN or infinity) in JSON: {exc}",
                              file=path, field=where) from None


def jsonable(value: Any) -> Any:
    """``value`` as JSON holds it: tuples as lists, keys as strings, anything else (a path, an enum, a date) as
    its ``str``; so a record compares equal to what reading it back gives."""
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    return str(value)


def write_json_atomic(path: str | Path, obj: Any, *, indent: int | None = 2) -> None:
    """Strict JSON (``allow_nan=False``): a NaN or infinity raises :class:`NonFiniteOutput` (a DataError
    naming the file and field) instead of writing bare ``NaN``."""
    write_atomic(path, _strict_dumps(obj, path=path, ensure_ascii=False, indent=indent) + "\n")


LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def dumps_line(obj: Any) -> str:
    """One JSONL line; stable formatting so equal inputs give byte-identical files. UTF-8 is kept, except
    that a line holding a lone surrogate (valid JSON from a hostile source, not encodable) is written with
    escapes instead, so writing it can never fail."""
    text = _strict_dumps(obj, ensure_ascii=False)  # strict JSON: never a bare NaN
    if LONE_SURROGATE.search(text):
        text = _strict_dumps(obj, ensure_ascii=True)
    return text + "\n"


@functools.lru_cache(maxsize=1 << 17)
def _resolve_pair(root: str, rel: str) -> tuple[Path, Path]:
    root_resolved = Path(root).resolve()
    return root_resolved, (root_resolved / rel).resolve()


def resolve_under(root: str | Path, rel: str, *, file: str | Path | None = None,
                  line: int | None = None, field: str | None = None) -> Path:
    """Resolve `rel` against `root`, refusing anything (absolute paths, `..`, symlinks) that leaves `root`.

    Resolutions are remembered per process (a video sample lists thousands of frames, each resolved by
    validation, reading and fingerprinting); only paths that stayed inside their root are remembered, so a
    refusal is always decided afresh."""
    if not isinstance(rel, str) or not rel:
        raise DataError("media path must be a non-empty string", file=file, line=line, field=field)
    if "\x00" in rel:
        raise DataError("media path contains a NUL byte", file=file, line=line, field=field)
    root_resolved, candidate = _resolve_pair(str(root), rel)
    if not candidate.is_relative_to(root_resolved):
        _resolve_pair.cache_clear()  # never keep what led outside: a fixed link is seen on the next call
        raise DataError(
            f"media path {rel!r} escapes the media root {str(root_resolved)!r}",
            file=file, line=line, field=field,
        )
    return candidate


def path_inside(root: Path, rel: str, *, what: str = "media path") -> Path:
    """``root / rel`` for a copy niah writes (an export's media file), refusing a ``rel`` that leaves ``root``
    once its ``..`` segments are read (``../../x.png`` resolves inside the dataset's media root but, joined to
    the export's folder, names a file beside it): a DataError naming ``rel``."""
    import posixpath

    norm = posixpath.normpath(rel.replace("\\", "/"))
    if not rel or posixpath.isabs(norm) or norm == ".." or norm.startswith("../") or "\x00" in rel:
        raise DataError(f"{what} {rel!r} would be written outside the export's folder; refused")
    return root / norm


#: The longest JSONL line (and the largest whole JSON file) niah reads. A longer one is refused with a clear
#: error instead of being held in memory: the largest official records (128K-token contexts) are a few MB.
MAX_LINE_BYTES = 64 << 20
MAX_JSON_FILE_BYTES = 1 << 30
_BOM = "\ufeff"


class _NonFinite(ValueError):
    """``NaN`` / ``Infinity`` / ``-Infinity`` met by a strict reader."""


def _refuse_constant(name: str) -> Any:
    raise _NonFinite(name)


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):  # 1e999 is valid JSON syntax but reads as infinity
        raise _NonFinite(text)
    return value


#: More digits than any float holds (1.8e308): a run of them may be an integer no reader can use as a number.
_LONG_DIGITS = re.compile(r"\d{310}")
_FLOAT_MAX_DIGITS = 309


class HugeNumber(ValueError):
    """An integer too large for a float (``float()`` of it raises OverflowError): ``field`` names where."""

    def __init__(self, field: str, digits: int) -> None:
        self.field = field
        super().__init__(f"a number of {digits} digits is too large (a float holds {_FLOAT_MAX_DIGITS} at most)")


def _huge_int(obj: Any, where: str = "") -> tuple[str, int] | None:
    """(path, digits) of the first integer in a decoded value too large for a float, or None."""
    if isinstance(obj, int) and not isinstance(obj, bool):
        try:
            float(obj)
        except OverflowError:
            return where or "value", len(str(abs(obj)))
        return None
    items = obj.items() if isinstance(obj, dict) else enumerate(obj) if isinstance(obj, list) else ()
    for key, value in items:
        found = _huge_int(value, f"{where}[{key}]" if isinstance(key, int) else f"{where}.{key}" if where else key)
        if found is not None:
            return found
    return None


def _loads(text: str, *, strict: bool) -> Any:
    """json.loads; ``strict`` refuses NaN / Infinity (not JSON; Python's reader accepts them) and numbers
    too large for a float via ValueError. An integer too large for a float (``float()`` of it, in any figure,
    depth or length niah computes, would raise) is a :class:`HugeNumber` either way, naming its field; it is
    looked for only when the text holds such a run of digits, so ordinary lines parse at full speed."""
    obj = (json.loads(text, parse_constant=_refuse_constant, parse_float=_finite_float) if strict
           else json.loads(text))
    if _LONG_DIGITS.search(text):
        found = _huge_int(obj)
        if found is not None:
            raise HugeNumber(*found)
    return obj


def loads_json(text: str | bytes, *, strict: bool = False) -> Any:
    """json.loads for text from outside niah that no line reader of this module reads (a zip member, a Parquet
    cell): an integer too large for a float is a ValueError, and ``strict`` refuses NaN and Infinity as
    :func:`iter_jsonl` does."""
    return _loads(text.decode("utf-8") if isinstance(text, bytes) else text, strict=strict)


def non_finite_field(obj: Any, where: str = "") -> str | None:
    """The path (``answer``, ``context[2].score``) of the first NaN or infinity in a decoded value, or None."""
    if isinstance(obj, float):
        return None if math.isfinite(obj) else (where or "value")
    if isinstance(obj, dict):
        for key, value in obj.items():
            found = non_finite_field(value, f"{where}.{key}" if where else str(key))
            if found is not None:
                return found
    elif isinstance(obj, list):
        for i, value in enumerate(obj):
            found = non_finite_field(value, f"{where}[{i}]")
            if found is not None:
                return found
    return None


def loads_finite(text: str) -> Any:
    """json.loads refusing NaN, Infinity and overflowing numbers (ValueError): for option values."""
    return _loads(text, strict=True)


def _strict_problem(obj: Any, text: str) -> str | None:
    """Why a decoded input value is unusable text: a lone UTF-16 surrogate escape cannot be encoded again."""
    if "\\u" in text and SURROGATE_ESCAPE.search(text) and holds_lone_surrogate(obj):
        return "holds a lone UTF-16 surrogate escape (not valid Unicode text)"
    return None


SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def holds_lone_surrogate(obj: Any) -> bool:
    """Whether any string in a decoded JSON value (keys included) holds a lone UTF-16 surrogate."""
    if isinstance(obj, str):
        return bool(LONE_SURROGATE.search(obj))
    if isinstance(obj, dict):
        return any(holds_lone_surrogate(k) or holds_lone_surrogate(v) for k, v in obj.items())
    if isinstance(obj, list):
        return any(holds_lone_surrogate(v) for v in obj)
    return False


def open_regular(path: str | Path, what: str = "file") -> Any:
    """``path`` opened to read bytes, as ``open(path, "rb")`` (its OSErrors unchanged: a missing file is a
    FileNotFoundError), except that anything but a regular file is a DataError naming it: a FIFO planted under
    an input's name would block the read forever, a device never end. O_NONBLOCK keeps the open itself from
    blocking on a FIFO; regular files ignore it."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
        raise DataError(f"{what} is not a regular file (a FIFO, device or socket); refused", file=path)
    os.set_blocking(fd, True)
    return os.fdopen(fd, "rb")


def file_digest(path: str | Path) -> str:
    """SHA-256 (hex) of a regular file's bytes, read in 1 MiB blocks (:func:`open_regular`'s errors)."""
    digest = hashlib.sha256()
    with open_regular(path) as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def open_input(path: str | Path, what: str) -> Any:
    """:func:`open_regular`, every failure a DataError naming the file: missing, unreadable, a folder."""
    try:
        return open_regular(path, what)
    except FileNotFoundError:
        raise DataError(f"{what} does not exist", file=path) from None
    except IsADirectoryError:
        raise DataError(f"{what} is a directory, not a file", file=path) from None
    except OSError as exc:
        raise DataError(f"cannot read {what}: {exc.strerror}", file=path) from None


def bounded_lines(fh: Any, limit: int | None = None) -> Iterator[tuple[int, bytes | None]]:
    """(1-based line number, bytes) for each line of a binary file, holding at most ``limit`` bytes (default
    ``MAX_LINE_BYTES``): a longer line is yielded as None (and skipped to its end), so a file without newlines
    cannot fill memory."""
    limit = MAX_LINE_BYTES if limit is None else limit
    lineno = 0
    while True:
        raw = fh.readline(limit + 1)
        if not raw:
            return
        lineno += 1
        if len(raw) > limit and not raw.endswith(b"\n"):
            while True:  # skip the rest of the over-long line, chunk by chunk
                rest = fh.readline(limit)
                if not rest or rest.endswith(b"\n"):
                    break
            yield lineno, None
            continue
        yield lineno, raw


def too_long_message(limit: int | None = None) -> str:
    limit = MAX_LINE_BYTES if limit is None else limit
    size = f"{limit >> 20} MiB" if limit >= 1 << 20 else f"{limit} bytes"
    return f"line is longer than {size}; refused (is this a JSONL file?)"


def iter_jsonl(path: str | Path, *, strict: bool = False, what: str = "file",
               max_line_bytes: int | None = None) -> Iterator[tuple[int, Any]]:
    """Yield (line_number, object) for each non-blank line; a bad line (invalid UTF-8 or JSON, longer than
    ``MAX_LINE_BYTES``) raises DataError naming it, and so does a file that cannot be opened. Reads bytes and
    decodes per line, so an encoding error names its line too; memory holds one line at most. A UTF-8 byte
    order mark before the first line is skipped.

    ``strict`` (for files from outside niah: official files, user inputs) also refuses ``NaN`` / ``Infinity``
    and lone surrogate escapes, which Python's reader accepts but no later stage can use."""
    path = Path(path)
    limit = MAX_LINE_BYTES if max_line_bytes is None else max_line_bytes
    with open_input(path, what) as fh:
        for lineno, raw in bounded_lines(fh, limit):
            if raw is None:
                raise DataError(too_long_message(limit), file=path, line=lineno)
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise DataError(f"invalid UTF-8 at byte {exc.start} of the line", file=path, line=lineno) from None
            if lineno == 1 and text.startswith(_BOM):
                text = text[1:]
            if not text.strip():
                continue
            try:
                obj = _loads(text, strict=strict)
            except json.JSONDecodeError as exc:
                raise DataError(f"invalid JSON: {exc.msg} (column {exc.colno})", file=path, line=lineno) from None
            except _NonFinite as exc:
                raise DataError(f"{exc} is not valid JSON (a number must be finite)", file=path,
                                line=lineno) from None
            except HugeNumber as exc:
                raise DataError(str(exc), file=path, line=lineno, field=exc.field) from None
            except ValueError as exc:  # e.g. an integer of more than 4300 digits
                raise DataError(f"invalid JSON: {str(exc)[:120]}", file=path, line=lineno) from None
            except RecursionError:
                raise DataError("JSON nested too deeply", file=path, line=lineno) from None
            if strict:
                why = _strict_problem(obj, text)
                if why is not None:
                    raise DataError(why, file=path, line=lineno)
            yield lineno, obj


def read_json_file(path: str | Path, *, what: str = "file", strict: bool = False) -> Any:
    """Parse a whole JSON file; a missing or unreadable file, invalid UTF-8 or JSON, or a file over
    ``MAX_JSON_FILE_BYTES`` raises DataError naming the file (and line). A leading byte order mark is skipped;
    ``strict`` as in :func:`iter_jsonl`."""
    path = Path(path)
    with open_input(path, what) as fh:
        data = fh.read(MAX_JSON_FILE_BYTES + 1)
    if len(data) > MAX_JSON_FILE_BYTES:
        raise DataError(f"{what} is larger than {MAX_JSON_FILE_BYTES} bytes; refused", file=path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise DataError(f"{what} is not valid UTF-8 (byte {exc.start})", file=path, line=line) from None
    if text.startswith(_BOM):
        text = text[1:]
    try:
        obj = _loads(text, strict=strict)
    except json.JSONDecodeError as exc:
        raise DataError(f"invalid JSON: {exc.msg} (column {exc.colno})", file=path, line=exc.lineno) from None
    except _NonFinite as exc:
        raise DataError(f"{exc} is not valid JSON (a number must be finite)", file=path) from None
    except HugeNumber as exc:
        raise DataError(str(exc), file=path, field=exc.field) from None
    except ValueError as exc:  # e.g. an integer of more than 4300 digits
        raise DataError(f"invalid JSON: {str(exc)[:120]}", file=path) from None
    except RecursionError:
        raise DataError("JSON nested too deeply", file=path) from None
    if strict:
        why = _strict_problem(obj, text)
        if why is not None:
            raise DataError(why, file=path)
    return obj


def read_append_log(path: str | Path, *, repair: bool, hint: str = "") -> Iterator[tuple[int, Any]]:
    """(line number, parsed JSON) of an append-only JSONL log niah writes and flushes per row (a run's
    responses, a run's judge verdicts). A last line without its newline is what a killed writer left: it is
    left out and, with ``repair``, cut from the file, so that the next append starts a whole line. Any other
    unparseable line is a :class:`DataError` naming it (``hint`` says what to do)."""
    path = Path(path)
    with (open_update(path) if repair else open_input(path, "file")) as fh:
        data = fh.read()
        end = data.rfind(b"\n") + 1
        if repair and end < len(data):
            fh.truncate(end)
    for lineno, raw in enumerate(data[:end].splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            yield lineno, json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as exc:
            raise DataError(f"invalid JSON: {exc}{hint}", file=path, line=lineno) from None


def remove_stale_temp_files(directory: str | Path, names: tuple[str, ...]) -> int:
    """Remove ``.<name>.*.tmp`` files that :func:`write_atomic` left behind in ``directory`` when its process
    was killed mid-write. Only call this while holding the directory's lock (no live writer). Returns the
    number removed."""
    directory = Path(directory)
    removed = 0
    for name in names:
        for tmp in directory.glob(f".{glob.escape(name)}.*.tmp"):
            try:
                tmp.unlink()
                removed += 1
            except OSError:
                pass
    return removed


def name_failed_file(exc: BaseException, path: str | Path) -> None:
    """Give ``exc`` the file it failed on as ``filename`` where it names none: a write or flush to a full disk
    and SQLite's own errors carry no path, and a stop on them should name the file (a cache on another disk),
    not the folder the caller was working in. The exception keeps its type; re-raise it after."""
    if getattr(exc, "filename", None) is None:
        setattr(exc, "filename", str(path))  # noqa: B010 (sqlite3.Error declares no filename)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process: alive
        return True
    return True


def replace_dir(tmp: str | Path, out: str | Path) -> None:
    """Move a finished temporary directory into place, replacing ``out`` if it exists (old one removed last).

    The swap is two renames; a writer killed between them leaves ``.<name>.old-<pid>`` beside a missing
    ``out``. Such leftovers of dead writers are removed here, so none outlives the next write."""
    import shutil

    tmp, out = Path(tmp), Path(out)
    if out.exists():
        trash = out.with_name(f".{out.name}.old-{os.getpid()}")
        try:
            with interrupts.deferred():  # a stop between the renames would leave neither the old nor the new one
                os.replace(out, trash)
                os.replace(tmp, out)
        finally:
            shutil.rmtree(trash, ignore_errors=True)
    else:
        os.replace(tmp, out)
    for left in out.parent.glob(f".{glob.escape(out.name)}.old-*"):
        pid = left.name.rsplit("-", 1)[-1]
        if pid.isdigit() and not _pid_alive(int(pid)):
            shutil.rmtree(left, ignore_errors=True)


@contextlib.contextmanager
def staged_dir(out: Path, *, suffix: str, mode: int = 0o755) -> Iterator[Path]:
    """A hidden sibling folder (``.NAME.*SUFFIX``) to write the folder ``out`` into: swapped in whole
    (:func:`replace_dir`) when the block ends, removed when it raises or is stopped, so that ``out`` is never
    half-written. ``mode``: mkdtemp makes 0700; an output folder is meant to be shared."""
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp: Path | None = None
    try:
        with interrupts.deferred():  # a stop between creating the folder and naming it here would leave it
            tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=suffix, dir=out.parent))
        tmp.chmod(mode)
        yield tmp
        replace_dir(tmp, out)
    except BaseException:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
        raise


#: Characters a file name niah takes from a dataset may not hold: path separators, NUL, control characters.
_NAME_PROBLEM = re.compile(r"[/\\\x00-\x1f\x7f]")


def check_file_name(name: Any, *, what: str, file: str | Path | None = None, field: str | None = None) -> str:
    """``name`` (taken from a dataset or a manifest: a language, an official file's name) as the name of one
    file in an output folder: a non-empty string of one path segment, no separator, control character or
    leading dot (``../../.bashrc``, ``.``, ``x\ny`` are refused with a DataError naming ``file`` and
    ``field``), so that a hostile dataset cannot make an export write outside its folder."""
    if not isinstance(name, str) or not name or len(name) > 255 or _NAME_PROBLEM.search(name) \
            or name.startswith(".") or name != name.strip():
        raise DataError(f"{what} {name!r} cannot be a file name (one name of plain characters, no path "
                        "separator, no leading dot)", file=file, field=field)
    return name


#: The file in an export folder :func:`export_dir` wrote: its kind and the files it wrote. Not named ``*.json``:
#: the official scripts that read an export's folder take every ``*.json`` (or ``*.jsonl``) file in it.
EXPORT_MARKER = ".niah-export-files"


@contextlib.contextmanager
def export_dir(out: Path, *, kind: str, option: str = "--out", marker_name: str = EXPORT_MARKER) -> Iterator[Path]:
    """A folder of an export's files, written whole: ``out`` must be missing, empty or an earlier export of this
    ``kind`` holding no file its :data:`EXPORT_MARKER` does not list, never a folder of the user's own (``/``, a
    home folder, a dataset) nor a file the user added to an export. The files are written into a hidden sibling
    (:func:`staged_dir`) that replaces ``out`` when the block ends, so that a stop or an error leaves the earlier
    export as it was."""
    check_folder_option(out, option)
    why = output_dir_problem(out, kind=kind, marker_name=marker_name)
    if why is None and os.path.lexists(out / marker_name):
        why = _not_written_by_niah(out, marker_name)
    if why is not None:
        raise ConfigError(f"{option} {out} {why}: choose a new folder, or empty this one")
    from niah import __version__

    with staged_dir(out, suffix=".exporting") as tmp:
        yield tmp
        files = sorted(p.relative_to(tmp).as_posix() for p in tmp.rglob("*") if not p.is_dir())
        write_json_atomic(tmp / marker_name, {"written_by": "niah", "kind": kind, "niah_version": __version__,
                                              "files": files})


def _not_written_by_niah(out: Path, marker_name: str) -> str | None:
    """Why an earlier export folder may not be replaced: it holds a file its marker does not list (the user's
    own, added since: replacing the folder would delete it)."""
    try:
        listed = json.loads((out / marker_name).read_text(encoding="utf-8")).get("files")
    except (OSError, ValueError, AttributeError):
        listed = None
    if not isinstance(listed, list):
        return f"holds an export without a list of its files ({marker_name}); replacing it could delete yours"
    known = {str(name) for name in listed} | {marker_name}
    for path in sorted(out.rglob("*")):
        rel = path.relative_to(out).as_posix()
        if path.is_symlink() or (not path.is_dir() and rel not in known):
            return f"holds {rel}, which niah did not write there; replacing the export would delete it"
    return None


def check_export_out(out: Path, *, overwrite: bool, is_ours: Callable[[Path], bool], foreign: str) -> None:
    """Refuse an export's ``--out`` that exists (unless an empty folder, or ``overwrite``), and never replace a
    folder ``is_ours`` does not recognise as an earlier export of that kind (``foreign`` says why it is not)."""
    if out.exists() and not overwrite and not (out.is_dir() and not any(out.iterdir())):
        raise ConfigError(f"{out} exists (use --overwrite to replace an earlier export)")
    if out.exists() and not is_ours(out):
        raise ConfigError(f"{out} exists and {foreign}; refusing to replace it: choose a new --out")


#: How :func:`claim_output_folder` finds ``out``: absent or empty (``new``), holding an earlier output of the
#: verb's kind that it may resume (``ours``), or that ``--overwrite`` lets it replace (``replace``).
NEW, OURS, REPLACE = "new", "ours", "replace"


def claim_output_folder(out: Path, *, overwrite: bool, is_ours: Callable[[Path], bool], kind: str,
                        option: str = "--out") -> str:
    """The one rule of every verb that writes a dataset, run or report folder, checked before anything is
    written: a folder that holds something else than the verb's own kind of output (``is_ours`` says) is refused
    even with ``--overwrite`` (replacing removes it: never a data root or a home folder); an earlier output of the
    kind is the caller's to resume exactly (or to refuse, naming what differs) unless ``overwrite`` asks to
    replace it. Returns :data:`NEW`, :data:`OURS` or :data:`REPLACE`; ``kind`` names the output in messages
    (``a niah dataset``)."""
    if out.exists() and not out.is_dir():
        raise ConfigError(f"{option} {out} is a file; {option} names a folder")
    if not out.exists() or not any(out.iterdir()):
        return NEW
    if not is_ours(out):
        raise ConfigError(f"{option} {out} holds something else than {kind}; refusing to write into or replace it: "
                          f"choose a new {option}")
    return REPLACE if overwrite else OURS


# ------------------------------------------------------------------------------------------- single-file outputs
# A verb whose output is one file (a scores JSON, a scored JSONL, an audit, a task file) replaces only a file it
# wrote itself, read back by its content: `--out notes.json` naming the user's own file is refused, not replaced.


def claim_output_file(path: str | Path, *, overwrite: bool, is_ours: Callable[[Path], bool], kind: str,
                      option: str = "--out") -> Path:
    """The one rule of every verb that writes a single file, checked before any work: ``path`` may be new, or
    an earlier output of the verb (``is_ours`` reads it back; ``kind`` names it in the message); any other
    existing file is refused in one line naming it, unless ``overwrite`` (the user's ``--overwrite``). Never a
    folder, never through a symbolic link, never onto a FIFO or device (even with ``overwrite``)."""
    path = Path(path)
    refuse_folder_as_file(path, option)
    refuse_link(path, option)
    if not os.path.lexists(path):
        return path
    if not stat.S_ISREG(os.lstat(path).st_mode):
        raise ConfigError(f"{option} {path} is not a regular file; remove it, or choose another {option}")
    if not overwrite and not is_ours(path):
        raise ConfigError(f"{option} {path} exists and is not {kind}; refusing to replace it: pass --overwrite "
                          f"to replace it, or choose another {option}")
    return path


def json_file_is(path: Path, looks_ours: Callable[[dict[str, Any]], bool]) -> bool:
    """Whether ``path`` reads as one JSON object that ``looks_ours`` recognises (False when it cannot be read or
    holds anything but an object: every file niah writes whole is one)."""
    try:
        data = read_json_file(path)
        return isinstance(data, dict) and bool(looks_ours(data))
    except (OSError, DataError):
        return False


def jsonl_file_is(path: Path, row_is_ours: Callable[[Any], bool]) -> bool:
    """Whether ``path`` is a JSONL file of at least one row, every row one that ``row_is_ours`` recognises."""
    try:
        rows = 0
        for _lineno, row in iter_jsonl(path, what="--out"):
            if not row_is_ours(row):
                return False
            rows += 1
        return rows > 0
    except (OSError, DataError):
        return False
