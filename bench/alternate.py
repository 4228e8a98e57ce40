"""Two configurations of the room compared on a machine whose speed drifts.

Why: on this machine the same room's CPU per hand has differed by 30 % from one
20 s run to the next (77 hands/s with the table at 8.5 ms of CPU a hand, then 101
at 6.4 ms, steal reported at 0-0.2 %).  One run of each configuration, one after
the other, compares a fast period with a slow one as often as not: ``bench.door``
once showed the gateway's hop costing 30 % of the hands and, another day, the
gateway faster than the room without it.  Running A, B, B, A cancels a drift that
is steady over the four runs, and each side's figure is the mean of its two runs;
``spread`` says how far each side's two runs were apart, so a reader can see
when the machine moved more than the difference being measured.

>>> calls = []
>>> def run(name):
...     calls.append(name)
...     return len(calls)
>>> a, b = alternate(lambda: run("a"), lambda: run("b"))
>>> calls, a, b
(['a', 'b', 'b', 'a'], [1, 4], [2, 3])
>>> mean([1.0, 2.0]), spread([80.0, 100.0]), spread([0.0, 0.0])
(1.5, 0.2, 0.0)
>>> means([{"hands": 80.0, "p99": 30.0}, {"hands": 100.0, "p99": 40.0}], ["hands"])
{'hands': 90.0}
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TypeVar

T = TypeVar("T")


def alternate(a: Callable[[], T], b: Callable[[], T]) -> tuple[list[T], list[T]]:
    """Run ``a``, ``b``, ``b``, ``a``; each one's results in the order they ran."""
    first_a = a()
    first_b = b()
    second_b = b()
    second_a = a()
    return [first_a, second_a], [first_b, second_b]


def mean(values: list[float]) -> float:
    """The mean, to two decimals (0.0 for none)."""
    return round(sum(values) / len(values), 2) if values else 0.0


def means(runs: Sequence[Mapping[str, float]], keys: Iterable[str]) -> dict[str, float]:
    """Each key's ``mean`` over the runs (one side's runs of an ``alternate``)."""
    return {key: mean([run[key] for run in runs]) for key in keys}


def spread(values: list[float]) -> float:
    """How far apart the values are, as a share of the largest (0.0: equal)."""
    top = max(values, default=0.0)
    return round((top - min(values)) / top, 3) if top else 0.0
