// The table page: play at your seat (#/table/<id>) or watch any table
// (#/watch/<id>).
//
// A seat follows its events with Room.Follow (a server stream: first a Snapshot,
// then every event of the seat) and answers each YourTurn with a unary Room.Act
// carrying the turn's action_seq; a refusal is the call's error, shown as the
// room wrote it (role=alert), and changes nothing.  A spectator reads Room.Watch,
// whose events come in batches.  Either stream reconnects with backoff when it
// drops for a reason a retry can fix; the Snapshot it starts with restores
// everything, the seat's turn included (a reload works the same way).
//
// The page holds only what the room sent: others' down cards are counts, drawn
// as backs.  Room data reaches the DOM as text (textContent, attributes), never
// as markup.  State: state.ts; the action controls: actions.ts.
import { Code, ConnectError, explain, me, retryable, room } from "./api";
import { actionPanel, type ActionPanel } from "./actions";
import { cardElement, cardName, chips, hiddenCard } from "./cards";
import { fairnessPanel } from "./fairness";
import { type Action, Game, PotShare, Structure, type GameConfig } from "./gen/poker/common/v1/common_pb";
import type { TableEvent } from "./gen/poker/table/v1/table_pb";
import { STREET_NAMES, TableState, type Seat } from "./state";

function el<K extends keyof HTMLElementTagNameMap>(tag: K, cls = "", text = ""): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text) e.textContent = text;
  return e;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}

const GAME_NAMES: Record<number, string> = {
  [Game.STUD]: "Seven Card Stud",
  [Game.STUD_HILO]: "Seven Card Stud Hi-Lo, eight or better",
  [Game.DRAW_7A]: "Five Card Draw 7-A",
};
const STRUCTURES: Record<number, string> = {
  [Structure.UNSPECIFIED]: "fixed limit",
  [Structure.FIXED_LIMIT]: "fixed limit",
  [Structure.POT_LIMIT]: "pot limit",
  [Structure.NO_LIMIT]: "no limit",
};

export function describeGame(config: GameConfig | undefined): string {
  if (!config) return "";
  const game = GAME_NAMES[config.game] ?? "Poker";
  if (config.game === Game.DRAW_7A) {
    const ante = config.ante ? `, ante ${chips(config.ante)}` : "";
    return `${game}, ${STRUCTURES[config.structure] ?? ""}, big blind ${chips(config.smallBet)}${ante}`;
  }
  return `${game}: ante ${chips(config.ante)}, bring-in ${chips(config.bringIn)}, ${chips(config.smallBet)}/${chips(config.bigBet)}`;
}

/** Where a seat sits around the oval: the viewer's seat at the bottom. */
function place(seat: number, seats: number, bottom: number): { x: number; y: number } {
  const k = (((seat - (bottom || 1)) % seats) + seats) % seats;
  const angle = Math.PI / 2 + (2 * Math.PI * k) / seats;
  return { x: 50 + 44 * Math.cos(angle), y: 50 + 40 * Math.sin(angle) };
}

