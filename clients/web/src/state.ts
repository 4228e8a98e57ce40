// The table as one viewer (a seat or a spectator) sees it, kept up to date from
// the viewer's events: replaced by every Snapshot, updated in place by the other
// events (the same rules as libs/poker_bots/view.py, the bots' TableView).
//
// No DOM here: table.ts renders this state.  Chips are bigints throughout.  The
// state holds only what the room sent: a card this viewer may not see was never
// in any message, so it cannot be here either (others' down cards are counts).
import { ActionKind, Game, type Action, type GameConfig, type Pot } from "./gen/poker/common/v1/common_pb";
import type {
  ActionTaken,
  CardsDealt,
  DrawTaken,
  HandFinished,
  HandStarted,
  SeatView,
  ShownHand,
  Snapshot,
  TableEvent,
  YourTurn,
} from "./gen/poker/table/v1/table_pb";

export interface Seat {
  seat: number;
  playerId: string;
  name: string;
  stack: bigint;
  bet: bigint; // chips in front this street
  inHand: boolean; // dealt in and not folded
  dealtIn: boolean; // dealt into the current hand (folded or not)
  allIn: boolean;
  upcards: string[]; // face up, dealt order
  downCount: number; // face-down cards this viewer cannot see
  ownCards: string[]; // the viewer's own down cards (its seat only)
  drawCount: number | null; // D7: cards drawn, public until the next action
  lastAction: string; // "raises to 80", for people
}

/** Whose turn it is: the seat, the turn's number and its clock (0 = unknown). */
export interface ToAct {
  seat: number;
  actionSeq: bigint;
  deadline: number; // unix ms
}

/** A finished hand's end as the page shows it (#result). */
export interface Finish {
  handId: string;
  finished: HandFinished;
  names: Map<number, string>; // seat -> name at the hand's end
  startStacks: Map<number, bigint>; // seat -> stack when the hand started (unknown on a mid-hand join)
  potCount: number;
  hilo: boolean;
}

/** A showdown as the page shows it (#showdown). */
export interface Showdown {
  handId: string;
  hands: ShownHand[];
  names: Map<number, string>;
}

export const STREET_NAMES: Record<string, string> = {
  third: "Third street",
  fourth: "Fourth street",
  fifth: "Fifth street",
  sixth: "Sixth street",
  seventh: "Seventh street",
  pre_draw: "Before the draw",
  draw: "The draw",
  post_draw: "After the draw",
};
const STUD_STREETS = ["third", "fourth", "fifth", "sixth", "seventh"];
const DRAW_STREETS = ["pre_draw", "draw", "post_draw"];

function emptySeat(seat: number): Seat {
  return {
    seat,
    playerId: "",
    name: "",
    stack: 0n,
    bet: 0n,
    inHand: false,
    dealtIn: false,
    allIn: false,
    upcards: [],
    downCount: 0,
    ownCards: [],
    drawCount: null,
    lastAction: "",
  };
}

function seatFrom(view: SeatView): Seat {
  return {
    seat: view.seat,
    playerId: view.playerId,
    name: view.name,
    stack: view.stack,
    bet: view.bet,
    inHand: view.inHand,
    dealtIn: view.inHand || view.upcards.length + view.ownCards.length + view.downCards > 0,
    allIn: view.allIn,
    upcards: [...view.upcards],
    downCount: view.inHand ? view.downCards : 0, // a folded hand is mucked
    ownCards: [...view.ownCards],
    drawCount: view.drawCount ?? null,
    lastAction: view.allIn ? "all in" : "",
  };
}

/** An action in words: "calls 20", "raises to 80", "draws 2". */
export function actionWords(action: Action | undefined, putIn: bigint): string {
  switch (action?.kind) {
    case ActionKind.FOLD:
      return "folds";
    case ActionKind.CHECK:
      return "checks";
    case ActionKind.CALL:
      return `calls ${putIn.toLocaleString("en-US")}`;
    case ActionKind.BRING_IN:
      return `brings in for ${putIn.toLocaleString("en-US")}`;
    case ActionKind.COMPLETE:
      return `completes to ${action.amount.toLocaleString("en-US")}`;
    case ActionKind.BET:
      return `bets ${action.amount.toLocaleString("en-US")}`;
    case ActionKind.RAISE:
      return `raises to ${action.amount.toLocaleString("en-US")}`;
    case ActionKind.DISCARD:
      return action.cards.length ? `draws ${action.cards.length}` : "stands pat";
    default:
      return "plays on all in (clock)";
  }
}

