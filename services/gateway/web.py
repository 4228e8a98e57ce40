"""The web client's files, served by the door itself (issue 17).

The page and its script come from the same origin as the Room API, so a browser
calls the API with its CORS rules on and nothing to allow.  Only the files of the
built client (``clients/web/dist``, or ``GATEWAY_WEB_ROOT``) are served, by name:
``GET /`` is ``index.html``, ``GET /web/<file>`` the build's ``web/<file>``; no directory
listing, no path outside the root (``..``, absolute paths and symlinks out are
404).  Every answer carries a Content-Security-Policy that allows scripts, styles
and connections from this origin only, so a card name or a player's name that
reached the page could never run as code.
"""

from __future__ import annotations

import mimetypes
from pathlib import Path

PREFIX = "/web/"
CSP = (
    b"default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    b"connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
TYPES = {
    ".html": b"text/html; charset=utf-8",
    ".js": b"text/javascript; charset=utf-8",
    ".css": b"text/css; charset=utf-8",
    ".svg": b"image/svg+xml",
    ".map": b"application/json",
    ".json": b"application/json",
    ".png": b"image/png",
    ".ico": b"image/x-icon",
}


class WebRoot:
    """The built web client's files, read once at start (a few small files)."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        self.files: dict[str, tuple[bytes, bytes]] = {}
        for path in sorted(self.root.rglob("*")):
            if not path.is_file() or not path.resolve().is_relative_to(self.root):
                continue
            name = path.relative_to(self.root).as_posix()
            kind = TYPES.get(path.suffix) or (mimetypes.guess_type(name)[0] or "").encode()
            self.files[name] = (path.read_bytes(), kind or b"application/octet-stream")

    def serves(self, path: str) -> bool:
        """True for the paths this serves (``/``, ``/index.html``, ``/web/...``)."""
        return path in ("/", "/index.html") or path.startswith(PREFIX)

    def lookup(self, path: str) -> tuple[bytes, bytes] | None:
        """(body, content type) of a path, or None (404)."""
        name = "index.html" if path in ("/", "/index.html") else path[1:]  # "web/app.js"
        return self.files.get(name)

    def headers(self, kind: bytes, length: int, path: str) -> list[tuple[bytes, bytes]]:
        # index.html names the script without a hash: revalidate it, cache the rest briefly.
        cache = b"no-cache" if kind.startswith(b"text/html") else b"public, max-age=300"
        return [
            (b"content-type", kind),
            (b"content-length", str(length).encode()),
            (b"content-security-policy", CSP),
            (b"x-content-type-options", b"nosniff"),
            (b"referrer-policy", b"no-referrer"),
            (b"cache-control", cache),
        ]


def default_root() -> Path:
    """``clients/web/dist`` of this checkout (the local room); a container sets
    ``GATEWAY_WEB_ROOT``."""
    return Path(__file__).resolve().parents[2] / "clients" / "web" / "dist"
