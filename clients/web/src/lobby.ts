// The lobby page (#/): register or come back signed in, the player's balance,
// the ring tables with their game, stakes, seats and pace, the tournaments, and
// sitting down with a buy-in.
//
// Everything the room says is shown through textContent (names are user input).
// Money is bigint end to end (protobuf-es int64); only a hand count becomes a
// Number, to compute hands per hour.  The page refreshes every REFRESH_MS and
// updates what changed in place, so a buy-in being typed or the focus of a
// keyboard user survives the refresh.
import { forget, me, remember, room, explain, Code, ConnectError } from "./api";
import { chips } from "./cards";
import type { Player, SeatInfo, Table } from "./gen/poker/lobby/v1/lobby_pb";
import { TournamentStatus, type Tournament } from "./gen/poker/lobby/v1/tournament_pb";
import { h, setAttr, setText, srOnly, uniqueId } from "./lobby_dom";
import { Pace, gameName, levelStakes, stakes, tournamentState } from "./lobby_format";
import { Game } from "./gen/poker/common/v1/common_pb";

const REFRESH_MS = 5_000;
const NAME_MAX = 32; // RegisterRequest.name: 1..32 characters

/** Hands per hour are measured across visits to the lobby (the page's life). */
const pace = new Pace();

export function lobbyPage(app: HTMLElement): () => void {
  const lobby = new Lobby(app);
  return () => lobby.close();
}

/** The part of a table row that changes with the player's situation there. */
type SitMode = "signed-out" | "seated" | "full" | "form";

interface Row {
  tr: HTMLTableRowElement;
  name: HTMLElement;
  game: HTMLElement;
  stakes: HTMLElement;
  seats: HTMLElement;
  seatsText: HTMLElement;
  perHour: HTMLElement;
  play: HTMLAnchorElement;
  sit: HTMLElement; // the area below the links: form, seat or a note
  mode: SitMode | null;
  modeKey: string;
  alert: HTMLElement; // role=alert: refusals
  status: HTMLElement; // role=status: a stand-up's outcome
  form: SitForm | null;
  table: Table;
}

interface SitForm {
  form: HTMLFormElement;
  input: HTMLInputElement;
  button: HTMLButtonElement;
  hint: HTMLElement;
}

class Lobby {
  private alive = true;
  private timer: number | undefined;
  private refreshing: Promise<void> | null = null;
  private readonly abort = new AbortController();
  private player: Player | null = null;
  private staleCredential = "";
  private readonly rows = new Map<string, Row>();
  private tournamentsKey = "";

  private readonly root: HTMLElement;
  private readonly account: HTMLElement;
  private readonly problem: HTMLElement;
  private readonly updated: HTMLElement;
  private readonly tbody: HTMLTableSectionElement;
  private readonly noTables: HTMLElement;
  private readonly tournaments: HTMLElement;
  private readonly tournamentsBody: HTMLElement;

  constructor(private readonly app: HTMLElement) {
    // The page's <main> is a polite live region; the lobby's own content is
    // refreshed every few seconds, so it opts out and announces through its
    // role=status and role=alert elements only.
    this.problem = h("p", { id: "lobby-status", class: "lobby-status", role: "status" });
    this.account = h("section", { id: "account", class: "account", "aria-labelledby": "account-heading" });
    this.updated = h("p", { class: "updated" });
    this.tbody = h("tbody");
    this.noTables = h("p", { class: "empty", hidden: true }, "No tables are open right now.");
    const tables = h(
      "section",
      { id: "tables", class: "tables-section", "aria-labelledby": "tables-heading" },
      h("h2", { id: "tables-heading" }, "Tables"),
      this.updated,
      h(
        "table",
        { class: "lobby-tables" },
        h("caption", { class: "sr-only" }, "Ring tables: game, stakes, seats taken, pace, and how to join"),
        h(
          "thead",
          {},
          h(
            "tr",
            {},
            h("th", { scope: "col" }, "Table"),
            h("th", { scope: "col" }, "Game"),
            h("th", { scope: "col" }, "Stakes"),
            h("th", { scope: "col" }, "Seats"),
            h("th", { scope: "col" }, h("abbr", { title: "hands per hour" }, "Hands/h")),
            h("th", { scope: "col" }, "Join"),
          ),
        ),
        this.tbody,
      ),
      this.noTables,
    );
    this.tournamentsBody = h("div", { class: "tournament-list" }, h("p", { class: "empty" }, "Loading…"));
    this.tournaments = h(
      "section",
      { id: "tournaments", class: "tournaments", "aria-labelledby": "tournaments-heading" },
      h("h2", { id: "tournaments-heading" }, "Tournaments"),
      this.tournamentsBody,
    );
    this.root = h(
      "div",
      { class: "lobby", "aria-live": "off" },
      h("h1", { class: "sr-only" }, "Lobby"),
      this.problem,
      this.account,
      tables,
      this.tournaments,
    );
    this.app.replaceChildren(this.root);
    this.renderAccount();
    void this.refresh();
  }

