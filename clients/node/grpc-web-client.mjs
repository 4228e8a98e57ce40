#!/usr/bin/env node
// A player on @connectrpc/connect-node's gRPC-Web transport over HTTP/1.1 and TLS
// to the room's gateway: the kind of client that cannot stream both ways, so it
// follows its seat with Room.Follow (a server stream) and answers each YourTurn
// with the unary Room.Act.
//
//   node grpc-web-client.mjs --target 127.0.0.1:50050 --ca ca.crt --table TABLE_ID \
//     [--hands 3] [--name NAME] [--buy-in CHIPS] [--timeout 120] \
//     [--descriptors room.binpb] [--python PYTHON]
//
// No generated code: the service and its messages come at run time from a binary
// FileDescriptorSet of protos/poker/room/v1/room.proto and its imports
// (--descriptors; without it, made with PYTHON -m grpc_tools.protoc, the
// repository's .venv by default).  Messages are read and written in their proto3
// JSON shape (toJson/fromJson), the same shape the other clients use.
//
// The flow and the JSON line on stdout are grpc-client.mjs's.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { createFileRegistry, fromBinary, fromJson, toJson } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcWebTransport } from "@connectrpc/connect-node";

import { defaultName, parseOptions, play, run } from "./lib/seat.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, "..", "..");
const CALL_TIMEOUT_MS = 30_000;

/** room.proto's FileDescriptorSet (with its imports), from a file or made by protoc. */
function descriptorSet(opts) {
  if (opts.descriptors) return readFileSync(opts.descriptors);
  const dir = mkdtempSync(join(tmpdir(), "room-descriptors-"));
  try {
    const out = join(dir, "room.binpb");
    execFileSync(
      opts.python,
      ["-m", "grpc_tools.protoc", "-I", join(ROOT, "protos"), "--include_imports",
        `--descriptor_set_out=${out}`, join(ROOT, "protos", "poker", "room", "v1", "room.proto")],
      { stdio: ["ignore", "ignore", "inherit"] },
    );
    return readFileSync(out);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function connect(opts) {
  const registry = createFileRegistry(fromBinary(FileDescriptorSetSchema, descriptorSet(opts)));
  const Room = registry.getService("poker.room.v1.Room");
  if (!Room) throw new Error("poker.room.v1.Room is not in the descriptor set");
  let credential = "";
  const bearer = (next) => async (request) => {
    if (credential) request.header.set("authorization", `Bearer ${credential}`);
    return next(request);
  };
  const transport = createGrpcWebTransport({
    baseUrl: `https://${opts.target}`,
    httpVersion: "1.1",
    nodeOptions: { ca: readFileSync(opts.ca) },
    interceptors: [bearer],
  });
  const client = createClient(Room, transport);

  // A call with a JSON-shaped request and answer.
  const unary = (name) => {
    const method = Room.method[name];
    return async (request) => {
      try {
        const answer = await client[name](fromJson(method.input, request), { timeoutMs: CALL_TIMEOUT_MS });
        return toJson(method.output, answer);
      } catch (error) {
        const failure = ConnectError.from(error);
        throw Object.assign(new Error(`Room.${method.name}: ${failure.message}`), { code: failure.code });
      }
    };
  };
  const act = unary("act");

  return {
    setCredential(value) {
      credential = value;
    },
    register: unary("register"),
    getTable: unary("getTable"),
    sitDown: unary("sitDown"),
    standUp: unary("standUp"),
    getHandHistory: unary("getHandHistory"),
    async open(tableId) {
      const follow = Room.method.follow;
      const abort = new AbortController();
      const stream = client.follow(fromJson(follow.input, { tableId }), { signal: abort.signal });
      const iterator = stream[Symbol.asyncIterator]();
      // The Snapshot comes first: the seat is being followed from here on.
      const first = await iterator.next();
      if (first.done) throw new Error("Room.Follow ended before its Snapshot");
      return {
        events: (async function* () {
          yield toJson(follow.output, first.value);
          for (;;) {
            let next;
            try {
              next = await iterator.next();
            } catch (error) {
              if (abort.signal.aborted) return;
              throw new Error(`Room.Follow: ${ConnectError.from(error).message}`);
            }
            if (next.done) return;
            yield toJson(follow.output, next.value);
          }
        })(),
        async send(turn) {
          try {
            await act({ tableId, handId: turn.handId, actionSeq: turn.actionSeq, action: turn.action });
          } catch (error) {
            // Too late (the action clock ran out) or no longer the turn: nothing
            // changed; the stream goes on and the next YourTurn is answered.
            if (error.code !== Code.FailedPrecondition) throw error;
            process.stderr.write(`${error.message}\n`);
            return error.message;
          }
          return null;
        },
        close() {
          abort.abort();
        },
      };
    },
  };
}

let opts;
try {
  opts = parseOptions(process.argv.slice(2), {
    descriptors: { type: "string" },
    python: { type: "string", default: join(ROOT, ".venv", "bin", "python") },
  });
  opts.name ??= defaultName("grpc-web");
} catch (error) {
  process.stderr.write(`error: ${error.message}\n`);
  process.exit(1);
}

run(() => play(connect(opts), opts, "connect-node grpc-web"), opts.timeout);
