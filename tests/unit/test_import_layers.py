"""Client-side code and the rules library import no server plumbing.

A bot author installs ``poker_bots`` (and with it ``poker_wire`` and
``poker_rules``); the CLI is the same.  None of them may need ``service_kit`` (the
servers' logging, metrics and interceptors) or ``services``: checked on the source
(every import statement, also inside functions and ``TYPE_CHECKING`` blocks) and on
what importing every module really loads.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

LIBS = Path(__file__).resolve().parents[2] / "libs"
CLIENT_SIDE = ("poker_bots", "poker_cli", "poker_rules", "poker_wire")
SERVER_SIDE = ("service_kit", "services")


def _is_server_side(module: str) -> bool:
    return module.split(".", maxsplit=1)[0] in SERVER_SIDE


def _imports(path: Path) -> list[tuple[int, str]]:
    """(line, module) of every absolute import in the file."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module))
    return found


@pytest.mark.parametrize("package", CLIENT_SIDE)
def test_no_server_imports_in_the_source(package: str) -> None:
    files = sorted((LIBS / package).rglob("*.py"))
    assert files, f"no source for {package}"
    bad = [
        f"{path.relative_to(LIBS)}:{line}: {module}"
        for path in files
        for line, module in _imports(path)
        if _is_server_side(module)
    ]
    assert not bad, "client-side code imports server plumbing:\n" + "\n".join(bad)


def test_importing_every_client_module_loads_no_server_module() -> None:
    """Transitively too: a module imported through another must not pull it in."""
    script = f"""
import importlib, json, pkgutil, sys
for name in {CLIENT_SIDE!r}:
    package = importlib.import_module(name)
    for info in pkgutil.walk_packages(package.__path__, name + "."):
        if not info.name.endswith(".__main__"):
            importlib.import_module(info.name)
print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] in {SERVER_SIDE!r})))
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True
    )
    assert json.loads(done.stdout.splitlines()[-1]) == []