  close(): void {
    this.alive = false;
    window.clearTimeout(this.timer);
    this.abort.abort();
  }

  // ---- refresh

  /** Load the lobby now.  A load already under way may predate what the caller
   * just changed (a sit-down, a stand-up), so this one starts after it. */
  private async refresh(): Promise<void> {
    while (this.refreshing) await this.refreshing;
    if (!this.alive) return;
    window.clearTimeout(this.timer);
    this.refreshing = this.load()
      .catch((error: unknown) => setText(this.problem, explain(error)))
      .finally(() => {
        this.refreshing = null;
        if (this.alive) {
          window.clearTimeout(this.timer);
          this.timer = window.setTimeout(() => void this.refresh(), REFRESH_MS);
        }
      });
    return this.refreshing;
  }

  private async load(): Promise<void> {
    const signal = this.abort.signal;
    const who = me();
    const [tables, mine, tournaments] = await Promise.allSettled([
      room.listTables({}, { signal }),
      who ? room.getMe({}, { signal }) : Promise.resolve(null),
      room.listTournaments({}, { signal }),
    ]);
    if (!this.alive) return;
    const problems: string[] = [];

    if (who && me()?.credential === who.credential) {
      if (mine.status === "fulfilled" && mine.value) {
        this.player = mine.value;
        this.staleCredential = "";
      } else if (mine.status === "rejected") {
        if (refused(mine.reason)) this.staleCredential = explain(mine.reason);
        else problems.push(explain(mine.reason));
      }
      this.renderAccount();
    }

    if (tables.status === "fulfilled") {
      const now = performance.now();
      const ring = tables.value.tables.filter((t) => !t.tournamentId);
      for (const t of ring) pace.see(t.tableId, t.handsPlayed, now);
      this.renderTables(ring);
      setText(this.updated, `Updated at ${new Date().toLocaleTimeString()}; every ${REFRESH_MS / 1000} s.`);
    } else {
      problems.push(explain(tables.reason));
    }

    if (tournaments.status === "fulfilled") {
      this.renderTournaments(tournaments.value.tournaments);
    } else {
      problems.push(explain(tournaments.reason));
    }
    setText(this.problem, [...new Set(problems)].join(" "));
  }

  // ---- the account: register, or who is signed in

  private renderAccount(): void {
    const who = me();
    const mode = who ? "signed-in" : "signed-out";
    if (this.account.dataset.mode !== mode) {
      this.account.dataset.mode = mode;
      this.account.replaceChildren(...(who ? this.signedIn() : this.registerForm()));
    }
    if (!who) return;
    const name = this.player?.name || who.name;
    setText(this.account.querySelector("#player-name") as HTMLElement, name);
    for (const [id, amount] of [
      ["balance", this.player?.balance],
      ["at-tables", this.player?.atTables],
    ] as const) {
      const el = this.account.querySelector(`#${id}`) as HTMLElement;
      setText(el, amount === undefined ? "…" : chips(amount));
      setAttr(el, "data-chips", amount === undefined ? null : amount.toString());
    }
    const stale = this.account.querySelector(".account-alert") as HTMLElement;
    setText(
      stale,
      this.staleCredential
        ? `The room does not accept this browser's credential any more (${this.staleCredential}). Sign out and register again.`
        : "",
    );
  }