export function tablePage(app: HTMLElement, tableId: string, mode: "player" | "spectator"): () => void {
  const stop = new AbortController();
  const state = new TableState(tableId);
  const fairness = fairnessPanel(tableId);
  const selection = new Set<string>();
  const announcedHands = new Set<string>(); // hands whose commitment the fairness panel has
  const finishedHands = new Set<string>(); // HandFinished given to it
  let tableSeats = 0; // from GetTable; else the highest seat seen
  let turnKey = ""; // the turn the controls were built for
  let sending = false;
  let answered = ""; // the turn answered (its key), until the events catch up
  let historyUrl = "";
  let streamAbort: AbortController | null = null;

  // ------------------------------------------------------------ the page's parts
  const page = el("section", `table-page mode-${mode}`);
  page.id = "table";
  page.dataset.mode = mode;
  page.dataset.tableId = tableId;
  page.dataset.handId = "";

  const head = el("header", "table-head");
  const title = el("h1", "table-title", mode === "spectator" ? "Watching a table" : "Your table");
  const game = el("p", "game");
  const facts = el("p", "facts");
  const handId = el("span", "hand-id", "No hand yet");
  handId.id = "hand-id";
  handId.dataset.handId = "";
  const street = el("span", "street");
  street.id = "street";
  const handsSeen = el("span", "hands-seen", "Hands seen: 0");
  handsSeen.id = "hands-seen";
  handsSeen.dataset.count = "0";
  const connection = el("span", "connection", "Connecting…");
  connection.id = "connection";
  connection.setAttribute("role", "status");
  facts.append(handId, " · ", street, " · ", handsSeen, " · ", connection);
  const links = el("p", "links");
  const back = el("a", "", "Lobby");
  back.href = "#/";
  links.append(back);
  if (mode === "spectator") {
    const play = el("a", "", "Play at this table");
    play.href = `#/table/${encodeURIComponent(tableId)}`;
    links.append(" · ", play);
  } else {
    const watch = el("a", "", "Watch as a spectator");
    watch.href = `#/watch/${encodeURIComponent(tableId)}`;
    links.append(" · ", watch);
  }
  head.append(title, game, facts, links);

  const note = el("p", "note");
  note.id = "note";
  note.hidden = true;

  const felt = el("div", "felt");
  const seatList = el("ol", "seats");
  seatList.setAttribute("aria-label", "Seats");
  const center = el("div", "center");
  const community = el("div", "community");
  community.setAttribute("aria-label", "Community card");
  const pots = el("ul", "pots");
  pots.id = "pots";
  pots.setAttribute("aria-label", "Pots");
  const inFront = el("p", "in-front");
  const turn = el("p", "turn");
  turn.id = "turn";
  turn.dataset.myTurn = "false";
  const whose = el("span", "whose", "Waiting for the table");
  whose.setAttribute("aria-live", "polite");
  const clock = el("span", "clock");
  clock.setAttribute("role", "timer");
  clock.setAttribute("aria-live", "off");
  turn.append(whose, " ", clock);
  center.append(community, pots, inFront, turn);
  felt.append(seatList, center);

  const alert = el("div", "alert");
  alert.id = "alert";
  alert.setAttribute("role", "alert");

  const panel: ActionPanel = actionPanel({
    act: (action) => void send(action),
    selection: () => selection,
    problem: (message) => showAlert(message),
  });

  const lastHand = el("section", "last-hand");
  lastHand.setAttribute("aria-label", "The last hand");
  const lastTitle = el("h2", "", "Last hand");
  const showdown = el("div", "showdown");
  showdown.id = "showdown";
  showdown.dataset.handId = "";
  const result = el("div", "result");
  result.id = "result";
  result.dataset.handId = "";
  result.setAttribute("aria-live", "polite");
  const history = el("p", "history");
  lastHand.append(lastTitle, showdown, result, history);
  lastHand.hidden = true;

  const logBox = el("details", "log");
  const logTitle = el("summary", "", "What happened");
  const logList = el("ol");
  logList.id = "log";
  logBox.append(logTitle, logList);

  page.append(head, note, felt, alert, panel.element, lastHand, fairness.element, logBox);
  app.replaceChildren(page);

  const who = me();
  if (!who) {
    note.hidden = false;
    note.replaceChildren(
      mode === "spectator" ? "Watching needs a player account. " : "You are not signed in. ",
      Object.assign(el("a", "", "Register in the lobby"), { href: "#/" }),
      mode === "spectator" ? " first." : " and sit down at this table first.",
    );
    connection.textContent = "Not connected";
    return () => stop.abort();
  }

  // ------------------------------------------------------------ rendering
  const seatEls = new Map<number, HTMLLIElement>();
  const cardKeys = new WeakMap<HTMLElement, string>();

  function seatCount(): number {
    let n = tableSeats;
    for (const s of state.seats.keys()) n = Math.max(n, s);
    return Math.max(n, 2);
  }

  function seatElement(n: number): HTMLLIElement {
    let li = seatEls.get(n);
    if (li) return li;
    li = el("li", "seat");
    li.dataset.seat = String(n);
    const top = el("div", "who");
    const seatNo = el("span", "seat-no", `Seat ${n}`);
    const name = el("span", "name");
    const badges = el("span", "badges");
    top.append(seatNo, " ", name, badges);
    const stack = el("div", "stack");
    const cards = el("div", "cards");
    const down = el("span", "downcards");
    const up = el("span", "upcards");
    cards.append(down, up);
    const bet = el("div", "bet");
    const last = el("div", "last-action");
    li.append(top, stack, cards, bet, last);
    seatEls.set(n, li);
    return li;
  }

  function setCards(box: HTMLElement, key: string, build: () => Node[]): void {
    if (cardKeys.get(box) === key) return;
    cardKeys.set(box, key);
    box.replaceChildren(...build());
  }

  function ownCardButton(card: string, selectable: boolean): HTMLButtonElement {
    const b = el("button", "own-card");
    b.type = "button";
    b.dataset.ownCard = card;
    const picked = selection.has(card);
    b.setAttribute("aria-pressed", picked ? "true" : "false");
    b.setAttribute("aria-label", `${cardName(card)}, your card${selectable ? (picked ? ", selected to discard" : ", kept") : ""}`);
    b.disabled = !selectable;
    b.append(cardElement(card));
    b.addEventListener("click", () => toggle(card, b));
    return b;
  }

  function toggle(card: string, b: HTMLButtonElement): void {
    const max = panel.maxDiscards();
    if (max === null || sending) return;
    if (selection.has(card)) selection.delete(card);
    else if (selection.size >= max) {
      showAlert(`At most ${max} cards may be thrown away.`);
      return;
    } else selection.add(card);
    const picked = selection.has(card);
    b.setAttribute("aria-pressed", picked ? "true" : "false");
    b.setAttribute("aria-label", `${cardName(card)}, your card, ${picked ? "selected to discard" : "kept"}`);
    panel.selectionChanged();
  }

  function renderSeat(n: number, total: number): HTMLLIElement {
    const li = seatElement(n);
    const s: Seat | undefined = state.seats.get(n);
    const at = place(n, total, state.mySeat);
    li.style.setProperty("--x", `${at.x.toFixed(1)}%`);
    li.style.setProperty("--y", `${at.y.toFixed(1)}%`);
    const [top, stackEl, cards, betEl, lastEl] = li.children as unknown as HTMLElement[];
    const name = top!.querySelector(".name") as HTMLElement;
    const badges = top!.querySelector(".badges") as HTMLElement;
    const down = cards!.querySelector(".downcards") as HTMLElement;
    const up = cards!.querySelector(".upcards") as HTMLElement;
    const mine = n === state.mySeat && mode === "player";
    li.dataset.empty = s ? "false" : "true";
    li.dataset.me = mine ? "true" : "false";
    li.dataset.inHand = s?.inHand ? "true" : "false";
    const toAct = state.toAct?.seat === n && !state.handOver;
    li.dataset.toAct = toAct ? "true" : "false";
    if (toAct) li.setAttribute("aria-current", "true");
    else li.removeAttribute("aria-current");
    name.textContent = s ? state.name(n) + (mine ? " (you)" : "") : "Empty seat";
    // Badges: the button (draw), the bring-in (stud), folded, all in.
    const marks: string[] = [];
    if (s && state.isDraw && state.buttonSeat === n && !state.buttonDead && !state.handOver) marks.push("button");
    if (s && !state.isDraw && state.bringInSeat === n && state.street === 0 && !state.handOver) marks.push("bring-in");
    if (s?.allIn) marks.push("all in");
    if (s && s.dealtIn && !s.inHand && !state.handOver) marks.push("folded");
    setCards(badges, marks.join("|"), () =>
      marks.map((m) => {
        const b = el("span", `badge badge-${m.replace(/\s+/g, "-")}`, m === "button" ? "D" : m);
        if (m === "button") b.setAttribute("aria-label", "dealer button");
        return b;
      }),
    );
    const stack = s?.stack ?? 0n;
    stackEl!.dataset.chips = stack.toString();
    stackEl!.textContent = s ? `${chips(stack)} chips` : "";
    const bet = s?.bet ?? 0n;
    betEl!.dataset.chips = bet.toString();
    betEl!.textContent = bet > 0n ? `Bet ${chips(bet)}` : "";
    lastEl!.textContent = s?.lastAction ?? "";

    // Down cards: your own (buttons: selectable in the draw), others' as backs;
    // after the showdown, the cards shown.
    const shown =
      state.showdown && state.showdown.handId === state.handId
        ? state.showdown.hands.find((h) => h.seat === n)
        : undefined;
    const selectable = mine && panel.maxDiscards() !== null && !sending;
    if (s && mine && s.ownCards.length) {
      // Rebuilt only when the cards change (a focused card keeps its focus).
      setCards(down, `own:${s.ownCards.join(",")}:${selectable}`, () => s.ownCards.map((c) => ownCardButton(c, selectable)));
      for (const b of down.querySelectorAll<HTMLButtonElement>("button[data-own-card]")) {
        const picked = selection.has(b.dataset.ownCard ?? "");
        b.setAttribute("aria-pressed", picked ? "true" : "false");
      }
      down.setAttribute("aria-label", "Your down cards");
    } else if (s && shown && shown.cards.length) {
      const hidden = shown.cards.filter((c) => !s.upcards.includes(c) && c !== state.communityCard);
      setCards(down, `shown:${hidden.join(",")}`, () => hidden.map((c) => cardElement(c)));
      down.setAttribute("aria-label", "Cards shown at the showdown");
    } else if (s && s.downCount > 0) {
      const count = s.downCount;
      setCards(down, `backs:${count}:${s.inHand}`, () => {
        const backs: Node[] = [];
        for (let k = 0; k < count; k++) backs.push(hiddenCard());
        return backs;
      });
      down.setAttribute("aria-label", `${count} face-down card${count === 1 ? "" : "s"}`);
    } else {
      setCards(down, "none", () => []);
      down.removeAttribute("aria-label");
    }
    const ups = s?.upcards ?? [];
    setCards(up, `up:${ups.join(",")}`, () => ups.map((c) => cardElement(c)));
    if (ups.length) up.setAttribute("aria-label", "Upcards");
    else up.removeAttribute("aria-label");
    const draws = s?.drawCount;
    if (draws !== null && draws !== undefined && state.isDraw) li.dataset.drew = String(draws);
    else delete li.dataset.drew;
    return li;
  }

  function renderSeats(): void {
    const total = seatCount();
    const items: HTMLLIElement[] = [];
    for (let n = 1; n <= total; n++) items.push(renderSeat(n, total));
    // Reading order: from the viewer's seat round the table.
    const bottom = state.mySeat || 1;
    items.sort((a, b) => {
      const ka = (Number(a.dataset.seat) - bottom + total) % total;
      const kb = (Number(b.dataset.seat) - bottom + total) % total;
      return ka - kb;
    });
    const current = [...seatList.children];
    if (current.length !== items.length || current.some((c, k) => c !== items[k])) seatList.replaceChildren(...items);
  }

  function renderPots(): void {
    const items: HTMLLIElement[] = [];
    state.pots.forEach((pot, k) => {
      const li = el("li", "pot");
      li.dataset.pot = String(k);
      li.dataset.chips = pot.amount.toString();
      const label = k === 0 ? "Main pot" : `Side pot ${k}`;
      const who = k > 0 || state.pots.length > 1 ? ` (seats ${pot.eligibleSeats.join(", ")})` : "";
      li.textContent = `${label}: ${chips(pot.amount)}${who}`;
      items.push(li);
    });
    if (!items.length && state.posted > 0n && !state.handOver) {
      const li = el("li", "pot");
      li.dataset.pot = "0";
      li.dataset.chips = state.posted.toString();
      li.textContent = `Pot: ${chips(state.posted)}`;
      items.push(li);
    }
    pots.replaceChildren(...items);
    const front = [...state.seats.values()].reduce((sum, s) => sum + s.bet, 0n);
    inFront.textContent = front > 0n ? `Bets this round: ${chips(front)}` : "";
    community.replaceChildren(...(state.communityCard ? [el("span", "label", "Community card: "), cardElement(state.communityCard)] : []));
  }

  function renderTurn(): void {
    const mine = state.turn !== null && mode === "player";
    turn.dataset.myTurn = mine ? "true" : "false";
    const who = state.toAct && !state.handOver ? state.toAct.seat : 0;
    turn.dataset.toAct = String(who);
    turn.dataset.actionSeq = mine ? String(state.turn?.actionSeq ?? "") : "";
    let words: string;
    if (mine) words = "Your turn";
    else if (who) words = `${state.name(who)} to act`;
    else if (!state.handId || state.handOver) words = "Waiting for the next hand";
    else words = "Dealing";
    if (whose.textContent !== words) whose.textContent = words;
    tick();
  }

  function tick(): void {
    const deadline = state.toAct && !state.handOver ? state.toAct.deadline : 0;
    if (!deadline) {
      clock.textContent = "";
      return;
    }
    const left = Math.max(0, Math.ceil((deadline - Date.now()) / 1000));
    clock.textContent = `${left} s left`;
    clock.dataset.secondsLeft = String(left);
    turn.classList.toggle("hurry", left <= 5);
  }

  function renderShowdown(): void {
    const sd = state.showdown;
    const finish = state.finish;
    if (!sd && !finish) return;
    lastHand.hidden = false;
    const titleHand = sd && sd.handId === state.handId && !state.handOver ? sd.handId : (finish?.handId ?? sd?.handId ?? "");
    lastTitle.textContent = titleHand === state.handId && !state.handOver ? `This hand: ${titleHand}` : `Last hand: ${titleHand}`;
    if (sd && (!finish || sd.handId === finish.handId || sd.handId === state.handId)) {
      if (showdown.dataset.handId !== sd.handId || showdown.dataset.count !== String(sd.hands.length)) {
        showdown.dataset.handId = sd.handId;
        showdown.dataset.count = String(sd.hands.length);
        const list = el("ul", "shown");
        for (const h of sd.hands) {
          const li = el("li", "shown-hand");
          li.dataset.seat = String(h.seat);
          const name = el("span", "who", sd.names.get(h.seat) ?? `Seat ${h.seat}`);
          const cards = el("span", "cards");
          cards.append(...h.cards.map((c) => cardElement(c)));
          const high = el("span", "high", h.high);
          const low = el("span", "low", h.low ? `low: ${h.low}` : "");
          if (h.mucked) li.dataset.mucked = "true";
          li.append(name, " ", cards, " ", high, " ", low);
          if (h.mucked) li.append(el("span", "mucked", h.cards.length ? " (mucked)" : " mucked"));
          list.append(li);
        }
        showdown.replaceChildren(el("h3", "", "Showdown"), list);
      }
    } else if (finish && showdown.dataset.handId !== finish.handId) {
      showdown.dataset.handId = finish.handId;
      showdown.dataset.count = "0";
      showdown.replaceChildren(el("p", "no-showdown", "No showdown: the hand was won without one."));
    }
    const key = finish ? `${finish.handId}${finish.finished.voided ? ":voided" : ""}` : "";
    if (finish && result.dataset.key !== key) {
      result.dataset.key = key;
      result.dataset.handId = finish.handId;
      renderResult();
    }
  }

  function renderResult(): void {
    const finish = state.finish;
    if (!finish) return;
    const f = finish.finished;
    const parts: Node[] = [el("h3", "", "Result")];
    if (f.voided) {
      parts.push(el("p", "voided", "The hand was voided: every stack is as it was before it."));
    }
    if (f.uncalledSeat !== undefined && f.uncalledAmount > 0n) {
      parts.push(
        el("p", "uncalled", `${finish.names.get(f.uncalledSeat) ?? `Seat ${f.uncalledSeat}`} takes back ${chips(f.uncalledAmount)} uncalled (G6).`),
      );
    }
    const awards = el("ul", "awards");
    const byPot = new Map<number, typeof f.awards>();
    for (const a of f.awards) byPot.set(a.potIndex, [...(byPot.get(a.potIndex) ?? []), a]);
    for (const [index, list] of [...byPot.entries()].sort((a, b) => a[0] - b[0])) {
      const potName = index === 0 ? (finish.potCount > 1 ? "Main pot" : "The pot") : `Side pot ${index}`;
      for (const a of list) {
        const li = el("li", "award");
        li.dataset.pot = String(a.potIndex);
        li.dataset.winner = String(a.seat);
        li.dataset.chips = a.amount.toString();
        const share =
          a.share === PotShare.HIGH ? "high half" : a.share === PotShare.LOW ? "low half" : finish.hilo ? "whole pot, no low" : "";
        li.dataset.share = a.share === PotShare.HIGH ? "high" : a.share === PotShare.LOW ? "low" : "whole";
        li.textContent = `${potName}${share ? `, ${share}` : ""}: ${finish.names.get(a.seat) ?? `Seat ${a.seat}`} wins ${chips(a.amount)}`;
        awards.append(li);
      }
      // Odd chips: visible in the amounts; said in words where a split was uneven.
      const sum = (share: PotShare) => list.filter((a) => a.share === share).reduce((t, a) => t + a.amount, 0n);
      const high = sum(PotShare.HIGH);
      const low = sum(PotShare.LOW);
      if (high > 0n && low > 0n && high !== low) {
        const odd = el("li", "odd-chip", `${potName}: ${chips(high + low)} does not split evenly: odd chip to high (H5).`);
        odd.dataset.pot = String(index);
        awards.append(odd);
      }
      for (const share of [PotShare.HIGH, PotShare.LOW, PotShare.WHOLE, PotShare.UNSPECIFIED]) {
        const tied = list.filter((a) => a.share === share);
        if (tied.length < 2) continue;
        const most = tied.reduce((m, a) => (a.amount > m.amount ? a : m));
        if (tied.every((a) => a.amount === most.amount)) continue;
        const rule =
          finish.hilo && share === PotShare.LOW ? "H5, lowest card" : finish.hilo ? "H5, highest card" : state.isDraw ? "D9" : "S13";
        const odd = el("li", "odd-chip", `${potName}: a tie; the odd chip goes to ${finish.names.get(most.seat) ?? `Seat ${most.seat}`} (${rule}).`);
        odd.dataset.pot = String(index);
        awards.append(odd);
      }
    }
    parts.push(awards);
    const finals = el("ul", "finals");
    finals.setAttribute("aria-label", "Stacks after the hand");
    for (const s of f.seats) {
      const li = el("li", "final");
      li.dataset.finalSeat = String(s.seat);
      li.dataset.chips = s.stack.toString();
      const start = finish.startStacks.get(s.seat);
      const diff = start === undefined ? "" : s.stack >= start ? ` (+${chips(s.stack - start)})` : ` (−${chips(start - s.stack)})`;
      li.textContent = `${finish.names.get(s.seat) ?? `Seat ${s.seat}`}: ${chips(s.stack)}${diff}`;
      finals.append(li);
    }
    parts.push(finals);
    result.replaceChildren(...parts);
  }

  function renderLog(): void {
    const items = state.log.map((line) => el("li", "", line));
    logList.replaceChildren(...items);
  }

  function renderHead(): void {
    page.dataset.handId = state.handId;
    handId.dataset.handId = state.handId;
    handId.textContent = state.handId ? `Hand ${state.handId}` : "No hand in progress";
    street.dataset.street = state.streetName;
    street.textContent = state.handOver ? "Between hands" : (STREET_NAMES[state.streetName] ?? "");
    handsSeen.dataset.count = String(state.handsFinished.size);
    handsSeen.textContent = `Hands seen: ${state.handsFinished.size}`;
    if (state.config) game.textContent = describeGame(state.config);
    if (mode === "player" && state.config) {
      note.hidden = state.mySeat !== 0;
      if (!state.mySeat) {
        note.replaceChildren(
          "You have no seat at this table: you see what a spectator sees. ",
          Object.assign(el("a", "", "Sit down in the lobby"), { href: "#/" }),
          ".",
        );
      }
    }
  }

  function renderActions(): void {
    if (mode !== "player") return;
    const t = state.turn;
    const key = t ? `${state.handId}:${t.actionSeq}` : "";
    if (key === turnKey) return;
    turnKey = key;
    selection.clear();
    sending = false;
    if (t && key !== answered) {
      const s = state.me;
      panel.show(t, s?.stack ?? 0n, s?.bet ?? 0n);
    } else {
      panel.clear();
    }
  }

  function render(): void {
    renderHead();
    renderActions();
    renderSeats();
    renderPots();
    renderTurn();
    renderShowdown();
    renderLog();
  }

  function showAlert(message: string): void {
    alert.textContent = message;
  }

  // ------------------------------------------------------------ acting
  async function send(action: Action): Promise<void> {
    const t = state.turn;
    if (!t || sending) return;
    const key = `${state.handId}:${t.actionSeq}`;
    sending = true;
    panel.busy(true);
    renderSeats();
    try {
      await room.act({ tableId, handId: state.handId, actionSeq: t.actionSeq, action }, { signal: stop.signal });
      showAlert("");
      answered = key;
      if (turnKey === key) {
        panel.clear();
        turnKey = "";
      }
    } catch (error) {
      if (stop.signal.aborted) return;
      // Refused (FAILED_PRECONDITION: a late or repeated action_seq, an illegal
      // action): nothing changed at the table; the same turn stands.
      showAlert(explain(error));
      if (turnKey === key) panel.busy(false);
    } finally {
      sending = false;
      render();
    }
  }

  // ------------------------------------------------------------ the hand's end
  async function fetchHistory(hand: string): Promise<void> {
    // The table files the hand in its history just after HandFinished: give it a moment.
    await sleep(250, stop.signal);
    for (let attempt = 0; attempt < 6 && !stop.signal.aborted; attempt++) {
      try {
        const answer = await room.getHandHistory({ tableId, handId: hand, limit: 1 }, { signal: stop.signal });
        const found = answer.hands.find((h) => h.handId === hand);
        if (!found) throw new Error("not in the history yet");
        if (state.finish && state.finish.handId !== hand) return; // a later hand finished meanwhile
        if (historyUrl) URL.revokeObjectURL(historyUrl);
        historyUrl = URL.createObjectURL(new Blob([found.phh], { type: "text/plain" }));
        const link = el("a", "history-download", "Download hand history (PHH)");
        link.id = "history-download";
        link.href = historyUrl;
        link.download = `hand-${hand}.phh`;
        link.dataset.handId = hand;
        link.setAttribute("aria-label", `Download the history of hand ${hand} (PHH format)`);
        history.replaceChildren(link);
        return;
      } catch (error) {
        if (stop.signal.aborted) return;
        if (error instanceof ConnectError && error.code !== Code.NotFound && !retryable(error) && !(error.message === "not in the history yet")) {
          history.textContent = `No history for hand ${hand}: ${explain(error)}`;
          return;
        }
        await sleep(300 * (attempt + 1), stop.signal);
      }
    }
  }

  // ------------------------------------------------------------ the stream
  function handle(message: TableEvent): void {
    const complete = state.apply(message);
    for (const e of message.event.case === "batch" ? message.event.value.events : [message]) {
      const ev = e.event;
      if (ev.case === "handStarted" || ev.case === "snapshot") {
        // The hand's commitments, published before its first card (a page that
        // joins mid-hand has them from the Snapshot).
        const hand = ev.case === "snapshot" ? ev.value.handId : e.handId;
        if (hand && !announcedHands.has(hand)) {
          // A Snapshot taken while the deck was still being opened has no
          // commitment yet: the HandStarted after it must still reach the panel.
          if (ev.value.cardCommitment.length) announcedHands.add(hand);
          fairness.handStarted(hand, ev.value);
        }
      } else if (ev.case === "handFinished") {
        const hand = e.handId || state.handId;
        if (!finishedHands.has(hand)) {
          finishedHands.add(hand);
          fairness.handFinished(hand);
        }
        void fetchHistory(hand);
      } else if (ev.case === "actionRejected") {
        showAlert(ev.value.message);
      }
    }
    render();
    if (!complete) resync();
  }

  /** An event of the hand is missing: read the whole state again. */
  function resync(): void {
    streamAbort?.abort();
  }

  async function connect(): Promise<void> {
    let backoff = 500;
    while (!stop.signal.aborted) {
      const attempt = new AbortController();
      streamAbort = attempt;
      const onStop = () => attempt.abort();
      stop.signal.addEventListener("abort", onStop, { once: true });
      let got = false;
      try {
        const stream =
          mode === "player"
            ? room.follow({ tableId }, { signal: attempt.signal })
            : room.watch({ tableId }, { signal: attempt.signal });
        connection.textContent = "Connecting…";
        for await (const message of stream) {
          if (!got) {
            got = true;
            backoff = 500;
            connection.dataset.connects = String(Number(connection.dataset.connects ?? 0) + 1);
            connection.textContent = mode === "player" ? "Connected" : "Watching";
            connection.dataset.state = "open";
          }
          handle(message);
        }
        if (stop.signal.aborted) return;
        connection.textContent = "The room ended the stream; reconnecting…";
      } catch (error) {
        if (stop.signal.aborted) return;
        if (attempt.signal.aborted) {
          connection.textContent = "Catching up…";
          continue; // resync: at once
        }
        if (!(error instanceof ConnectError)) console.error("table page:", error); // a bug of the page's own
        const code = error instanceof ConnectError ? error.code : Code.Unknown;
        if (code === Code.Aborted) {
          // A newer connection of this player (another window) took the seat over.
          connection.dataset.state = "replaced";
          connection.textContent = "This seat is open in another window.";
          const again = el("button", "reconnect", "Play here");
          again.type = "button";
          again.addEventListener("click", () => {
            note.hidden = true;
            void connect();
          });
          note.hidden = false;
          note.replaceChildren("This seat is open in another window or tab. ", again);
          return;
        }
        const spectatorRetry = mode === "spectator" && code === Code.ResourceExhausted;
        if (!retryable(error) && !spectatorRetry) {
          connection.dataset.state = "failed";
          connection.textContent = `Not connected: ${explain(error)}`;
          note.hidden = false;
          note.replaceChildren(`${explain(error)} `, Object.assign(el("a", "", "Back to the lobby"), { href: "#/" }));
          return;
        }
        if (spectatorRetry) backoff = Math.max(backoff, 4000);
      } finally {
        stop.signal.removeEventListener("abort", onStop);
      }
      connection.dataset.state = "retrying";
      connection.dataset.drops = String(Number(connection.dataset.drops ?? 0) + 1);
      const wait = Math.round(backoff * (0.75 + Math.random() * 0.5));
      connection.textContent = `Connection lost; trying again in ${Math.ceil(wait / 1000)} s…`;
      await sleep(wait, stop.signal);
      backoff = Math.min(backoff * 2, 15_000);
    }
  }

  // ------------------------------------------------------------ start
  render();
  void room
    .getTable({ tableId }, { signal: stop.signal })
    .then((table) => {
      tableSeats = table.seats;
      title.textContent = mode === "spectator" ? `Watching ${table.name}` : table.name;
      if (!state.config && table.config) game.textContent = describeGame(table.config);
      render();
    })
    .catch(() => {});
  const timer = setInterval(tick, 250);
  void connect();

  return () => {
    stop.abort();
    clearInterval(timer);
    if (historyUrl) URL.revokeObjectURL(historyUrl);
  };
}