export class TableState {
  tableId: string;
  handId = "";
  config: GameConfig | undefined;
  mySeat = 0; // 0 = spectator (or no seat here)
  seats = new Map<number, Seat>();
  pots: Pot[] = [];
  // Antes and dead blinds posted this hand that no Pot message counts yet (the
  // pots arrive when the first betting round ends).
  posted = 0n;
  communityCard = "";
  street = 0;
  streetName = "";
  buttonSeat = 0;
  buttonDead = false;
  bringInSeat = 0;
  toAct: ToAct | null = null;
  turn: YourTurn | null = null;
  commitment: Uint8Array = new Uint8Array();
  handOver = true;
  eventSeq = 0n; // the last event of the hand applied
  startStacks = new Map<number, bigint>();
  showdown: Showdown | null = null;
  finish: Finish | null = null;
  handsFinished = new Set<string>(); // hands whose end this page saw
  rejection = ""; // the last ActionRejected's message
  log: string[] = []; // what happened, newest last (a few lines)

  constructor(tableId: string) {
    this.tableId = tableId;
  }

  get isDraw(): boolean {
    return this.config?.game === Game.DRAW_7A;
  }
  get isHilo(): boolean {
    return this.config?.game === Game.STUD_HILO;
  }
  get me(): Seat | undefined {
    return this.mySeat ? this.seats.get(this.mySeat) : undefined;
  }
  get myTurn(): boolean {
    return this.turn !== null;
  }
  /** The chips in the middle: the pots, or before the first pot the antes. */
  get potTotal(): bigint {
    const pots = this.pots.reduce((sum, pot) => sum + pot.amount, 0n);
    return pots > 0n ? pots : this.posted;
  }

  seat(n: number): Seat {
    let s = this.seats.get(n);
    if (!s) {
      s = emptySeat(n);
      this.seats.set(n, s);
    }
    return s;
  }

  name(n: number): string {
    const s = this.seats.get(n);
    return s?.name || s?.playerId || `Seat ${n}`;
  }

  private note(line: string): void {
    this.log.push(line);
    if (this.log.length > 12) this.log.splice(0, this.log.length - 12);
  }

  /** Apply one stream message (a batch: each of its events, in order).
   * Returns false when an event of the hand is missing (a gap in event_seq):
   * the caller then asks for a fresh Snapshot. */
  apply(event: TableEvent): boolean {
    if (event.event.case === "batch") {
      let ok = true;
      for (const inner of event.event.value.events) ok = this.apply(inner) && ok;
      return ok;
    }
    let ok = true;
    if (event.eventSeq > 0n && event.event.case !== "handStarted" && event.event.case !== "snapshot") {
      if (event.handId === this.handId && this.eventSeq > 0n && event.eventSeq > this.eventSeq + 1n) ok = false;
      if (event.handId === this.handId && event.eventSeq <= this.eventSeq) return true; // seen already
    }
    if (event.eventSeq > 0n && event.handId === this.handId) this.eventSeq = event.eventSeq;
    const e = event.event;
    switch (e.case) {
      case "snapshot":
        this.loadSnapshot(e.value);
        break;
      case "handStarted":
        this.handStarted(event.handId, e.value);
        this.eventSeq = event.eventSeq;
        break;
      case "cardsDealt":
        this.cardsDealt(e.value);
        break;
      case "actionTaken":
        this.actionTaken(e.value);
        break;
      case "streetStarted":
        this.street = e.value.street;
        this.streetName = e.value.name;
        for (const s of this.seats.values()) s.bet = 0n;
        this.note(STREET_NAMES[e.value.name] ?? e.value.name);
        break;
      case "yourTurn":
        this.yourTurn(e.value);
        break;
      case "toAct":
        this.toAct = { seat: e.value.seat, actionSeq: e.value.actionSeq, deadline: Number(e.value.deadlineUnixMs) };
        if (e.value.seat !== this.mySeat) this.turn = null;
        break;
      case "drawTaken":
        this.drawTaken(e.value);
        break;
      case "showdown":
        this.showdown = {
          handId: event.handId || this.handId,
          hands: [...e.value.hands],
          names: new Map([...this.seats.values()].map((s) => [s.seat, this.name(s.seat)])),
        };
        break;
      case "handFinished":
        this.handFinished(event.handId || this.handId, e.value);
        break;
      case "seatChanged": {
        const view = e.value.seat;
        if (!view) break;
        if (e.value.left) {
          this.seats.delete(view.seat);
          break;
        }
        const old = this.seats.get(view.seat);
        const fresh = seatFrom(view);
        if (old && !fresh.upcards.length && !fresh.ownCards.length && !fresh.downCount) {
          // a stack or name change: keep the hand's cards
          fresh.upcards = old.upcards;
          fresh.ownCards = old.ownCards;
          fresh.downCount = old.downCount;
          fresh.inHand = fresh.inHand || old.inHand;
          fresh.dealtIn = old.dealtIn;
          fresh.bet = old.bet;
          fresh.lastAction = old.lastAction;
        }
        this.seats.set(view.seat, fresh);
        break;
      }
      case "actionRejected":
        this.rejection = e.value.message;
        break;
      default:
        break;
    }
    return ok;
  }

