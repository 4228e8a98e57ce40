// Cards as the room writes them ("As", "Td", "7h") and as the page shows them.
const SUITS: Record<string, { symbol: string; name: string; red: boolean }> = {
  s: { symbol: "♠", name: "spades", red: false },
  h: { symbol: "♥", name: "hearts", red: true },
  d: { symbol: "♦", name: "diamonds", red: true },
  c: { symbol: "♣", name: "clubs", red: false },
};
const RANKS: Record<string, string> = {
  A: "ace", K: "king", Q: "queen", J: "jack", T: "ten", "9": "nine", "8": "eight",
  "7": "seven", "6": "six", "5": "five", "4": "four", "3": "three", "2": "two",
};

/** A card element: rank and suit symbol, with the card's name for screen readers. */
export function cardElement(card: string): HTMLElement {
  const el = document.createElement("span");
  const suit = SUITS[card[1] ?? ""];
  el.className = `card${suit?.red ? " red" : ""}`;
  el.dataset.card = card;
  el.textContent = `${card[0] === "T" ? "10" : card[0]}${suit?.symbol ?? "?"}`;
  el.setAttribute("role", "img");
  el.setAttribute("aria-label", cardName(card));
  return el;
}

/** A face-down card: counted, never named (the page never has its value). */
export function hiddenCard(): HTMLElement {
  const el = document.createElement("span");
  el.className = "card back";
  el.setAttribute("role", "img");
  el.setAttribute("aria-label", "face-down card");
  return el;
}

export function cardName(card: string): string {
  return `${RANKS[card[0] ?? ""] ?? card[0]} of ${SUITS[card[1] ?? ""]?.name ?? card[1]}`;
}

/** Chips: integers, grouped ("12,500"). Money is never a float here either. */
export function chips(amount: bigint | number): string {
  return BigInt(amount).toLocaleString("en-US");
}
