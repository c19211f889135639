"""Errors that name where bad input came from (file, line, field)."""

from __future__ import annotations

from pathlib import Path


class NiahError(Exception):
    """Base class for every error niah raises on purpose (the CLI prints these without a traceback)."""


class DataError(NiahError):
    """Bad input data: names the file, the 1-based line and the field at fault."""

    def __init__(
        self,
        message: str,
        *,
        file: str | Path | None = None,
        line: int | None = None,
        field: str | None = None,
    ) -> None:
        self.file = str(file) if file is not None else None
        self.line = line
        self.field = field
        self.message = message
        where = []
        if self.file is not None:
            where.append(self.file + (f":{line}" if line is not None else ""))
        elif line is not None:
            where.append(f"line {line}")
        if field:
            where.append(f"field '{field}'")
        prefix = ", ".join(where)
        super().__init__(f"{prefix}: {message}" if prefix else message)

    def located(self, *, file: str | Path | None = None, line: int | None = None) -> DataError:
        """Return a copy with file/line filled in where they were unknown."""
        return DataError(
            self.message,
            file=self.file or file,
            line=self.line if self.line is not None else line,
            field=self.field,
        )


class ConfigError(NiahError):
    """A bad option or an impossible request (e.g. a target length the corpus cannot fill)."""