  loadSnapshot(snap: Snapshot): void {
    this.tableId = snap.tableId || this.tableId;
    this.handId = snap.handId;
    this.config = snap.config;
    this.mySeat = snap.yourSeat;
    this.seats = new Map(snap.seats.map((v) => [v.seat, seatFrom(v)]));
    this.pots = [...snap.pots];
    this.posted = 0n;
    this.communityCard = snap.communityCard;
    this.street = snap.street;
    this.streetName = this.config ? ((this.isDraw ? DRAW_STREETS : STUD_STREETS)[snap.street] ?? "") : "";
    this.buttonSeat = snap.buttonSeat;
    this.buttonDead = snap.buttonDead;
    this.bringInSeat = 0;
    this.commitment = snap.deckCommitment;
    this.eventSeq = snap.eventSeq;
    this.handOver = !snap.handId;
    this.turn = snap.yourTurn ?? null;
    if (snap.yourTurn) {
      this.toAct = {
        seat: this.mySeat,
        actionSeq: snap.yourTurn.actionSeq,
        deadline: Number(snap.yourTurn.deadlineUnixMs),
      };
    } else if (snap.toActSeat !== undefined) {
      const known = this.toAct && this.toAct.seat === snap.toActSeat ? this.toAct : null;
      const deadline = Number(snap.toActDeadlineUnixMs); // 0 from a room before it was sent
      this.toAct = known ?? { seat: snap.toActSeat, actionSeq: -1n, deadline };
    } else {
      this.toAct = null;
    }
  }

  private handStarted(handId: string, msg: HandStarted): void {
    this.handId = handId;
    this.handOver = false;
    this.turn = null;
    this.toAct = null;
    this.pots = [];
    this.posted = 0n;
    this.communityCard = "";
    this.street = 0;
    this.streetName = "";
    this.bringInSeat = 0;
    this.buttonSeat = msg.buttonSeat;
    this.buttonDead = msg.buttonDead;
    this.commitment = msg.deckCommitment;
    this.startStacks = new Map();
    for (const s of this.seats.values()) {
      s.inHand = false;
      s.dealtIn = false;
      s.allIn = false;
      s.bet = 0n;
      s.upcards = [];
      s.ownCards = [];
      s.downCount = 0;
      s.drawCount = null;
      s.lastAction = "";
    }
    for (const view of msg.seats) {
      const s = seatFrom(view);
      s.inHand = true;
      s.dealtIn = true;
      this.seats.set(s.seat, s);
      this.startStacks.set(s.seat, s.stack);
    }
    for (const post of msg.posts) {
      const s = this.seat(post.seat);
      s.stack -= post.amount;
      if (post.kind === "blind" || post.kind === "bring_in") {
        s.bet += post.amount;
        s.lastAction = `posts ${post.amount.toLocaleString("en-US")}`;
      } else {
        this.posted += post.amount;
      }
      if (post.kind === "bring_in") this.bringInSeat = post.seat;
      if (s.stack <= 0n) {
        s.stack = 0n;
        s.allIn = true;
      }
    }
    this.note(`Hand ${handId} starts`);
  }

