// Fairness you can check (issue 17; docs/rules.md G4a): after each hand the page
// verifies, itself, that the cards it saw were fixed before the deal.  OWNED BY
// THE FAIRNESS WORK: the table page only calls the three members below.
//
// Contract with table.ts:
//   const panel = fairnessPanel(tableId)        -> an element the table page mounts
//   panel.handStarted(handId, event.handStarted) -> the HandStarted message (or, for
//                                                   a page that joins mid-hand, the
//                                                   Snapshot): its card_commitment
//                                                   is what the proof must hash to
//   panel.handFinished(handId)                   -> after HandFinished: verify, show
// The panel lists one <li data-hand-id=... data-verdict="pending|verified|failed">
// per hand, newest first, with words a person can read.
//
// How: on handFinished the page asks the room for its proof of the hand
// (Room.GetDeckProof) and for its own history of it (Room.GetHandHistory, the
// cards it was shown), and checks them with WebCrypto (deckproof.ts) against the
// commitment it got before the first card.  The proof opens only the cards this
// viewer saw; every other position is a hash that says nothing.
import { Code, ConnectError, explain, retryable, room } from "./api";
import { hex, verifyProof, type Verdict } from "./deckproof";
import type { HandHistory, HandStarted, Snapshot } from "./gen/poker/table/v1/table_pb";

export interface FairnessPanel {
  element: HTMLElement;
  /** The hand's start: its HandStarted (or the Snapshot of a page that joined
   * mid-hand), whose card_commitment the hand's proof must hash to. */
  handStarted(handId: string, started: HandStarted | Snapshot): void;
  handFinished(handId: string): void;
}

const KEEP = 30; // hands listed; older ones drop off the list
const ATTEMPTS = 6;

function short(id: string): string {
  return id.length > 12 ? `${id.slice(0, 10)}…` : id;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A call retried while the hand is not in the history yet or the room is
 * briefly unreachable; any other refusal is final. */
async function patiently<T>(call: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      const again = error instanceof ConnectError && (error.code === Code.NotFound || retryable(error));
      if (!again || attempt >= ATTEMPTS) throw error;
      await sleep(250 * attempt);
    }
  }
}

function words(handId: string, verdict: Verdict): string {
  const hand = `Hand ${short(handId)}`;
  const commitment = `commitment ${hex(verdict.commitment).slice(0, 8)}…`;
  if (!verdict.ok) return `${hand}: FAILED: ${verdict.problems.join("; ")} (${commitment})`;
  const n = verdict.checked.length;
  let text = `${hand}: verified: ${n} card${n === 1 ? "" : "s"} you saw ${n === 1 ? "was" : "were"} fixed before the deal (${commitment})`;
  const late = verdict.reshuffled.length;
  if (late) {
    text +=
      `. ${late} card${late === 1 ? "" : "s"} (${verdict.reshuffled.join(" ")}) ${late === 1 ? "was" : "were"} dealt after a ` +
      "mid-hand reshuffle (S11/D6): not covered by this check; the auditors' full check of the deck covers them";
  }
  return text;
}

export function fairnessPanel(tableId: string): FairnessPanel {
  const element = document.createElement("section");
  element.id = "fairness";
  element.dataset.tableId = tableId;
  const title = document.createElement("h3");
  title.textContent = "Fairness check";
  const about = document.createElement("p");
  about.className = "about";
  about.textContent =
    "Before each hand the room commits to the shuffled deck. After it, this page checks " +
    "that every card it showed you was in that deck, where the deal took it from; it never " +
    "gets a card you were not shown.";
  const list = document.createElement("ul");
  element.append(title, about, list);

  const commitments = new Map<string, Uint8Array | null>(); // null: none was published
  const items = new Map<string, HTMLLIElement>();
  const finished = new Set<string>();

  function item(handId: string): HTMLLIElement {
    let li = items.get(handId);
    if (!li) {
      li = document.createElement("li");
      li.dataset.handId = handId;
      li.dataset.verdict = "pending";
      items.set(handId, li);
      list.prepend(li);
      while (list.children.length > KEEP) {
        const last = list.lastElementChild as HTMLLIElement;
        items.delete(last.dataset.handId ?? "");
        commitments.delete(last.dataset.handId ?? "");
        finished.delete(last.dataset.handId ?? "");
        last.remove();
      }
    }
    return li;
  }

  function show(handId: string, verdict: "pending" | "verified" | "failed", text: string): void {
    const li = item(handId);
    li.dataset.verdict = verdict;
    li.textContent = text;
  }

  async function check(handId: string, published: Uint8Array): Promise<void> {
    show(handId, "pending", `Hand ${short(handId)}: checking the deal…`);
    try {
      const [proof, histories] = await Promise.all([
        patiently(() => room.getDeckProof({ tableId, handId })),
        patiently(() => room.getHandHistory({ tableId, handId })),
      ]);
      const history: HandHistory | undefined = histories.hands.find((h) => h.handId === handId);
      if (!history) throw new Error("the room did not return this hand's history");
      const verdict = await verifyProof(proof, history, published);
      show(handId, verdict.ok ? "verified" : "failed", words(handId, verdict));
    } catch (error) {
      // Not a verdict: the proof could not be fetched (the room said why).
      show(handId, "pending", `Hand ${short(handId)}: not checked yet: ${explain(error)}`);
    }
  }

  return {
    element,
    handStarted(handId, started) {
      if (!handId) return;
      const published = started.cardCommitment;
      // A Snapshot taken while the hand's deck was still being opened has its id
      // but no commitment yet: the HandStarted that follows brings it.
      if (commitments.has(handId) && (commitments.get(handId) || !published.length)) return;
      commitments.set(handId, published.length ? published : null);
      const li = item(handId);
      if (li.dataset.verdict === "pending") {
        const when = started.$typeName === "poker.table.v1.Snapshot" ? "on joining mid-hand" : "before the first card";
        li.textContent = published.length
          ? `Hand ${short(handId)}: dealing; commitment ${hex(published).slice(0, 8)}… received ${when}`
          : `Hand ${short(handId)}: no per-card commitment received`;
      }
    },
    handFinished(handId) {
      if (!handId || finished.has(handId) || !commitments.has(handId)) return; // never seen to start: nothing to check against
      finished.add(handId);
      const published = commitments.get(handId);
      if (!published) {
        show(
          handId,
          "failed",
          `Hand ${short(handId)}: FAILED: cannot check: the page did not receive the hand's per-card commitment when it started`,
        );
        return;
      }
      void check(handId, published);
    },
  };
}
