// What both Node clients share: the command line, the passive choice among the
// legal actions, the count of the hands the seat was dealt into, and the end (one
// JSON line on stdout, exit 0; any error: its message on stderr, exit 1; out of
// time: exit 2).
//
// Events are handled in their proto3 JSON shape (lowerCamelCase fields, enums by
// name, int64 as strings or numbers, the oneof's member as its own key): the
// grpc-web client turns every message into it with @bufbuild/protobuf's toJson,
// and grpc-js's proto-loader (longs: String, enums: String, oneofs: true) gives the
// same keys.
import { parseArgs } from "node:util";

const HISTORY_WAIT_MS = 5_000;

export const USAGE =
  "--target HOST:PORT --ca CA_FILE --table TABLE_ID [--hands 3] [--name NAME] " +
  "[--buy-in CHIPS] [--timeout SECONDS]";

/** The common options, plus `extra` (node:util parseArgs option specs). */
export function parseOptions(argv, extra = {}) {
  const { values } = parseArgs({
    args: argv,
    options: {
      target: { type: "string" },
      ca: { type: "string" },
      table: { type: "string" },
      hands: { type: "string", default: "3" },
      name: { type: "string" },
      "buy-in": { type: "string" },
      timeout: { type: "string", default: "120" },
      ...extra,
    },
    strict: true,
  });
  for (const required of ["target", "ca", "table"]) {
    if (!values[required]) throw new Error(`--${required} is required: ${USAGE}`);
  }
  const hands = Number(values.hands);
  if (!Number.isInteger(hands) || hands < 1) throw new Error("--hands: a positive integer");
  const timeout = Number(values.timeout);
  if (!(timeout > 0)) throw new Error("--timeout: seconds, more than 0");
  if (values["buy-in"] !== undefined && !/^[1-9][0-9]*$/.test(values["buy-in"])) {
    throw new Error("--buy-in: a positive number of chips");
  }
  return { ...values, hands, timeout, buyIn: values["buy-in"] };
}

/** A default player name: `prefix-` and random hex, within Register's 32 characters. */
export function defaultName(prefix) {
  return `${prefix}-${Math.random().toString(16).slice(2, 10)}`.slice(0, 32);
}

// ------------------------------------------------------------------ events

// CLIENT_TRACE=1: every event and answer on stderr, with the milliseconds since start.
const TRACE = Boolean(process.env.CLIENT_TRACE);
const STARTED = Date.now();
export function trace(line) {
  if (TRACE) process.stderr.write(`${String(Date.now() - STARTED).padStart(6)} ms ${line}\n`);
}

const EVENT_KINDS = [
  "snapshot",
  "handStarted",
  "cardsDealt",
  "actionTaken",
  "streetStarted",
  "yourTurn",
  "drawTaken",
  "showdown",
  "handFinished",
  "actionRejected",
  "seatChanged",
  "pong",
  "batch",
  "toAct",
];

/** Which member of TableEvent's `event` oneof is set ("" for none). */
export function eventKind(event) {
  if (typeof event.event === "string" && event.event) return event.event; // proto-loader oneofs
  return EVENT_KINDS.find((kind) => event[kind] != null) ?? "";
}

/** The events of one message: a batch (DELIVERY_ON_TURN) is opened, in order. */
export function flatten(event) {
  return eventKind(event) === "batch" ? (event.batch.events ?? []).flatMap(flatten) : [event];
}

/**
 * The passive choice: check, else call, else the bring-in (stud's third street),
 * else stand pat (a draw: DISCARD with no cards), else fold.  Only a menu with
 * none of those (it never should) gets its aggressive option at the lowest legal
 * amount.  `legal` is a LegalActions (common.proto) in its JSON shape.
 */
export function passiveAction(legal) {
  const kinds = new Set(legal.kinds ?? []);
  const has = (kind) => kinds.has(`ACTION_KIND_${kind}`);
  if (has("CHECK") || legal.canCheck) return { kind: "ACTION_KIND_CHECK" };
  if (has("CALL") || legal.callAmount != null) return { kind: "ACTION_KIND_CALL" };
  if (has("BRING_IN") || legal.bringInAmount != null) return { kind: "ACTION_KIND_BRING_IN" };
  if (has("DISCARD") || legal.maxDiscards != null) return { kind: "ACTION_KIND_DISCARD", cards: [] };
  if (has("FOLD") || legal.canFold) return { kind: "ACTION_KIND_FOLD" };
  const raise = legal.raiseKind;
  if (raise && raise !== "ACTION_KIND_UNSPECIFIED") {
    const amount = (legal.toChoices ?? [])[0] ?? legal.minTo;
    if (amount != null) return { kind: raise, amount: String(amount) };
  }
  throw new Error(`no action to choose in ${JSON.stringify(legal)}`);
}

