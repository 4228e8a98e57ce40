"""Three kinds of client reach the room only through the gateway (issue 16, point 1).

* a Node client on @grpc/grpc-js: gRPC over HTTP/2, the bidirectional Room.Play
  (clients/node/grpc-client.mjs);
* a Node client on @connectrpc/connect-node's gRPC-Web transport over HTTP/1.1,
  Room.Follow and the unary Room.Act (clients/node/grpc-web-client.mjs);
* curl with the Connect protocol's JSON codec, Follow and Act (curl_connect.py).

Each is given nothing but the gateway's address, the room's CA and a table id
(point 2: each client plays at a table of each of the three shards); each
registers, sits down, plays three hands to the end, stands up and reads its hand
history, then prints one JSON line, which is checked here.  The tables are spread
over the room's shards.

Node is Debian's and the npm packages are those of clients/node/package-lock.json
(``make setup``: ``npm ci``).  A missing node, npm package or curl fails these
tests, never skips them: CI installs them (.ci/run).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from .door import SHARDS, Door

ROOT = Path(__file__).resolve().parents[3]
NODE_DIR = ROOT / "clients" / "node"
PACKAGES = ("@grpc/grpc-js", "@grpc/proto-loader", "@connectrpc/connect-node", "@bufbuild/protobuf")
HANDS = 3
CLIENT_TIMEOUT_S = 150.0  # the client's own; the test waits a little longer

pytestmark = pytest.mark.xdist_group("gateway")


def _node() -> str:
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is not installed (Debian's nodejs; .ci/run installs it)")
    modules = NODE_DIR / "node_modules"
    missing = [p for p in PACKAGES if not (modules / p / "package.json").is_file()]
    if missing:
        pytest.fail(
            f"npm packages missing in clients/node/node_modules: {', '.join(missing)} "
            "(make setup runs `npm ci --prefix clients/node`)"
        )
    return node


@pytest.fixture(scope="module")
def descriptors(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """room.proto and its imports as a binary FileDescriptorSet (connect-node)."""
    out = tmp_path_factory.mktemp("descriptors") / "room.binpb"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "grpc_tools.protoc",
            "-I",
            str(ROOT / "protos"),
            "--include_imports",
            f"--descriptor_set_out={out}",
            str(ROOT / "protos" / "poker" / "room" / "v1" / "room.proto"),
        ],
        check=True,
    )
    return out


def _table(door: Door, shard: int, index: int) -> str:
    """A table on ``shard`` for the index-th client (the clients spread over the
    shard's tables)."""
    tables = [t for t in door.table_ids if door.shard_of(t) == shard]
    assert tables, f"the room has no table on shard {shard}"
    return tables[index % len(tables)]


def _run(command: list[str], table: str, shard: int) -> dict[str, Any]:
    started = time.monotonic()
    done = subprocess.run(
        command,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=CLIENT_TIMEOUT_S + 30,
        check=False,
    )
    took = time.monotonic() - started
    assert done.returncode == 0, (
        f"{' '.join(command[:3])} ... exit status {done.returncode} after {took:.1f} s\n"
        f"stderr:\n{done.stderr}\nstdout:\n{done.stdout}"
    )
    lines = done.stdout.strip().splitlines()
    assert len(lines) == 1, f"one JSON line expected, got:\n{done.stdout}"
    result: dict[str, Any] = json.loads(lines[0])
    print(f"{result.get('client')} (shard {shard}): {took:.1f} s, {json.dumps(result)}")
    if done.stderr.strip():
        print(f"stderr:\n{done.stderr}")
    _check(result, table)
    return result


def _check(result: dict[str, Any], table: str) -> None:
    """Three hands the player was dealt into finished; the history lists them."""
    assert result["table_id"] == table
    assert result["player_id"]
    hand_ids = result["hand_ids"]
    # A fourth when the stand-up found the seat dealt into the next hand already.
    assert HANDS <= result["hands_played"] == len(hand_ids) <= HANDS + 1, result
    assert len(set(hand_ids)) == len(hand_ids), result
    assert result["voided_hand_ids"] == [], result
    assert result["history_hand_ids"] == hand_ids, (
        f"hands missing from the hand history: {set(hand_ids) - set(result['history_hand_ids'])}"
    )
    assert result["history_count"] >= 1
    # Its own answers moved the hands on, not the action clock.
    assert result["actions"] >= 1, result
    assert result["rejections"] == 0, result
    assert result["timeouts"] == 0, result


def _common(door: Door, table: str, name: str) -> list[str]:
    return [
        "--target",
        door.target,
        "--ca",
        door.ca_file,
        "--table",
        table,
        "--hands",
        str(HANDS),
        "--name",
        name,
        "--timeout",
        str(CLIENT_TIMEOUT_S),
    ]


SHARD_IDS = range(SHARDS)


@pytest.mark.parametrize("shard", SHARD_IDS)
def test_grpc_js_plays_over_the_bidirectional_stream(door: Door, shard: int) -> None:
    table = _table(door, shard, 0)
    node = _node()
    _run(
        [node, str(NODE_DIR / "grpc-client.mjs"), *_common(door, table, "node-grpc-js")],
        table,
        door.shard_of(table),
    )


@pytest.mark.parametrize("shard", SHARD_IDS)
def test_connect_node_grpc_web_follows_and_acts(door: Door, descriptors: Path, shard: int) -> None:
    table = _table(door, shard, 1)
    node = _node()
    _run(
        [
            node,
            str(NODE_DIR / "grpc-web-client.mjs"),
            *_common(door, table, "node-grpc-web"),
            "--descriptors",
            str(descriptors),
        ],
        table,
        door.shard_of(table),
    )


@pytest.mark.parametrize("shard", SHARD_IDS)
def test_curl_connect_json_follows_and_acts(door: Door, shard: int) -> None:
    table = _table(door, shard, 2)
    if shutil.which("curl") is None:
        pytest.fail("curl is not installed (.ci/run installs it)")
    _run(
        [
            sys.executable,
            "-m",
            "tests.system.gateway.curl_connect",
            *_common(door, table, "curl-connect-json"),
        ],
        table,
        door.shard_of(table),
    )
