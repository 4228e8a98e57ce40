"""The examples in the libraries' docstrings run, against the modules as installed.

Every public operation of ``poker_rules`` (and ``poker_wire``'s shared pieces)
shows its use in a short doctest that names the rule it follows.  pytest's
``--doctest-modules`` cannot find them: it reads docstrings from the imported
module, and a mypyc-compiled module keeps none, so the compiled engine's examples
would silently not run.  Here the docstrings are read from the ``.py`` source
(``ast``) and each example runs in the globals of the module really imported (the
compiled one when it is built), so the examples check the code that plays hands.
The other libraries' and the services' examples run here too (the lobby's
``check_name`` example ran nowhere before).
"""

from __future__ import annotations

import ast
import doctest
import importlib
from collections.abc import Iterator
from pathlib import Path

import pytest
import structlog

ROOT = Path(__file__).resolve().parents[2]
LIBS = ROOT / "libs"
# (where the package is imported from, the package): the rules library's examples,
# and those in the other libraries and the services (a gateway module's example
# ran only where its own test called doctest.testmod).
PACKAGES = (
    (LIBS, "poker_rules"),
    (LIBS, "poker_wire"),
    (LIBS, "service_kit"),
    (LIBS, "poker_bots"),
    (LIBS, "poker_cli"),
    (ROOT, "services"),
)
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def _module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _docstrings(tree: ast.Module, module: str) -> Iterator[tuple[str, str, int]]:
    """(qualified name, docstring, line of the docstring) of the module, its
    classes and functions, nested ones included."""
    if (doc := ast.get_docstring(tree, clean=False)) is not None:
        yield module, doc, tree.body[0].lineno
    stack: list[tuple[str, ast.AST]] = [(module, tree)]
    while stack:
        prefix, node = stack.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                name = f"{prefix}.{child.name}"
                if (doc := ast.get_docstring(child, clean=False)) is not None:
                    yield name, doc, child.body[0].lineno
                stack.append((name, child))


def _examples() -> list[tuple[str, Path, str, str, int]]:
    """(module, file, name, docstring, line) of every docstring holding an example."""
    found = []
    for root, package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            tree = ast.parse(path.read_text(), str(path))
            module = _module_name(path, root)
            for name, doc, line in _docstrings(tree, module):
                if ">>>" in doc:
                    found.append((module, path, name, doc, line))
    return found


EXAMPLES = _examples()


def test_the_public_library_api_has_examples() -> None:
    """PokerKit documents every operation with an example; so do we (a guard
    against the collection above quietly finding nothing)."""
    names = {name for _, _, name, _, _ in EXAMPLES}
    expected = {
        "poker_rules.stud.StudHand",
        "poker_rules.draw.DrawHand",
        "poker_rules.engine.BettingHand.legal_actions",
        "poker_rules.engine.BettingHand.act",
        "poker_rules.engine.BettingHand.timeout",
        "poker_rules.replay.replay",
        "poker_rules.evaluate.high.evaluate_high",
        "poker_rules.evaluate.low.evaluate_low",
        "poker_rules.evaluate.short_deck.evaluate_short_deck",
        "poker_rules.cards.parse_cards",
        "poker_rules.pots.side_pots",
        "poker_rules.betting.new_state",
        "poker_rules.betting.apply_action",
        "poker_rules.betting.start_round",
        "poker_rules.phh.writer.to_phh",
        "poker_rules.phh.reader.replay_phh",
        "services.gateway.refusals.undecodable",
        "services.gateway.codecs.known_fields",
        "services.gateway.connections.ConnectionLimit",
    }
    assert expected <= names, sorted(expected - names)


@pytest.mark.parametrize(
    ("module", "path", "name", "doc", "line"),
    EXAMPLES,
    ids=[name for _, _, name, _, _ in EXAMPLES],
)
def test_docstring_example(module: str, path: Path, name: str, doc: str, line: int) -> None:
    globs = dict(vars(importlib.import_module(module)))
    test = doctest.DocTestParser().get_doctest(doc, globs, name, str(path), line - 1)
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    report: list[str] = []
    with structlog.testing.capture_logs():  # a log line is not the example's output
        runner.run(test, out=report.append)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, "".join(report)
