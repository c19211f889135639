"""What every metric rule shares: the error for inputs a rule cannot score, and the rule record."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any


class MetricInputError(ValueError):
    """An input a rule cannot score (wrong gold type, missing options...). Names the offending field.

    The official scripts crash on such inputs; a rule raises this instead, and callers turn it into a
    :class:`niah.util.errors.DataError` that names file, line and field. It is never turned into a silent zero.
    """

    def __init__(self, message: str, *, field: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


#: Signature of a per-sample rule: keyword arguments named after the input fields it needs.
RuleFunction = Callable[..., float]
#: Per-position default arguments of a rule whose score depends on the sample's position in the data set.
PositionDefaults = Callable[[int], dict[str, Any]]


@dataclass(frozen=True)
class MetricRule:
    """A named scoring rule.

    ``function`` is called with keyword arguments: every name in ``fields`` (required; ``response`` may be
    ``None`` for a failed request) and every name in ``optional_fields`` present in the input row.
    ``position_defaults`` is set for rules whose per-sample score depends on the sample's position in the data
    set (e.g. a rule that cycles a default answer over the samples in order): it gives default
    arguments for the 0-based position, which fields present in the row override. ``details``, when set, is
    called with the same arguments and returns fields ``niah metric`` adds to the output row beside ``score``
    (e.g. the option a matcher chose and the rule that decided).
    """

    name: str
    description: str
    function: RuleFunction
    fields: tuple[str, ...] = ("answer", "response")
    optional_fields: tuple[str, ...] = ()
    position_defaults: PositionDefaults | None = field(default=None, compare=False)
    details: Callable[..., dict[str, Any]] | None = field(default=None, compare=False)

    def score(self, row: dict[str, Any], position: int = 0) -> float:
        """Score one input row (a dict holding at least ``fields``) at 0-based ``position`` in its data set."""
        return float(self.function(**self.arguments(row, position)))

    def detail(self, row: dict[str, Any], position: int = 0) -> dict[str, Any]:
        """The extra output fields of one row (empty without ``details``)."""
        return dict(self.details(**self.arguments(row, position))) if self.details is not None else {}

    def score_rows(self, rows: Sequence[dict[str, Any]]) -> list[float]:
        """Score rows in data-set order."""
        return [self.score(row, position) for position, row in enumerate(rows)]

    def arguments(self, row: dict[str, Any], position: int = 0) -> dict[str, Any]:
        """The keyword arguments for ``function`` taken from ``row``; a missing required field is an error."""
        kwargs: dict[str, Any] = dict(self.position_defaults(position)) if self.position_defaults else {}
        for name in self.fields:
            if name not in row:
                raise MetricInputError(f"rule {self.name!r} needs this field", field=name)
            kwargs[name] = row[name]
        for name in self.optional_fields:
            if name in row:
                kwargs[name] = row[name]
        return kwargs


def require_response(response: Any) -> str | None:
    """Check that a response is a string or ``None`` (a failed request)."""
    if response is not None and not isinstance(response, str):
        raise MetricInputError(f"must be a string or null, got {type(response).__name__}", field="response")
    return response