/**
 * One player's view of its seat's event stream: which hands it was dealt into,
 * which of them finished, its stack, and the turns it has to answer (each once).
 */
export class SeatLog {
  constructor(playerId) {
    this.playerId = playerId;
    this.dealt = new Set();
    this.finished = []; // hand ids, in the order they finished
    this.voided = [];
    this.answered = new Set(); // "hand/action_seq"
    this.stack = null; // after the last finished hand
    this.lastFinished = null; // the hand id of the last HandFinished seen (any hand)
    this.rejections = [];
    this.seats = new Map(); // hand id -> the seat's number in it
    this.actions = 0; // the seat's actions the table applied (ActionTaken, not by the clock)
    this.timeouts = 0; // ... and those the action clock applied for it
  }

  dealIn(handId, seats) {
    const mine = (seats ?? []).find((s) => s.playerId === this.playerId);
    if (handId && mine) {
      this.dealt.add(handId);
      if (mine.seat) this.seats.set(handId, mine.seat);
    }
    return mine;
  }

  /** Handle one event; returns the turns to answer: [{handId, actionSeq, legal, action}]. */
  handle(event) {
    const turns = [];
    for (const ev of flatten(event)) {
      const kind = eventKind(ev);
      if (TRACE) trace(`event ${kind} ${ev.handId ?? ""} ${ev.eventSeq ?? ""}`);
      const body = ev[kind];
      if (kind === "snapshot") {
        const mine = (body.seats ?? []).find((s) => s.playerId === this.playerId);
        if (body.handId && mine && (mine.inHand || (mine.ownCards ?? []).length)) {
          this.dealIn(body.handId, [mine]);
        }
        if (body.yourTurn != null && body.handId) this.turn(body.handId, body.yourTurn, turns);
      } else if (kind === "handStarted") {
        this.dealIn(ev.handId, body.seats);
      } else if (kind === "actionTaken") {
        if (body.seat && body.seat === this.seats.get(ev.handId)) {
          if (body.timeout) this.timeouts += 1;
          else this.actions += 1;
        }
      } else if (kind === "yourTurn") {
        this.dealt.add(ev.handId);
        this.turn(ev.handId, body, turns);
      } else if (kind === "handFinished") {
        this.lastFinished = ev.handId;
        if (this.dealt.has(ev.handId) && !this.finished.includes(ev.handId)) {
          if (body.voided) this.voided.push(ev.handId);
          else this.finished.push(ev.handId);
          const mine = (body.seats ?? []).find((s) => s.playerId === this.playerId);
          if (mine) this.stack = BigInt(mine.stack ?? 0);
        }
      } else if (kind === "actionRejected") {
        this.rejections.push(body);
        process.stderr.write(`action rejected: ${JSON.stringify(body)}\n`);
      }
    }
    return turns;
  }

  turn(handId, yourTurn, turns) {
    const actionSeq = String(yourTurn.actionSeq ?? "0"); // proto3 JSON leaves a 0 out
    const key = `${handId}/${actionSeq}`;
    if (this.answered.has(key)) return;
    this.answered.add(key);
    turns.push({
      handId,
      actionSeq,
      legal: yourTurn.legal ?? {},
      action: passiveAction(yourTurn.legal ?? {}),
    });
  }
}

/**
 * The play, whatever the transport.  `room` has the calls as async functions
 * taking and returning JSON-shaped messages: register, getTable, sitDown,
 * standUp, getHandHistory, act (Follow + Act only), and `open(tableId)`, which
 * opens the seat's stream and returns {events: AsyncIterable, send(turn), close()};
 * send answers a turn and returns null, or the message of an Act that was refused
 * (FAILED_PRECONDITION: too late, nothing changed).
 * Returns the JSON line's object.
 */
