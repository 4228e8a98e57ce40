// The deck proof's check, in the browser (docs/rules.md G4a; scheme
// "cardroom-cards-v1").  No DOM: fairness.ts shows what this finds.
//
// The same check as poker_wire.deck_proof.check_proof / poker_rules.card_commitment
// .verify_deal in Python, step for step:
//
//   leaf_i = SHA-256("cardroom-card-v1\n" + i + "\n" + card + "\n" + hex(nonce) + "\n")
//   R      = SHA-256(leaf_0 || ... || leaf_{k-1})
//
// 1. the proof is "cardroom-cards-v1", for the R the page got in HandStarted
//    before the first card, with one position per card of the game's deck (G1);
// 2. the opened positions' leaves are recomputed here (WebCrypto SHA-256), the
//    sealed ones taken as given; all of them hash to R;
// 3. from the hand as the viewer saw it (its own hand history: who was dealt in,
//    the streets, the draw counts, the burns of the config) the dealing procedure
//    (S4, S11, D4, D6) says where each card dealt had to come from: every card the
//    viewer saw dealt is opened exactly there, every card of a shown hand at a
//    position dealt to that seat; cards dealt after a mid-hand reshuffle have no
//    position and must be the ones the proof lists as reshuffled;
// 4. nothing opened is a card the viewer was not shown.
import type { GameConfig } from "./gen/poker/common/v1/common_pb";
import { Game, RiverShortage } from "./gen/poker/common/v1/common_pb";
import type { DeckProof, HandHistory, HandStarted, TableEvent } from "./gen/poker/table/v1/table_pb";

export const SCHEME = "cardroom-cards-v1";
const LABEL = "cardroom-card-v1";
const RANKS = "23456789TJQKA";
const SUITS = "cdhs"; // G2, lowest first
const LATER_STREETS = ["fourth", "fifth", "sixth"];

/** What the check found: `checked` are the cards the viewer saw found at their
 * committed positions, `reshuffled` those dealt after a reshuffle (not covered by
 * this proof), `problems` what did not match (none: verified). */
export interface Verdict {
  ok: boolean;
  problems: string[];
  checked: string[];
  reshuffled: string[];
  commitment: Uint8Array;
}

/** One step of the deal as the viewer saw it: `count` is public, `cards` only
 * when the viewer saw them. Seat 0 is the S11 community card. */
export interface Delivery {
  seat: number;
  street: string;
  count: number;
  cards: string[];
  up: boolean;
}

export interface DealRules {
  game: Game;
  players: number[]; // seats in dealing order (G5)
  burnBeforeThird: boolean;
  burnBeforeDraw: boolean;
  stubFirst: boolean; // S11's [002] procedure
}

type Shown = Array<[number, string[]]>;

// ------------------------------------------------------------------ hashing

const encoder = new TextEncoder();

export function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

async function sha256(data: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", data as BufferSource));
}

/** The leaf of one position (the scheme's documented text, hashed). */
export function cardLeaf(position: number, card: string, nonce: Uint8Array): Promise<Uint8Array> {
  return sha256(encoder.encode(`${LABEL}\n${position}\n${card}\n${hex(nonce)}\n`));
}

/** R: SHA-256 of the 32-byte leaves, in order. */
export function rootOf(leaves: Uint8Array[]): Promise<Uint8Array> {
  const all = new Uint8Array(leaves.length * 32);
  leaves.forEach((leaf, i) => all.set(leaf, i * 32));
  return sha256(all);
}

