"""The docs cannot drift from the code, and every rule ID leads to the rule book.

- docs/services.md's generated tables (ports, settings, metrics) are what
  ``deploy.service_docs`` writes from the code now;
- every rule ID named in a test's name, in a string of libs/ or services/ (error
  messages, CLI help, docstrings) or in a proto comment is an anchor of
  docs/rules.md;
- every local link in README.md and docs/ (and every alert's runbook) resolves,
  to a file and, with ``#anchor``, to an anchor in it.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from deploy import service_docs
from service_kit.settings import ConfigError, ServerSettings, Settings, variables

ROOT = Path(__file__).resolve().parents[3]
DOCS = ROOT / "docs"
RULES = DOCS / "rules.md"
# A rule ID: its family letter, a number, S7a's letter; not inside a longer word.
RULE_ID = re.compile(r"(?<![A-Za-z0-9_\-./])([GSHDBT][0-9]{1,2}a?)(?![A-Za-z0-9])")
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")
ANCHOR = re.compile(r'<a id="([^"]+)"></a>')


def anchors(path: Path) -> set[str]:
    """The anchors of a Markdown page: explicit ``<a id>`` and GitHub's heading ids."""
    text = path.read_text(encoding="utf-8")
    found = set(ANCHOR.findall(text))
    for heading in re.findall(r"^#{1,6} (.+)$", text, re.M):
        plain = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link's text only
        slug = re.sub(r"[^\w\- ]", "", plain.strip().lower()).replace(" ", "-")
        found.add(slug)
    return found


def rule_ids() -> set[str]:
    """The rule IDs a name or message may use: every anchor of the rule book, and
    each lettered clause of a rule (B2's **(a)** is B2a), which leads to its rule."""
    text = RULES.read_text(encoding="utf-8")
    ids = {a for a in ANCHOR.findall(text) if RULE_ID.fullmatch(a)}
    for rule, body in re.findall(r'<a id="([^"]+)"></a>\n(.*?)(?=<a id=|\Z)', text, re.S):
        ids |= {f"{rule}{letter}" for letter in re.findall(r"\*\*\(([a-z])\)\*\*", body)}
    return ids


def python_files(*folders: str) -> Iterator[Path]:
    for folder in folders:
        yield from sorted((ROOT / folder).rglob("*.py"))


def test_the_rule_book_has_every_family() -> None:
    ids = rule_ids()
    for family, count in {"G": 6, "S": 13, "H": 6, "D": 9, "B": 6, "T": 6}.items():
        assert {f"{family}{n}" for n in range(1, count + 1)} <= ids, family
    assert "S7a" in ids


def test_generated_tables_are_current() -> None:
    """Run ``python -m deploy.service_docs`` after changing ports, settings or metrics."""
    text = service_docs.DOC.read_text(encoding="utf-8")
    assert service_docs.render(text) == text, "docs/services.md: run python -m deploy.service_docs"


@pytest.mark.parametrize("cls", [ServerSettings, *service_docs.SETTINGS.values()])
def test_settings_defaults_are_the_environment_defaults(cls: type[Settings]) -> None:
    """A settings object built in code (tests do) is the one an empty environment
    gives; for the common settings, the environment that has only the one setting
    without a default (TLS_DIR: an empty environment is refused)."""
    if cls is ServerSettings:
        with pytest.raises(ConfigError, match="TLS_DIR is required"):
            ServerSettings.from_env(default_port=0, default_metrics_port=0, environ={})
        from_env = ServerSettings.from_env(
            default_port=0, default_metrics_port=0, environ={"TLS_DIR": "/tls"}
        )
        assert from_env == ServerSettings(tls_dir="/tls")
    else:
        from_env = getattr(cls, "from_env")({})  # noqa: B009  (every settings class has one)
        assert from_env == cls()
    names = [var.name for _, var in variables(cls)]
    assert len(names) == len(set(names)), names


def test_test_names_name_rules_of_the_book() -> None:
    known = rule_ids()
    unknown: dict[str, str] = {}
    for path in python_files("tests"):
        for name in re.findall(r"^\s*(?:async )?def (test_\w+)", path.read_text(), re.M):
            for token in name.split("_"):
                if RULE_ID.fullmatch(token) and token not in known:
                    unknown[f"{path.relative_to(ROOT)}::{name}"] = token
    assert unknown == {}


# The project's own code: where a rule ID names a rule of the book.
CODE_FOLDERS = (
    "libs/poker_rules",
    "libs/poker_wire",
    "libs/poker_bots",
    "libs/poker_cli",
    "libs/service_kit",
    "services",
    "devroom",
)


def strings_of(path: Path) -> Iterator[tuple[int, str]]:
    """Every string constant of a module (messages, help texts, docstrings)."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            yield node.lineno, node.value


def test_messages_name_rules_of_the_book() -> None:
    known = rule_ids()
    unknown = {
        f"{path.relative_to(ROOT)}:{line}": match
        for path in python_files(*CODE_FOLDERS)
        for line, text in strings_of(path)
        for match in RULE_ID.findall(text)
        if match not in known
    }
    assert unknown == {}


def test_protos_name_rules_of_the_book() -> None:
    known = rule_ids()
    unknown = {
        f"{path.relative_to(ROOT)}:{n}": match
        for path in sorted((ROOT / "protos").rglob("*.proto"))
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if "//" in line
        for match in RULE_ID.findall(line.split("//", 1)[1])
        if match not in known
    }
    assert unknown == {}


def test_no_reference_to_a_rule_book_outside_the_repository() -> None:
    """A clone has no ../shared/: the rule book is docs/rules.md."""
    stale = [
        str(path.relative_to(ROOT))
        for folder in (
            *CODE_FOLDERS,
            "tests",
            "protos",
            "deploy",
            "bench",
        )
        for path in sorted((ROOT / folder).rglob("*"))
        if path.suffix in {".py", ".proto", ".yml", ".yaml"}
        and path.resolve() != Path(__file__).resolve()
        and re.search(r"shared/RULES|(?<![\w/])RULES\.md", path.read_text(encoding="utf-8"))
    ]
    assert stale == []


def markdown_pages() -> list[Path]:
    return [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]


def resolve(page: Path, target: str) -> str | None:
    """Why ``target`` (a link on ``page``) does not resolve, or None when it does."""
    if re.match(r"[a-z]+:", target):  # https:, mailto:: not checked offline
        return None
    path_part, _, anchor = target.partition("#")
    path = page if not path_part else (page.parent / path_part).resolve()
    if not path.exists():
        return f"no file {path_part}"
    if anchor and path.suffix == ".md" and anchor not in anchors(path):
        return f"no anchor #{anchor} in {path.relative_to(ROOT)}"
    return None


@pytest.mark.parametrize("page", markdown_pages(), ids=lambda p: p.name)
def test_local_links_resolve(page: Path) -> None:
    broken = {
        target: why
        for target in LINK.findall(page.read_text(encoding="utf-8"))
        if (why := resolve(page, target))
    }
    assert broken == {}


def test_alert_runbooks_resolve() -> None:
    rules = yaml.safe_load((ROOT / "deploy/monitoring/rules/cardroom.rules.yml").read_text())
    runbooks = {
        rule["annotations"]["runbook"]
        for group in rules["groups"]
        for rule in group["rules"]
        if "alert" in rule
    }
    assert runbooks
    for runbook in runbooks:
        assert resolve(ROOT / "README.md", runbook) is None, runbook