  private cardsDealt(msg: CardsDealt): void {
    if (msg.communityCard) this.communityCard = msg.communityCard;
    if (!msg.seat) return;
    const s = this.seat(msg.seat);
    if (msg.up) {
      for (const c of msg.cards) if (!s.upcards.includes(c)) s.upcards.push(c);
    } else if (msg.cards.length) {
      for (const c of msg.cards) if (!s.ownCards.includes(c)) s.ownCards.push(c);
    }
    if (msg.hiddenCount) s.downCount += msg.hiddenCount;
  }

  private actionTaken(msg: ActionTaken): void {
    const s = this.seat(msg.seat);
    const putIn = s.stack - msg.stack;
    if (putIn > 0n) s.bet += putIn;
    s.stack = msg.stack;
    const kind = msg.action?.kind;
    if (kind === ActionKind.FOLD) {
      s.inHand = false;
      s.downCount = 0; // the folded hand is mucked: nothing face down any more
    }
    else if (msg.stack === 0n && s.inHand) s.allIn = true;
    if (kind === ActionKind.BRING_IN) this.bringInSeat = msg.seat;
    s.lastAction = actionWords(msg.action, putIn > 0n ? putIn : 0n) + (msg.timeout ? " (clock ran out)" : "");
    if (s.allIn && kind !== ActionKind.FOLD) s.lastAction += ", all in";
    this.note(`${this.name(msg.seat)} ${s.lastAction}`);
    if (msg.pots.length) {
      // The round is over: its bets are gathered into the pots.
      this.pots = [...msg.pots];
      this.posted = 0n;
      for (const other of this.seats.values()) other.bet = 0n;
    }
    if (this.isDraw) for (const other of this.seats.values()) other.drawCount = null; // D7
    if (msg.seat === this.mySeat) this.turn = null;
    this.toAct = null;
  }

  private yourTurn(msg: YourTurn): void {
    this.turn = msg;
    if (!this.mySeat && msg.legal?.seat) this.mySeat = msg.legal.seat;
    this.toAct = { seat: this.mySeat, actionSeq: msg.actionSeq, deadline: Number(msg.deadlineUnixMs) };
  }

  private drawTaken(msg: DrawTaken): void {
    const s = this.seat(msg.seat);
    s.drawCount = msg.count;
    if (msg.discarded.length) {
      // The replacements take the discards' places (as the table holds them).
      const held = [...s.ownCards];
      msg.discarded.forEach((old, k) => {
        const at = held.indexOf(old);
        const fresh = msg.received[k];
        if (at >= 0 && fresh !== undefined) held[at] = fresh;
        else if (at >= 0) held.splice(at, 1);
      });
      for (const c of msg.received) if (!held.includes(c)) held.push(c);
      s.ownCards = held;
    }
    s.lastAction = msg.count ? `draws ${msg.count}` : "stands pat";
    this.note(`${this.name(msg.seat)} ${s.lastAction}`);
    if (msg.seat === this.mySeat) this.turn = null;
    this.toAct = null;
  }

  private handFinished(handId: string, msg: HandFinished): void {
    const names = new Map<number, string>();
    for (const s of this.seats.values()) names.set(s.seat, this.name(s.seat));
    for (const view of msg.seats) {
      const s = this.seat(view.seat);
      s.stack = view.stack;
      s.bet = 0n;
      if (!names.has(view.seat)) names.set(view.seat, this.name(view.seat));
    }
    const potCount = Math.max(this.pots.length, ...msg.awards.map((a) => a.potIndex + 1));
    this.finish = {
      handId,
      finished: msg,
      names,
      startStacks: handId === this.handId ? new Map(this.startStacks) : new Map(),
      potCount,
      hilo: this.isHilo,
    };
    if (this.showdown && this.showdown.handId !== handId) this.showdown = null;
    this.handOver = true;
    this.turn = null;
    this.toAct = null;
    this.handsFinished.add(handId);
    this.note(msg.voided ? `Hand ${handId} voided: chips returned` : `Hand ${handId} finished`);
  }
}