function same(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

// ------------------------------------------------------------------ cards

function cardValue(card: string): number {
  return RANKS.indexOf(card[0] ?? "") * 4 + SUITS.indexOf(card[1] ?? "");
}

/** Cards by rank then suit: an order that says nothing of the deal. */
function cardOrder(cards: Iterable<string>): string[] {
  return [...cards].sort((a, b) => cardValue(a) - cardValue(b));
}

/** The cards of the hand's deck (G1): 52 in stud; 7-A: 32, 36 with five players. */
export function deckOf(rules: DealRules): string[] {
  const lowest = rules.game === Game.DRAW_7A ? (rules.players.length === 5 ? 4 : 5) : 0;
  const cards: string[] = [];
  for (let r = lowest; r < RANKS.length; r++) for (const s of SUITS) cards.push(`${RANKS[r]}${s}`);
  return cards;
}

// ------------------------------------------------------------------ the hand as seen

function flat(events: TableEvent[]): TableEvent[] {
  return events.flatMap((e) => (e.event.case === "batch" ? flat(e.event.value.events) : [e]));
}

/** One hand as the viewer's events show it (its hand history). */
export function viewOf(events: TableEvent[]): { started?: HandStarted; seen: Delivery[]; shown: Shown } {
  let started: HandStarted | undefined;
  let street = "";
  const seen: Delivery[] = [];
  const shown: Shown = [];
  for (const e of flat(events)) {
    const ev = e.event;
    switch (ev.case) {
      case "handStarted":
        started = ev.value;
        break;
      case "streetStarted":
        street = ev.value.name;
        break;
      case "cardsDealt": {
        const d = ev.value;
        if (d.communityCard) seen.push({ seat: 0, street, count: 1, cards: [d.communityCard], up: true });
        else seen.push({ seat: d.seat, street, count: d.cards.length || d.hiddenCount, cards: [...d.cards], up: d.up });
        break;
      }
      case "drawTaken":
        seen.push({ seat: ev.value.seat, street, count: ev.value.count, cards: [...ev.value.received], up: false });
        break;
      case "showdown":
        for (const h of ev.value.hands) if (h.cards.length) shown.push([h.seat, [...h.cards]]);
        break;
      default:
        break;
    }
  }
  return { started, seen, shown };
}

export function dealRules(config: GameConfig, started: HandStarted): DealRules {
  return {
    game: config.game,
    players: started.seats.map((s) => s.seat),
    burnBeforeThird: config.burnBeforeThird,
    burnBeforeDraw: config.burnBeforeDraw ?? true, // D6: unset = burn
    stubFirst: config.riverShortage === RiverShortage.STUB_FIRST,
  };
}

// ------------------------------------------------------------------ the deal's positions

/** Where each delivered card had to come from in the committed order (null:
 * dealt after a mid-hand reshuffle, or the community card).  Throws for a deal
 * the procedure cannot produce. poker_rules.card_commitment.deal_positions. */
export function dealPositions(rules: DealRules, deliveries: Delivery[]): Array<Array<number | null>> {
  const n = rules.players.length;
  const index = new Map(rules.players.map((seat, i) => [seat, i]));
  const size = deckOf(rules).length;
  const at = (seat: number): number => {
    const i = index.get(seat);
    if (i === undefined) throw new Error(`seat ${seat} was not dealt in`);
    return i;
  };
  const groups: Array<[string, Delivery[]]> = [];
  for (const d of deliveries) {
    if (d.seat) at(d.seat);
    const last = groups[groups.length - 1];
    if (last && last[0] === d.street) last[1].push(d);
    else groups.push([d.street, [d]]);
  }
  const names = groups.map(([street]) => street);
  if (new Set(names).size !== names.length) throw new Error(`the streets come out of order: ${names.join(", ")}`);
  const out: Array<Array<number | null>> = [];
  if (rules.game === Game.DRAW_7A) {
    let top = 5 * n;
    let burnOwed = rules.burnBeforeDraw;
    let reshuffled = false;
    for (const [street, group] of groups) {
      for (const d of group) {
        if (street === "pre_draw" && d.count === 5 && d.seat) {
          out.push([0, 1, 2, 3, 4].map((k) => at(d.seat) + k * n));
        } else if (street === "draw" && d.count >= 0 && d.count <= 5 && d.seat) {
          if (d.count && burnOwed) {
            top += 1;
            burnOwed = false;
          }
          if (d.count && (reshuffled || d.count > size - top - 1)) {
            reshuffled = true;
            out.push(Array(d.count).fill(null));
          } else {
            out.push(Array.from({ length: d.count }, (_, k) => top + k));
            top += d.count;
          }
        } else {
          throw new Error(`no 7-A draw deal gives ${d.count} cards on ${street}`);
        }
      }
    }
    return out;
  }
  let burns = rules.burnBeforeThird ? 1 : 0;
  let top = burns;
  for (const [street, group] of groups) {
    if (street === "third") {
      for (const d of group) {
        if (d.up && d.count === 1) out.push([top + 2 * n + at(d.seat)]);
        else if (!d.up && d.count === 2) out.push([top + at(d.seat), top + n + at(d.seat)]);
        else throw new Error(`third street deals two down and one up, not ${d.count} to seat ${d.seat}`);
      }
      top += 3 * n;
    } else if (LATER_STREETS.includes(street)) {
      if (group.some((d) => d.count !== 1 || !d.seat)) throw new Error(`${street} street deals one card to each seat still in`);
      top += 1; // the burn (S4)
      burns += 1;
      for (let k = 0; k < group.length; k++) out.push([top++]);
    } else if (street === "seventh") {
      if (group.some((d) => !d.seat)) {
        if (group.length !== 1 || group[0]?.count !== 1) throw new Error("a community card is the only card of seventh street");
        out.push([null]);
        continue;
      }
      if (group.some((d) => d.count !== 1)) throw new Error("seventh street deals one card to each seat still in");
      const players = group.length;
      const stub = size - top;
      let fromStub: number;
      if (stub >= players + 1) {
        top += 1; // S11 1: burn and deal
        fromStub = players;
      } else if (rules.stubFirst && stub - 1 + burns >= players) {
        fromStub = stub - 1; // [002]: the stub but its last card, then the reshuffle
      } else {
        fromStub = 0; // S11 2: burns and stub reshuffled
      }
      for (let k = 0; k < players; k++) out.push([k < fromStub ? top + k : null]);
    } else {
      throw new Error(`no stud street is called "${street}"`);
    }
  }
  return out;
}

// ------------------------------------------------------------------ the check

function fail(problem: string, commitment: Uint8Array): Verdict {
  return { ok: false, problems: [problem], checked: [], reshuffled: [], commitment };
}

/** The whole check of one hand (see the header): `proof` from Room.GetDeckProof,
 * `history` the viewer's own Room.GetHandHistory of the hand, `published` the
 * card_commitment of the HandStarted the page received live. */
export async function verifyProof(proof: DeckProof, history: HandHistory, published: Uint8Array): Promise<Verdict> {
  const { started, seen, shown } = viewOf(history.events);
  if (!started) return fail("the hand history has no HandStarted", published);
  if (!published.length) return fail("no card commitment was published when the hand started", published);
  if (!same(started.cardCommitment, published)) {
    return fail("the hand history carries another card commitment than the HandStarted this page received", published);
  }
  if (proof.handId && proof.handId !== history.handId) return fail(`the proof is of hand ${proof.handId}, not ${history.handId}`, published);
  if (proof.scheme !== SCHEME) return fail(`unknown card commitment scheme "${proof.scheme}" (expected ${SCHEME})`, published);
  if (!same(proof.cardCommitment, published)) return fail("the proof is for another commitment than the one published", published);
  const rules = dealRules(history.config ?? ({} as GameConfig), started);
  const deck = deckOf(rules);
  const deckSet = new Set(deck);
  if (proof.positions.length !== deck.length) {
    return fail(`the proof has ${proof.positions.length} positions; this deck has ${deck.length} (G1)`, published);
  }
  // Steps 1 and 2: shape, cards, hash.
  const problems: string[] = [];
  const opened = new Map<number, string>();
  const leaves: Uint8Array[] = [];
  for (let i = 0; i < proof.positions.length; i++) {
    const p = proof.positions[i]!;
    if (p.position !== i) return fail(`position ${i} of the proof is numbered ${p.position}`, published);
    if (p.card) {
      if (p.nonce.length !== 32) problems.push(`position ${i}: a nonce of ${p.nonce.length} bytes`);
      if (!deckSet.has(p.card)) problems.push(`position ${i}: "${p.card}" is not a card of this deck`);
      if ([...opened.values()].includes(p.card)) problems.push(`position ${i}: ${p.card} is opened twice`);
      opened.set(i, p.card);
      leaves.push(await cardLeaf(i, p.card, p.nonce));
    } else {
      if (p.leaf.length !== 32) problems.push(`position ${i}: a leaf of ${p.leaf.length} bytes`);
      leaves.push(p.leaf);
    }
  }
  if (problems.length) return { ok: false, problems, checked: [], reshuffled: [], commitment: published };
  const root = await rootOf(leaves);
  if (!same(root, published)) {
    return fail(
      "the cards and hashes the room revealed are not the deck it committed to before the deal " +
        `(they hash to ${hex(root).slice(0, 12)}…, the commitment published when the hand started is ${hex(published).slice(0, 12)}…)`,
      published,
    );
  }
  // Step 3: every card seen, where the deal took it from.
  let positions: Array<Array<number | null>>;
  try {
    positions = dealPositions(rules, seen);
  } catch (error) {
    return fail(`the hand's deal does not follow the rules: ${error instanceof Error ? error.message : error}`, published);
  }
  const holders = new Map<number, number>();
  seen.forEach((d, k) => positions[k]!.forEach((p) => p !== null && holders.set(p, d.seat)));
  const checked = new Set<string>();
  const reshuffled = new Set<string>();
  const saw = new Set<string>();
  const fromReshuffle = new Map<number, number>();
  seen.forEach((d, k) => {
    const places = positions[k]!;
    fromReshuffle.set(d.seat, (fromReshuffle.get(d.seat) ?? 0) + places.filter((p) => p === null).length);
    d.cards.forEach((card, j) => {
      saw.add(card);
      const p = places[j] ?? null;
      if (p === null) reshuffled.add(card);
      else if (opened.get(p) === card) checked.add(card);
      else if (opened.has(p)) problems.push(`${card}, dealt to seat ${d.seat} on ${d.street} street, should be at position ${p}, which holds ${opened.get(p)}`);
      else problems.push(`${card}, dealt to seat ${d.seat} on ${d.street} street, is not opened at position ${p}, where the deal took it from`);
    });
  });
  const where = new Map([...opened].map(([p, card]) => [card, p]));
  for (const [seat, cards] of shown) {
    let unaccounted = fromReshuffle.get(seat) ?? 0;
    for (const card of cards) {
      saw.add(card);
      if (checked.has(card) || reshuffled.has(card)) continue;
      const p = where.get(card);
      if (p !== undefined && holders.get(p) === seat) checked.add(card);
      else if (unaccounted > 0) {
        unaccounted -= 1;
        reshuffled.add(card);
      } else problems.push(`${card}, shown by seat ${seat}, is not opened at a position dealt to that seat`);
    }
  }
  // Step 4: nothing more.
  for (const [p, card] of [...opened].sort((a, b) => a[0] - b[0])) {
    if (!saw.has(card)) problems.push(`position ${p} opens ${card}, a card you were not shown`);
  }
  const claimed = new Set(proof.reshuffled);
  const extra = [...claimed].filter((c) => !reshuffled.has(c));
  const missing = [...reshuffled].filter((c) => !claimed.has(c));
  if (extra.length) problems.push(`listed as dealt after a reshuffle but not so dealt to you: ${cardOrder(extra).join(" ")}`);
  if (missing.length) problems.push(`dealt after a reshuffle but not listed so: ${cardOrder(missing).join(" ")}`);
  return { ok: !problems.length, problems, checked: cardOrder(checked), reshuffled: cardOrder(reshuffled), commitment: published };
}
