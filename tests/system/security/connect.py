"""The room's door as a browser calls it: the Connect protocol over HTTP/1.1.

A browser without a gRPC library (``fetch``) reaches the gateway with plain
HTTP/1.1 POSTs to ``https://HOST:PORT/poker.room.v1.Room/<Method>``:

* a unary call is a JSON body (``content-type: application/json``), answered by
  the response's JSON (an error: an HTTP error status and ``{"code", "message"}``);
* a server stream (Follow, Watch) is ``application/connect+json``: the request
  and every message of the answer in an envelope (one flags byte, a 4-byte
  big-endian length, the JSON), the last one the end-of-stream envelope (flags
  0x02: ``{"error": ...}`` when the call failed).

This client speaks exactly that over a TLS connection of its own per call (ALPN
``http/1.1``), with nothing but the standard library, so what the security tests
read here is what went over the wire.  A refusal is a ``ConnectCallError`` whose
``code()`` is the gRPC status of the Connect code, as a grpc.aio error's is.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import ssl
import struct
from collections.abc import AsyncGenerator
from typing import TypeVar

import grpc
from google.protobuf.json_format import MessageToJson, Parse
from google.protobuf.message import Message

SERVICE = "poker.room.v1.Room"
END_STREAM = 0x02
CALL_TIMEOUT_S = 30.0
M = TypeVar("M", bound=Message)

# Connect's codes are gRPC's names in snake case ("canceled" spelt the American way);
# an HTTP error without a Connect body is mapped as the Connect protocol says.
_CODES = {code.name.lower(): code for code in grpc.StatusCode}
_CODES["canceled"] = grpc.StatusCode.CANCELLED
_HTTP = {
    400: grpc.StatusCode.INTERNAL,
    401: grpc.StatusCode.UNAUTHENTICATED,
    403: grpc.StatusCode.PERMISSION_DENIED,
    404: grpc.StatusCode.UNIMPLEMENTED,
    429: grpc.StatusCode.UNAVAILABLE,
    502: grpc.StatusCode.UNAVAILABLE,
    503: grpc.StatusCode.UNAVAILABLE,
    504: grpc.StatusCode.UNAVAILABLE,
}


class ConnectCallError(Exception):
    """A call the door refused: its status and message (and the HTTP status)."""

    def __init__(self, code: grpc.StatusCode, message: str, http_status: int = 200) -> None:
        super().__init__(f"{code.name}: {message}")
        self._code = code
        self._message = message
        self.http_status = http_status

    def code(self) -> grpc.StatusCode:
        return self._code

    def details(self) -> str:
        return self._message

    @classmethod
    def of(cls, error: object, http_status: int) -> ConnectCallError:
        """From a Connect error object (``{"code", "message"}``)."""
        fields = error if isinstance(error, dict) else {}
        code = _CODES.get(str(fields.get("code", "")), grpc.StatusCode.UNKNOWN)
        return cls(code, str(fields.get("message", "")), http_status)

    @classmethod
    def of_response(cls, status: int, body: bytes) -> ConnectCallError:
        """From an HTTP error response (a Connect JSON error, or none)."""
        try:
            return cls.of(json.loads(body), status)
        except ValueError:
            code = _HTTP.get(status, grpc.StatusCode.UNKNOWN)
            return cls(code, body.decode(errors="replace"), status)


class _Body:
    """A response body as it arrives: Content-Length, chunked, or up to the close."""

    def __init__(self, reader: asyncio.StreamReader, headers: dict[str, str]) -> None:
        self._reader = reader
        self._chunked = "chunked" in headers.get("transfer-encoding", "").lower()
        length = headers.get("content-length")
        self._left = int(length) if length is not None else None
        self._buffer = b""
        self._done = False

    async def _more(self) -> bytes:
        if self._done:
            return b""
        if self._chunked:
            size = int((await self._reader.readline()).split(b";")[0].strip() or b"0", 16)
            if size == 0:
                while (await self._reader.readline()) not in (b"\r\n", b""):
                    pass  # trailers
                self._done = True
                return b""
            data = await self._reader.readexactly(size)
            await self._reader.readexactly(2)  # CRLF
            return data
        if self._left is not None:
            if self._left == 0:
                self._done = True
                return b""
            data = await self._reader.read(min(self._left, 65_536))
            if not data:
                raise ConnectionError("the connection closed inside the response body")
            self._left -= len(data)
            return data
        data = await self._reader.read(65_536)
        self._done = not data
        return data

    async def read(self, n: int) -> bytes:
        """``n`` bytes, fewer only when the body ends first."""
        while len(self._buffer) < n:
            more = await self._more()
            if not more:
                break
            self._buffer += more
        data, self._buffer = self._buffer[:n], self._buffer[n:]
        return data

    async def read_all(self) -> bytes:
        while more := await self._more():
            self._buffer += more
        data, self._buffer = self._buffer, b""
        return data


class Response:
    """An HTTP/1.1 response being read; ``close()`` ends its connection (TLS
    close_notify both ways, as a browser does)."""

    def __init__(
        self, status: int, headers: dict[str, str], body: _Body, writer: asyncio.StreamWriter
    ) -> None:
        self.status = status
        self.headers = headers
        self.body = body
        self._writer = writer

    async def close(self) -> None:
        self._writer.close()
        with contextlib.suppress(Exception):
            async with asyncio.timeout(5):
                await self._writer.wait_closed()


class ConnectClient:
    """The gateway's Connect API over HTTP/1.1 at ``target``, trusting ``ca_file``."""

    def __init__(self, target: str, ca_file: str) -> None:
        self.target = target
        self.host, _, port = target.rpartition(":")
        self.port = int(port)
        self._tls = ssl.create_default_context(cafile=ca_file)
        self._tls.set_alpn_protocols(["http/1.1"])

    async def post(
        self,
        path: str,
        content_type: str,
        body: bytes,
        *,
        authorization: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> Response:
        """One POST on a connection of its own; the response, its body unread."""
        reader, writer = await asyncio.open_connection(
            self.host, self.port, ssl=self._tls, server_hostname=self.host
        )
        try:
            assert writer.get_extra_info("ssl_object").selected_alpn_protocol() == "http/1.1"
            lines = [
                f"POST {path} HTTP/1.1",
                f"Host: {self.target}",
                f"Content-Type: {content_type}",
                f"Content-Length: {len(body)}",
                "Connection: close",
            ]
            if content_type.startswith("application/connect+") or content_type.startswith(
                "application/json"
            ):
                lines.append("Connect-Protocol-Version: 1")
            if authorization is not None:
                lines.append(f"Authorization: {authorization}")
            lines += [f"{name}: {value}" for name, value in (headers or {}).items()]
            writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
            await writer.drain()
            status_line = await reader.readline()
            parts = status_line.split()
            if len(parts) < 2 or not parts[0].startswith(b"HTTP/1.1"):
                raise ConnectionError(f"not an HTTP/1.1 response: {status_line!r}")
            response_headers: dict[str, str] = {}
            while (line := await reader.readline()) not in (b"\r\n", b""):
                name, _, value = line.decode("latin-1").partition(":")
                response_headers[name.strip().lower()] = value.strip()
        except BaseException:
            writer.close()
            raise
        return Response(int(parts[1]), response_headers, _Body(reader, response_headers), writer)

    async def unary(
        self,
        method: str,
        request: Message,
        response_type: type[M],
        *,
        authorization: str | None = None,
    ) -> M:
        """A unary call in Connect JSON (``authorization``: the header, e.g.
        ``Bearer <credential>``); ConnectCallError when refused."""
        response = await self.post(
            f"/{SERVICE}/{method}",
            "application/json",
            MessageToJson(request, indent=None).encode(),
            authorization=authorization,
        )
        try:
            async with asyncio.timeout(CALL_TIMEOUT_S):
                body = await response.body.read_all()
        finally:
            await response.close()
        if response.status != 200:
            raise ConnectCallError.of_response(response.status, body)
        assert response.headers.get("content-type", "").startswith("application/json"), response
        return Parse(body, response_type())  # strict: a field the proto lacks fails

    async def stream(
        self,
        method: str,
        request: Message,
        response_type: type[M],
        *,
        authorization: str | None = None,
    ) -> AsyncGenerator[M, None]:
        """A server stream in Connect JSON (application/connect+json): each message
        as it arrives; ConnectCallError when the end-of-stream message says so."""
        payload = MessageToJson(request, indent=None).encode()
        response = await self.post(
            f"/{SERVICE}/{method}",
            "application/connect+json",
            struct.pack(">BI", 0, len(payload)) + payload,
            authorization=authorization,
        )
        try:
            if response.status != 200:
                raise ConnectCallError.of_response(response.status, await response.body.read_all())
            content_type = response.headers.get("content-type", "")
            assert content_type.startswith("application/connect+json"), response.headers
            while True:
                head = await response.body.read(5)
                if len(head) < 5:
                    raise ConnectCallError(
                        grpc.StatusCode.UNKNOWN, "the stream ended without an end-of-stream message"
                    )
                flags, length = struct.unpack(">BI", head)
                data = await response.body.read(length)
                if flags & END_STREAM:
                    end = json.loads(data or b"{}")
                    if "error" in end:
                        raise ConnectCallError.of(end["error"], response.status)
                    return
                yield Parse(data, response_type())
        finally:
            await response.close()