  private registerForm(): Node[] {
    const input = h("input", {
      id: "name",
      name: "name",
      type: "text",
      required: true,
      maxlength: NAME_MAX,
      autocomplete: "nickname",
      spellcheck: "false",
      "aria-describedby": "name-hint",
    });
    const alert = h("p", { id: "register-alert", class: "lobby-alert", role: "alert" });
    const button = h("button", { type: "submit" }, "Register");
    const form = h(
      "form",
      { id: "register", class: "register", novalidate: true },
      h("label", { for: "name" }, "Your name"),
      h("div", { class: "inline" }, input, button),
      h("p", { id: "name-hint", class: "hint" }, `1 to ${NAME_MAX} characters, shown to the players at your tables.`),
      alert,
    );
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      void this.register(input, button, alert);
    });
    return [
      h("h2", { id: "account-heading", tabindex: -1 }, "Join the room"),
      h("p", {}, "Register with a name to get play money and sit down. Watching a table needs no account."),
      form,
    ];
  }

  private signedIn(): Node[] {
    const signOut = h("button", { type: "button", "data-action": "sign-out" }, "Sign out");
    signOut.addEventListener("click", () => this.signOut());
    return [
      h("h2", { id: "account-heading", tabindex: -1 }, "Your account"),
      h(
        "dl",
        { class: "account-facts" },
        h("div", {}, h("dt", {}, "Signed in as"), h("dd", {}, h("strong", { id: "player-name" }))),
        h("div", {}, h("dt", {}, "Balance"), h("dd", { id: "balance", class: "chips" })),
        h("div", {}, h("dt", {}, "Chips at tables"), h("dd", { id: "at-tables", class: "chips" })),
      ),
      h("p", { class: "hint" }, "This browser keeps your sign-in; signing out forgets it (you cannot sign back in)."),
      signOut,
      h("p", { class: "lobby-alert account-alert", role: "alert" }),
    ];
  }

  private async register(input: HTMLInputElement, button: HTMLButtonElement, alert: HTMLElement): Promise<void> {
    const name = input.value.trim();
    setText(alert, "");
    if (name.length < 1 || name.length > NAME_MAX) {
      setText(alert, `Enter a name of 1 to ${NAME_MAX} characters.`);
      input.setAttribute("aria-invalid", "true");
      input.focus();
      return;
    }
    button.disabled = true;
    try {
      const made = await room.register({ name }, { signal: this.abort.signal });
      if (!this.alive) return;
      remember(made.credential, made.player?.name ?? name);
      this.player = made.player ?? null;
      this.staleCredential = "";
      this.renderAccount();
      showWho();
      for (const row of this.rows.values()) this.renderSit(row);
      (this.account.querySelector("#account-heading") as HTMLElement).focus();
      void this.refresh();
    } catch (error) {
      if (!this.alive) return;
      setText(alert, `Not registered: ${explain(error)}`);
      input.setAttribute("aria-invalid", "true");
      input.focus();
    } finally {
      button.disabled = false;
    }
  }

  private signOut(): void {
    forget();
    this.player = null;
    this.staleCredential = "";
    this.renderAccount();
    showWho();
    for (const row of this.rows.values()) this.renderSit(row);
    (this.account.querySelector("#name") as HTMLElement).focus();
  }

  // ---- the tables

  private renderTables(tables: Table[]): void {
    const ordered = [...tables].sort(
      (a, b) => a.name.localeCompare(b.name) || a.tableId.localeCompare(b.tableId),
    );
    const seen = new Set<string>();
    let previous: HTMLTableRowElement | null = null;
    for (const table of ordered) {
      seen.add(table.tableId);
      let row = this.rows.get(table.tableId);
      if (!row) {
        row = this.newRow(table);
        this.rows.set(table.tableId, row);
      }
      row.table = table;
      this.updateRow(row);
      // Move a row only when it is out of place: moving it would take the focus away.
      const expected: Element | null = previous ? previous.nextElementSibling : this.tbody.firstElementChild;
      if (expected !== row.tr) {
        if (previous) previous.after(row.tr);
        else this.tbody.prepend(row.tr);
      }
      previous = row.tr;
    }
    for (const [id, row] of this.rows) {
      if (!seen.has(id)) {
        row.tr.remove();
        this.rows.delete(id);
        pace.forget(id);
      }
    }
    this.noTables.hidden = ordered.length > 0;
  }

  private newRow(table: Table): Row {
    const tableId = table.tableId;
    const name = h("span");
    const game = h("td", { class: "game", "data-label": "Game" });
    const stakesCell = h("td", { class: "stakes", "data-label": "Stakes" });
    const seatsText = h("span", { class: "count" });
    const seats = h("td", { class: "seats", "data-label": "Seats" }, seatsText);
    const perHour = h("td", { class: "hands-per-hour", "data-label": "Hands/hour" }, "—");
    const href = (page: string) => `#/${page}/${encodeURIComponent(tableId)}`;
    const watch = h("a", { href: href("watch"), class: "button-link", "data-action": "watch" }, "Watch");
    const play = h("a", { href: href("table"), class: "button-link primary", "data-action": "play", hidden: true }, "Play");
    const sit = h("div", { class: "sit-area" });
    const alert = h("p", { class: "lobby-alert", role: "alert", id: uniqueId("sit-alert") });
    const status = h("p", { class: "lobby-note", role: "status" });
    const tr = h(
      "tr",
      { "data-table-id": tableId },
      h("th", { scope: "row", class: "table-name" }, name),
      game,
      stakesCell,
      seats,
      perHour,
      h(
        "td",
        { class: "join", "data-label": "Join" },
        h("div", { class: "join-line" }, h("div", { class: "links" }, watch, play), sit),
        alert,
        status,
      ),
    );
    const row: Row = {
      tr, name, game, stakes: stakesCell, seats, seatsText, perHour, play, sit, alert, status,
      mode: null, modeKey: "", form: null, table,
    };
    // The links and buttons name their table for screen readers ("Watch Web Stud").
    watch.append(srOnly(` ${table.name}`));
    play.append(srOnly(` at ${table.name}`));
    return row;
  }

  private updateRow(row: Row): void {
    const t = row.table;
    setText(row.name, t.name);
    setText(row.game, gameName(t.config));
    setAttr(row.game, "data-game", Game[t.config?.game ?? Game.UNSPECIFIED] ?? null);
    setText(row.stakes, stakes(t.config));
    const taken = t.occupied.length;
    setText(row.seatsText, `${taken}/${t.seats}`);
    setAttr(row.seats, "data-taken", String(taken));
    setAttr(row.seats, "data-seats", String(t.seats));
    setAttr(row.seats, "title", occupants(t.occupied));
    const measured = pace.perHour(t.tableId);
    setText(row.perHour, measured ? String(measured.rate) : "—");
    setAttr(
      row.perHour,
      "title",
      measured ? `measured over the last ${measured.seconds} s` : "measuring: shown after the next refresh",
    );
    this.renderSit(row);
  }

  /** The Join cell below the links: the sit-down form, the player's seat, or a note. */
  private renderSit(row: Row): void {
    const t = row.table;
    const who = me();
    const mine = who ? t.occupied.find((s) => s.playerId === who.playerId) : undefined;
    let mode: SitMode;
    if (!who) mode = "signed-out";
    else if (mine) mode = "seated";
    else if (t.occupied.length >= t.seats) mode = "full";
    else mode = "form";
    row.play.hidden = mode !== "seated";
    const key = mode === "seated" && mine ? `seated:${mine.seat}:${mine.stack}:${mine.sittingOut}` : mode;
    if (key !== row.modeKey) {
      row.modeKey = key;
      if (row.mode !== mode) {
        setText(row.alert, "");
        row.form = null;
      }
      row.mode = mode;
      if (mode === "signed-out") {
        row.sit.replaceChildren(h("p", { class: "lobby-note" }, "Register above to sit down."));
      } else if (mode === "full") {
        row.sit.replaceChildren(h("p", { class: "lobby-note" }, "Every seat is taken."));
      } else if (mode === "seated" && mine) {
        row.sit.replaceChildren(...this.seatedView(row, mine));
      } else if (mode === "form" && !row.form) {
        row.form = this.sitForm(row);
        row.sit.replaceChildren(row.form.form);
      }
    }
    if (row.form) this.boundSitForm(row, row.form);
  }

  private seatedView(row: Row, seat: SeatInfo): Node[] {
    const stand = h("button", { type: "button", "data-action": "stand" }, "Stand up", srOnly(` from ${row.table.name}`));
    stand.addEventListener("click", () => void this.standUp(row, stand));
    const state = seat.sittingOut ? " (sitting out)" : "";
    return [
      h("p", { class: "lobby-note seated" }, `You sit in seat ${seat.seat} with ${chips(seat.stack)} chips${state}.`),
      stand,
    ];
  }

  private sitForm(row: Row): SitForm {
    const id = uniqueId("buy-in");
    const hintId = `${id}-hint`;
    const input = h("input", {
      id,
      name: "buy-in",
      type: "number",
      inputmode: "numeric",
      step: 1,
      required: true,
      "aria-describedby": `${hintId} ${row.alert.id}`,
    });
    input.value = row.table.minBuyIn.toString();
    const button = h("button", { type: "submit", "data-action": "sit" }, "Sit down", srOnly(` at ${row.table.name}`));
    const hint = h("p", { id: hintId, class: "hint" });
    // The room judges the buy-in (its refusal says what is allowed): the browser's
    // own validation would stop the form before the room could say it.
    const form = h(
      "form",
      { class: "sit", novalidate: true },
      h("div", { class: "inline" }, h("label", { for: id }, "Buy-in", srOnly(` at ${row.table.name}`)), input, button),
      hint,
    );
    input.addEventListener("input", () => {
      input.removeAttribute("aria-invalid");
      setText(row.alert, "");
    });
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      void this.sitDown(row, { form, input, button, hint });
    });
    return { form, input, button, hint };
  }

  /** The input's bounds: the table's minimum, the player's balance, the table's maximum. */
  private boundSitForm(row: Row, sit: SitForm): void {
    const t = row.table;
    const balance = this.player?.balance;
    let most: bigint | undefined = balance;
    if (t.maxBuyIn > 0n && (most === undefined || t.maxBuyIn < most)) most = t.maxBuyIn;
    setAttr(sit.input, "min", t.minBuyIn.toString());
    setAttr(sit.input, "max", most !== undefined && most >= t.minBuyIn ? most.toString() : null);
    const parts = [`Minimum ${chips(t.minBuyIn)}`];
    if (t.maxBuyIn > 0n) parts.push(`maximum ${chips(t.maxBuyIn)}`);
    parts.push(balance === undefined ? "your balance …" : `your balance ${chips(balance)}`);
    setText(sit.hint, parts.join(" · "));
    if (balance !== undefined && balance < t.minBuyIn) {
      setText(sit.hint, `${sit.hint.textContent}: short of the minimum`);
    }
  }

  private async sitDown(row: Row, sit: SitForm): Promise<void> {
    const t = row.table;
    setText(row.alert, "");
    setText(row.status, "");
    const text = sit.input.value.trim();
    if (!/^\d{1,18}$/.test(text)) {
      setText(row.alert, `Enter the buy-in as a whole number of chips, at least ${chips(t.minBuyIn)}.`);
      sit.input.setAttribute("aria-invalid", "true");
      sit.input.focus();
      return;
    }
    sit.button.disabled = true;
    sit.form.setAttribute("aria-busy", "true");
    try {
      await room.sitDown({ tableId: t.tableId, seat: 0, buyIn: BigInt(text) }, { signal: this.abort.signal });
      if (!this.alive) return;
      location.hash = `#/table/${encodeURIComponent(t.tableId)}`;
    } catch (error) {
      if (!this.alive) return;
      setText(row.alert, `Not seated: ${explain(error)}`);
      sit.input.setAttribute("aria-invalid", "true");
      sit.input.focus();
      void this.refresh();
    } finally {
      sit.button.disabled = false;
      sit.form.removeAttribute("aria-busy");
    }
  }

  private async standUp(row: Row, button: HTMLButtonElement): Promise<void> {
    setText(row.alert, "");
    button.disabled = true;
    try {
      const left = await room.standUp({ tableId: row.table.tableId }, { signal: this.abort.signal });
      if (!this.alive) return;
      setText(
        row.status,
        left.pending
          ? "You leave this table when the hand in progress ends; your chips return to your balance then."
          : `You left the table: ${chips(left.returned)} chips back to your balance.`,
      );
      await this.refresh();
      if (row.form) row.form.input.focus();
    } catch (error) {
      if (!this.alive) return;
      setText(row.alert, `Still seated: ${explain(error)}`);
    } finally {
      button.disabled = false;
    }
  }

  // ---- tournaments

  private renderTournaments(list: Tournament[]): void {
    // Rebuilt only when something shown changed (a focused link survives a refresh).
    const key = JSON.stringify(
      list.map((t) => [
        t.tournamentId, t.name, gameName(t.config), tournamentState(t), t.entries, t.playersLeft,
        t.buyIn.toString(), t.fee.toString(), t.prizePool.toString(), levelStakes(t.config, t.stakes ?? t.schedule.find((l) => !l.isBreak)),
        t.tables.filter((x) => !x.broken).map((x) => x.tableId),
      ]),
    );
    if (key === this.tournamentsKey) return;
    this.tournamentsKey = key;
    if (list.length === 0) {
      this.tournamentsBody.replaceChildren(
        h("p", { class: "empty" }, "No tournaments right now. They are listed here once the room schedules one."),
      );
      return;
    }
    const rows = list.map((t) => {
      const tables = t.tables.filter((x) => !x.broken);
      return h(
        "tr",
        { "data-tournament-id": t.tournamentId },
        h("th", { scope: "row", class: "tournament-name" }, t.name),
        h("td", { class: "game", "data-label": "Game" }, gameName(t.config)),
        h("td", { class: "state", "data-label": "State" }, tournamentState(t)),
        h(
          "td",
          { class: "entries", "data-label": "Players" },
          t.status === TournamentStatus.REGISTERING ? `${t.entries} entered` : `${t.playersLeft} of ${t.entries} left`,
        ),
        h(
          "td",
          { class: "buy-in", "data-label": "Buy-in" },
          `${chips(t.buyIn)} + ${chips(t.fee)} fee · prize pool ${chips(t.prizePool)}`,
        ),
        h("td", { class: "stakes", "data-label": "Stakes" }, levelStakes(t.config, t.stakes ?? t.schedule.find((l) => !l.isBreak)) || "—"),
        h(
          "td",
          { class: "join", "data-label": "Tables" },
          ...(tables.length
            ? tables.map((x, i) =>
                h(
                  "a",
                  { href: `#/watch/${encodeURIComponent(x.tableId)}`, class: "button-link", "data-action": "watch" },
                  `Watch table ${i + 1}`,
                  srOnly(` of ${t.name}`),
                ),
              )
            : ["—"]),
        ),
      );
    });
    this.tournamentsBody.replaceChildren(
      h(
        "table",
        { class: "lobby-tournaments" },
        h("caption", { class: "sr-only" }, "Tournaments and their state"),
        h(
          "thead",
          {},
          h(
            "tr",
            {},
            ...["Tournament", "Game", "State", "Players", "Buy-in", "Stakes", "Tables"].map((label) =>
              h("th", { scope: "col" }, label),
            ),
          ),
        ),
        h("tbody", {}, ...rows),
      ),
    );
  }
}

/** The header's "Signed in as" (main.ts writes it on each route; sign-in and
 * sign-out happen within the lobby). */
function showWho(): void {
  const who = me();
  const el = document.getElementById("me");
  if (el) el.textContent = who ? `Signed in as ${who.name}` : "";
}

/** The room refuses the credential itself (not a passing failure). */
function refused(error: unknown): boolean {
  return (
    error instanceof ConnectError &&
    (error.code === Code.Unauthenticated || error.code === Code.PermissionDenied || error.code === Code.NotFound)
  );
}

function occupants(seats: SeatInfo[]): string {
  if (seats.length === 0) return "nobody seated";
  return [...seats]
    .sort((a, b) => a.seat - b.seat)
    .map((s) => `seat ${s.seat}: ${s.name} (${chips(s.stack)})`)
    .join(", ");
}
