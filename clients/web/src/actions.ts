// The seat's legal actions as controls, built from the YourTurn's menu
// (LegalActions) and nothing else: a button per kind on the menu; the aggressive
// option (complete, bet or raise) with a slider and a number input bounded by the
// menu's min_to and max_to, and the menu's fixed sizes (to_choices) as buttons;
// the draw's discard count (the cards themselves are toggled on the seat, see
// table.ts) bounded by max_discards.  Amounts are bigints: an input's value is a
// string, converted with BigInt, never through a float.
import { create } from "@bufbuild/protobuf";
import { chips } from "./cards";
import { ActionKind, ActionSchema, type Action, type LegalActions } from "./gen/poker/common/v1/common_pb";
import type { YourTurn } from "./gen/poker/table/v1/table_pb";

export const KIND_HOOKS: Partial<Record<ActionKind, string>> = {
  [ActionKind.FOLD]: "fold",
  [ActionKind.CHECK]: "check",
  [ActionKind.CALL]: "call",
  [ActionKind.BRING_IN]: "bring_in",
  [ActionKind.COMPLETE]: "complete",
  [ActionKind.BET]: "bet",
  [ActionKind.RAISE]: "raise",
  [ActionKind.DISCARD]: "discard",
};
const AGGRESSIVE = new Set([ActionKind.COMPLETE, ActionKind.BET, ActionKind.RAISE]);
const VERB: Partial<Record<ActionKind, string>> = {
  [ActionKind.COMPLETE]: "Complete to",
  [ActionKind.BET]: "Bet",
  [ActionKind.RAISE]: "Raise to",
};

/** The kinds on the menu, in menu order (from the flags when `kinds` is empty). */
export function menuKinds(legal: LegalActions): ActionKind[] {
  if (legal.kinds.length) return [...legal.kinds];
  const kinds: ActionKind[] = [];
  if (legal.maxDiscards !== undefined) kinds.push(ActionKind.DISCARD);
  if (legal.canFold) kinds.push(ActionKind.FOLD);
  if (legal.canCheck) kinds.push(ActionKind.CHECK);
  if (legal.callAmount !== undefined) kinds.push(ActionKind.CALL);
  if (legal.bringInAmount !== undefined) kinds.push(ActionKind.BRING_IN);
  if (AGGRESSIVE.has(legal.raiseKind)) kinds.push(legal.raiseKind);
  return kinds;
}

/** The to-amount bounds of the aggressive option. */
export function bounds(legal: LegalActions): [bigint, bigint] {
  const choices = [...legal.toChoices].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const low = legal.minTo ?? choices[0] ?? 0n;
  const high = legal.maxTo ?? choices[choices.length - 1] ?? low;
  return [low, high];
}

/** A whole number of chips from what a person typed, or null. */
export function parseChips(text: string): bigint | null {
  const t = text.trim().replace(/[,_\s]/g, "");
  if (!/^\d{1,18}$/.test(t)) return null;
  return BigInt(t);
}

export interface PanelHooks {
  act(action: Action): void; // send it (the page checks the turn and calls Room.Act)
  selection(): ReadonlySet<string>; // the own cards selected for the draw
  problem(message: string): void; // a mistake the page can explain before sending
}

export interface ActionPanel {
  element: HTMLElement;
  /** Controls for this turn (a new turn replaces them); the seat's stack and
   * its chips already in front this street word "all in". */
  show(turn: YourTurn, stack: bigint, bet: bigint): void;
  /** No turn: no controls. */
  clear(): void;
  /** An action is on its way: controls disabled until the answer. */
  busy(on: boolean): void;
  /** The draw selection changed: the count and the discard button follow. */
  selectionChanged(): void;
  /** The menu's max_discards, when the draw is on the menu now. */
  maxDiscards(): number | null;
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, cls = "", text = ""): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text) e.textContent = text;
  return e;
}

