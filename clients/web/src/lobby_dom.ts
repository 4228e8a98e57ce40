// A few DOM helpers for the lobby: elements are built and their text set with
// textContent, never innerHTML (names in the room are what people typed).

type Attributes = Record<string, string | number | boolean | undefined>;
type Child = Node | string | null | undefined | false;

/** `h("td", { class: "game", "data-label": "Game" }, "Seven Card Stud")`.
 * Attributes: `true` sets an empty attribute, `false`/`undefined` leaves it out. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Attributes = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    el.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child); // a string becomes a text node
  }
  return el;
}

/** Text only screen readers read ("Watch" + " Web Stud Hi-Lo"). */
export function srOnly(text: string): HTMLSpanElement {
  return h("span", { class: "sr-only" }, text);
}

/** Set an element's text only when it changed (no needless DOM churn every refresh). */
export function setText(el: Element, text: string): void {
  if (el.textContent !== text) el.textContent = text;
}

export function setAttr(el: Element, name: string, value: string | null): void {
  if (value === null) {
    if (el.hasAttribute(name)) el.removeAttribute(name);
  } else if (el.getAttribute(name) !== value) {
    el.setAttribute(name, value);
  }
}

let counter = 0;
/** A unique id for label/aria-describedby pairs (table ids are the room's, not ours). */
export function uniqueId(prefix: string): string {
  counter += 1;
  return `${prefix}-${counter}`;
}