export async function play(room, opts, client) {
  const registered = await room.register({ name: opts.name });
  const playerId = registered.player.playerId;
  room.setCredential(registered.credential);

  const table = await room.getTable({ tableId: opts.table });
  const buyIn = opts.buyIn ?? String(table.minBuyIn ?? "0");
  const log = new SeatLog(playerId);
  // The stream first, then the seat: no event of the first hand is missed.
  const stream = await room.open(opts.table);
  let seat = 0;
  let rebuys = 0;
  const sitDown = async () => {
    const sat = await room.sitDown({ tableId: opts.table, seat: 0, buyIn });
    seat = sat.seat ?? 0;
  };
  await sitDown();
  // Out of time: stand up before exiting (run() waits a moment for this).
  onTimeout(() => room.standUp({ tableId: opts.table }));

  let leaving = null; // the StandUp answer once the hands are played
  try {
    await playHands();
  } catch (error) {
    // Leave no seat behind to time out at every turn: stand up (if that fails too,
    // the error that stopped the play is the one reported).
    if (leaving === null) await room.standUp({ tableId: opts.table }).catch(() => {});
    throw error;
  } finally {
    stream.close();
  }

  async function playHands() {
    for await (const event of stream.events) {
      for (const turn of log.handle(event)) {
        trace(`answer ${turn.handId} ${turn.actionSeq} ${turn.action.kind}`);
        const refused = await stream.send(turn); // the refusal of a unary Act, else null
        trace(`answered ${turn.actionSeq}${refused ? ` refused: ${refused}` : ""}`);
        if (refused) log.rejections.push(refused);
      }
      if (!flatten(event).some((e) => eventKind(e) === "handFinished")) continue;
      if (leaving !== null) break; // a pending stand-up: the hand it waited for is over
      if (log.finished.length >= opts.hands) {
        leaving = await room.standUp({ tableId: opts.table });
        if (!leaving.pending) break;
        continue; // dealt into the next hand already: play it out, the seat is then given up
      }
      if (log.stack === 0n) {
        // Broke before the hands were played: buy in again (stand up, sit down).
        const stood = await room.standUp({ tableId: opts.table });
        if (stood.pending) throw new Error("broke, and the stand-up is pending");
        await sitDown();
        log.stack = null;
        rebuys += 1;
      }
    }
    if (leaving === null) {
      throw new Error(`the stream ended after ${log.finished.length} of ${opts.hands} hands`);
    }
  }

  // The history: the table's last 100 hands, and any of the player's older than
  // those by its id.  A hand whose HandFinished has just come may not be in the
  // history yet: the missing are asked for again for a few seconds.
  const NOT_FOUND = 5;
  const byId = new Map();
  let history;
  let historyWaits = 0;
  for (const deadline = Date.now() + HISTORY_WAIT_MS; ; historyWaits += 1) {
    history = await room.getHandHistory({ tableId: opts.table, limit: 100 });
    for (const h of history.hands ?? []) byId.set(h.handId, h);
    for (const handId of log.finished.filter((id) => !byId.has(id))) {
      try {
        const one = await room.getHandHistory({ tableId: opts.table, handId });
        for (const h of one.hands ?? []) byId.set(h.handId, h);
      } catch (error) {
        if (error.code !== NOT_FOUND) throw error;
      }
    }
    if (log.finished.every((id) => byId.has(id)) || Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const dealtIn = (hand) =>
    (hand.events ?? []).some(
      (e) => eventKind(e) === "handStarted" && (e.handStarted.seats ?? []).some((s) => s.playerId === playerId),
    );
  return {
    client,
    table_id: opts.table,
    player_id: playerId,
    seat,
    hands_played: log.finished.length,
    hand_ids: log.finished,
    history_count: (history.hands ?? []).length,
    history_hand_ids: log.finished.filter((id) => byId.has(id) && dealtIn(byId.get(id))),
    voided_hand_ids: log.voided,
    actions: log.actions,
    timeouts: log.timeouts,
    rejections: log.rejections.length,
    rebuys,
    history_waits: historyWaits,
  };
}

let timeoutCleanup = null;

/** What to do (at most a few seconds) when the overall timeout comes. */
export function onTimeout(cleanup) {
  timeoutCleanup = cleanup;
}

/**
 * Run `main` under an overall timeout: one JSON line and exit 0, or the error
 * and exit 1 (2: timed out).
 */
export function run(main, timeoutSeconds) {
  const timer = setTimeout(async () => {
    process.stderr.write(`error: timed out after ${timeoutSeconds} s\n`);
    const cleanup = timeoutCleanup ? Promise.resolve().then(timeoutCleanup) : Promise.resolve();
    const moment = new Promise((resolve) => setTimeout(resolve, 3000));
    await Promise.race([cleanup.catch(() => {}), moment]);
    process.exit(2);
  }, timeoutSeconds * 1000);
  main().then(
    (result) => {
      clearTimeout(timer);
      process.stdout.write(`${JSON.stringify(result)}\n`, () => process.exit(0));
    },
    (error) => {
      clearTimeout(timer);
      const detail = error?.stack && process.env.CLIENT_DEBUG ? error.stack : String(error?.message ?? error);
      process.stderr.write(`error: ${detail}\n`, () => process.exit(1));
    },
  );
}
