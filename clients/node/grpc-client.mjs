#!/usr/bin/env node
// A player on @grpc/grpc-js: gRPC over HTTP/2 and TLS to the room's gateway,
// the .proto files loaded at run time with @grpc/proto-loader (no generated code).
//
//   node grpc-client.mjs --target 127.0.0.1:50050 --ca ca.crt --table TABLE_ID \
//     [--hands 3] [--name NAME] [--buy-in CHIPS] [--timeout 120] \
//     [--delivery every_event|on_turn] [--protos DIR]
//
// Registers (Room.Register; its credential is the bearer of every later call),
// opens the seat's bidirectional stream (Room.Play: a Join, then the actions),
// sits down (Room.SitDown, the table's minimum buy-in unless --buy-in), answers
// every YourTurn on the same stream with a passive legal action until --hands
// hands it was dealt into have finished, stands up, reads Room.GetHandHistory and
// prints one JSON line: {player_id, hands_played, hand_ids, history_count, ...}.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";

import { defaultName, parseOptions, play, run } from "./lib/seat.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));

// grpc-js gives TLS the target's host as the server name, an IP address here
// (127.0.0.1, in the certificate's SANs), which Node warns about (DEP0123) at every
// connection; the certificate is still checked against that address.  That one
// warning is left out, any other is printed as Node would.
process.removeAllListeners("warning");
process.on("warning", (warning) => {
  if (warning.code !== "DEP0123") process.stderr.write(`${warning.stack ?? warning}\n`);
});
const CALL_DEADLINE_MS = 30_000;

function connect(opts) {
  const definition = protoLoader.loadSync("poker/room/v1/room.proto", {
    includeDirs: [opts.protos],
    keepCase: false, // lowerCamelCase, as proto3 JSON
    longs: String,
    enums: String,
    defaults: false,
    arrays: true,
    oneofs: true,
  });
  const Room = grpc.loadPackageDefinition(definition).poker.room.v1.Room;
  let credential = "";
  const bearer = grpc.credentials.createFromMetadataGenerator((_params, callback) => {
    const metadata = new grpc.Metadata();
    if (credential) metadata.set("authorization", `Bearer ${credential}`);
    callback(null, metadata);
  });
  const channelCredentials = grpc.credentials.combineChannelCredentials(
    grpc.credentials.createSsl(readFileSync(opts.ca)),
    bearer,
  );
  const client = new Room(opts.target, channelCredentials);

  const unary = (method) => (request) =>
    new Promise((resolve, reject) => {
      client[method](request, { deadline: Date.now() + CALL_DEADLINE_MS }, (error, response) => {
        // .code: the status code's number, as connect's Code.
        if (error) reject(Object.assign(new Error(`Room.${method}: ${error.message}`), { code: error.code }));
        else resolve(response);
      });
    });

  return {
    client,
    setCredential(value) {
      credential = value;
    },
    register: unary("Register"),
    getTable: unary("GetTable"),
    sitDown: unary("SitDown"),
    standUp: unary("StandUp"),
    getHandHistory: unary("GetHandHistory"),
    async open(tableId) {
      const call = client.Play();
      call.write({ join: { tableId, delivery: opts.delivery } });
      const iterator = call[Symbol.asyncIterator]();
      // The Snapshot answers the Join: the seat is being followed from here on.
      const first = await iterator.next();
      if (first.done) throw new Error("Room.Play ended before its Snapshot");
      let closed = false;
      return {
        events: (async function* () {
          yield first.value;
          for (;;) {
            const next = await iterator.next();
            if (next.done) return;
            yield next.value;
          }
        })(),
        async send(turn) {
          call.write({ action: { handId: turn.handId, actionSeq: turn.actionSeq, action: turn.action } });
          return null; // a refusal comes back on the stream, as an ActionRejected
        },
        close() {
          if (closed) return;
          closed = true;
          call.on("error", () => {}); // the cancellation below, reported to nobody
          call.end(); // the player's half-close: the server ends the stream
          call.cancel();
        },
      };
    },
  };
}

let opts;
try {
  opts = parseOptions(process.argv.slice(2), {
    delivery: { type: "string", default: "every_event" },
    protos: { type: "string", default: join(HERE, "..", "..", "protos") },
  });
  const deliveries = { every_event: "DELIVERY_EVERY_EVENT", on_turn: "DELIVERY_ON_TURN" };
  if (!deliveries[opts.delivery]) throw new Error("--delivery: every_event or on_turn");
  opts.delivery = deliveries[opts.delivery];
  opts.name ??= defaultName("grpc-js");
} catch (error) {
  process.stderr.write(`error: ${error.message}\n`);
  process.exit(1);
}

run(async () => {
  const room = connect(opts);
  try {
    return await play(room, opts, "grpc-js");
  } finally {
    room.client.close();
  }
}, opts.timeout);
