"""Every scoring rule by name: ``RULES`` and ``get_rule``, collected from the benchmark families.

Each family lists its rules (``Family.metric_rules``); official rules reproduce the benchmark's own scorer
exactly, quirks included (each quirk is described in the rule function's docstring), and improved variants have
their own names (``<family>/lenient``) and never replace an official rule.

Input fields a rule reads from a row: ``answer`` (the gold, any JSON), ``response`` (a string, or null for a
failed request, which scores 0), and whatever other fields the rule lists (``choices``, ``prefix``, ...).
"""

from __future__ import annotations

from typing import Any

from niah.scoring.metrics.base import MetricRule
from niah.util.errors import ConfigError

_rules: dict[str, MetricRule] | None = None


def all_rules() -> dict[str, MetricRule]:
    """Rules of every registered family, in registry order (computed once; families load lazily)."""
    global _rules
    if _rules is None:
        from niah.benchmarks.registry import families

        rules: dict[str, MetricRule] = {}
        for family in families():
            for rule in family.metric_rules() if family.metric_rules else ():
                if rule.name in rules:
                    raise ConfigError(f"metric rule {rule.name!r} is defined twice (family {family.name})")
                rules[rule.name] = rule
        _rules = rules
    return _rules


def reset_rules() -> None:
    """Forget the collected rules (after registering a family at run time)."""
    global _rules
    _rules = None


def __getattr__(name: str) -> Any:
    if name == "RULES":
        return all_rules()
    raise AttributeError(name)


def get_rule(name: str) -> MetricRule:
    """The rule called ``name``; an unknown name is a :class:`ConfigError` listing the known ones."""
    rules = all_rules()
    try:
        return rules[name]
    except KeyError:
        raise ConfigError(f"unknown metric rule {name!r}; known rules: {', '.join(rules)}") from None
