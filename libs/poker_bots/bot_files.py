"""A bot from a file: ``FILE.py:CLASS`` options (``make run --bot``, ``poker match``).

The file is run as a module of its own, registered in ``sys.modules`` (a dataclass
in it looks its module up there) under a fresh name, so that two files with the
same name do not replace each other.  Its directory goes on the import path after
everything else, so that it can import a helper beside it and shadows nothing.
Anything that goes wrong in the user's file is one line (:class:`BotFileError`),
not a traceback.
"""

from __future__ import annotations

import importlib.util
import itertools
import sys
from pathlib import Path
from types import ModuleType

_numbers = itertools.count(1)


class BotFileError(ValueError):
    """The file could not be loaded; the message says why, in one line."""


def load_bot_module(path: Path, prefix: str = "poker_bot") -> ModuleType:
    """Run ``path`` (an existing file: callers say "no such file" their own way)
    as a module named ``<prefix>_<n>_<stem>``."""
    module_name = f"{prefix}_{next(_numbers)}_{path.stem}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise BotFileError(f"{path} is not a Python file")
    module = importlib.util.module_from_spec(spec)
    folder = str(path.resolve().parent)
    if folder not in sys.path:
        sys.path.append(folder)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as error:  # the user's file: any error at all is theirs
        del sys.modules[module_name]
        where = ""
        if isinstance(error, SyntaxError) and error.lineno:
            where = f" (line {error.lineno})"
        raise BotFileError(
            f"{path} failed to load: {type(error).__name__}: {error}{where}"
        ) from None
    return module