export function actionPanel(hooks: PanelHooks): ActionPanel {
  const element = el("section", "actions");
  element.id = "actions";
  element.setAttribute("aria-label", "Your actions");
  element.hidden = true;
  let legal: LegalActions | null = null;
  let discardButton: HTMLButtonElement | null = null;
  let discardCount: HTMLElement | null = null;

  function button(kind: ActionKind, label: string, aria?: string): HTMLButtonElement {
    const b = el("button", `act act-${KIND_HOOKS[kind] ?? "other"}`, label);
    b.type = "button";
    b.dataset.action = KIND_HOOKS[kind] ?? String(kind);
    if (aria) b.setAttribute("aria-label", aria);
    return b;
  }

  function aggressive(menu: LegalActions, stack: bigint, bet: bigint): HTMLElement {
    const kind = menu.raiseKind;
    const [low, high] = bounds(menu);
    const choices = [...menu.toChoices];
    const verb = VERB[kind] ?? "Raise to";
    const group = el("div", "amount");
    group.setAttribute("role", "group");
    group.setAttribute("aria-label", `${verb} an amount from ${chips(low)} to ${chips(high)}`);

    const label = el("label", "amount-label", verb);
    label.htmlFor = "amount";
    const slider = el("input");
    slider.type = "range";
    slider.id = "amount-slider";
    slider.min = low.toString();
    slider.max = high.toString();
    slider.step = choices.length === 2 && high > low ? (high - low).toString() : "1";
    slider.value = low.toString();
    slider.setAttribute("aria-label", `${verb}: slider from ${chips(low)} to ${chips(high)}`);
    const number = el("input");
    number.type = "number";
    number.id = "amount";
    number.min = low.toString();
    number.max = high.toString();
    number.step = "1";
    number.inputMode = "numeric";
    number.value = low.toString();
    number.setAttribute("aria-describedby", "amount-range");
    const range = el("span", "amount-range");
    range.id = "amount-range";
    range.textContent = `from ${chips(low)} to ${chips(high)}${stack > 0n && high >= stack + bet ? " (all in)" : ""}`;

    const go = button(kind, "");
    const setLabel = (amount: bigint | null): void => {
      go.textContent = amount === null ? verb : `${verb} ${chips(amount)}`;
      go.dataset.amount = amount === null ? "" : amount.toString();
    };
    setLabel(low);

    const snap = (amount: bigint): bigint => {
      let a = amount < low ? low : amount > high ? high : amount;
      if (choices.length) {
        a = choices.reduce((best, c) => {
          const d = c > a ? c - a : a - c;
          const bd = best > a ? best - a : a - best;
          return d < bd || (d === bd && c < best) ? c : best;
        }, choices[0] as bigint);
      }
      return a;
    };
    slider.addEventListener("input", () => {
      const a = snap(BigInt(slider.value));
      number.value = a.toString();
      setLabel(a);
    });
    number.addEventListener("input", () => {
      const a = parseChips(number.value);
      if (a !== null && a >= low && a <= high) slider.value = a.toString();
      setLabel(a);
    });
    number.addEventListener("change", () => {
      const a = parseChips(number.value);
      if (a === null) return;
      const s = snap(a);
      number.value = s.toString();
      slider.value = s.toString();
      setLabel(s);
    });
    number.addEventListener("keydown", (ev) => {
      if (ev.key === "Enter") {
        ev.preventDefault();
        go.click();
      }
    });
    go.addEventListener("click", () => {
      const a = parseChips(number.value);
      if (a === null || a < low || a > high) {
        hooks.problem(`Enter a whole number of chips from ${chips(low)} to ${chips(high)}.`);
        number.focus();
        return;
      }
      if (choices.length && !choices.includes(a)) {
        hooks.problem(`Fixed limit: the amount is one of ${choices.map(chips).join(" or ")}.`);
        number.focus();
        return;
      }
      hooks.act(create(ActionSchema, { kind, amount: a }));
    });

    const sizes = el("div", "sizes");
    sizes.setAttribute("role", "group");
    sizes.setAttribute("aria-label", "Sizes");
    const presets: [string, bigint][] = choices.length
      ? choices.map((c) => [chips(c), c])
      : [
          ["Min", low],
          ["All in", high],
        ];
    for (const [text, amount] of presets) {
      const b = el("button", "size", text);
      b.type = "button";
      b.dataset.to = amount.toString();
      b.setAttribute("aria-label", `Set the amount to ${chips(amount)}`);
      b.addEventListener("click", () => {
        number.value = amount.toString();
        slider.value = amount.toString();
        setLabel(amount);
      });
      sizes.append(b);
    }
    group.append(label, slider, number, range, sizes, go);
    return group;
  }

  function draw(max: number): HTMLElement {
    const box = el("div", "draw");
    box.setAttribute("role", "group");
    box.setAttribute("aria-label", "The draw");
    const hint = el("p", "hint", `Select up to ${max} of your cards to throw away (click or Enter/Space on a card), then draw.`);
    discardCount = el("p", "discard-count");
    discardCount.id = "discard-count";
    discardCount.setAttribute("aria-live", "polite");
    discardButton = button(ActionKind.DISCARD, "Stand pat");
    discardButton.addEventListener("click", () => {
      const cards = [...hooks.selection()];
      if (cards.length > max) {
        hooks.problem(`At most ${max} cards may be thrown away.`);
        return;
      }
      hooks.act(create(ActionSchema, { kind: ActionKind.DISCARD, cards }));
    });
    box.append(hint, discardCount, discardButton);
    return box;
  }

  function selectionChanged(): void {
    if (!discardCount || !discardButton) return;
    const n = hooks.selection().size;
    const max = legal?.maxDiscards ?? 0;
    discardCount.dataset.count = String(n);
    discardCount.textContent =
      n === 0 ? `No card selected: you stand pat (at most ${max})` : `${n} card${n === 1 ? "" : "s"} selected to discard (at most ${max})`;
    discardButton.textContent = n === 0 ? "Stand pat" : `Discard ${n}, draw ${n}`;
    discardButton.setAttribute("aria-label", n === 0 ? "Stand pat: keep all your cards" : `Discard ${n} and draw ${n}`);
  }

  function show(turn: YourTurn, stack: bigint, bet: bigint): void {
    legal = turn.legal ?? null;
    discardButton = null;
    discardCount = null;
    element.replaceChildren();
    element.hidden = false;
    element.removeAttribute("aria-busy");
    if (!legal) return;
    const heading = el("h2", "actions-title", "Your turn");
    const desc = el("p", "menu", legal.description ? `You may: ${legal.description}.` : "");
    desc.id = "menu-description";
    element.setAttribute("aria-describedby", desc.id);
    const row = el("div", "buttons");
    const parts: HTMLElement[] = [];
    for (const kind of menuKinds(legal)) {
      if (kind === ActionKind.FOLD) {
        const b = button(kind, "Fold");
        b.addEventListener("click", () => hooks.act(create(ActionSchema, { kind })));
        row.append(b);
      } else if (kind === ActionKind.CHECK) {
        const b = button(kind, "Check");
        b.addEventListener("click", () => hooks.act(create(ActionSchema, { kind })));
        row.append(b);
      } else if (kind === ActionKind.CALL) {
        const amount = legal.callAmount ?? 0n;
        const allIn = stack > 0n && amount >= stack;
        const b = button(kind, `Call ${chips(amount)}${allIn ? " (all in)" : ""}`);
        b.dataset.amount = amount.toString();
        b.addEventListener("click", () => hooks.act(create(ActionSchema, { kind })));
        row.append(b);
      } else if (kind === ActionKind.BRING_IN) {
        const amount = legal.bringInAmount ?? 0n;
        const b = button(kind, `Bring in for ${chips(amount)}`);
        b.dataset.amount = amount.toString();
        b.addEventListener("click", () => hooks.act(create(ActionSchema, { kind })));
        row.append(b);
      } else if (AGGRESSIVE.has(kind)) {
        parts.push(aggressive(legal, stack, bet));
      } else if (kind === ActionKind.DISCARD) {
        parts.push(draw(legal.maxDiscards ?? 0));
      }
    }
    element.append(heading, desc, row, ...parts);
    selectionChanged();
  }

  function clear(): void {
    legal = null;
    discardButton = null;
    discardCount = null;
    element.replaceChildren();
    element.hidden = true;
  }

  function busy(on: boolean): void {
    for (const control of element.querySelectorAll<HTMLButtonElement | HTMLInputElement>("button, input")) {
      control.disabled = on;
    }
    if (on) element.setAttribute("aria-busy", "true");
    else element.removeAttribute("aria-busy");
  }

  return {
    element,
    show,
    clear,
    busy,
    selectionChanged,
    maxDiscards: () => (legal && legal.maxDiscards !== undefined && menuKinds(legal).includes(ActionKind.DISCARD) ? legal.maxDiscards : null),
  };
}
