"""Just enough TOML writing for PHH files: bare or quoted keys, basic strings,
integers, booleans and arrays (``tomllib`` reads them; the standard library has no
writer)."""

from __future__ import annotations

from .variants import PhhValue


def toml_key(key: str) -> str:
    if key and all(c.isascii() and (c.isalnum() or c in "_-") for c in key):
        return key
    return _toml_str(key)


def _toml_str(s: str) -> str:
    """A TOML basic string (escapes quote, backslash and control characters)."""
    parts: list[str] = ['"']
    for ch in s:
        code = ord(ch)
        if ch == '"':
            parts.append('\\"')
        elif ch == "\\":
            parts.append("\\\\")
        elif ch == "\n":
            parts.append("\\n")
        elif ch == "\t":
            parts.append("\\t")
        elif code < 0x20 or code == 0x7F:
            parts.append(f"\\u{code:04x}")
        else:
            parts.append(ch)
    parts.append('"')
    return "".join(parts)


def toml_value(value: PhhValue) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return _toml_str(value)
    return "[" + ", ".join(toml_value(v) for v in value) + "]"
