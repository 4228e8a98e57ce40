// The lobby's words and numbers: game names, stakes, a table's pace.  Pure
// functions (no DOM), so the page and its tests agree on one spelling.
import { chips } from "./cards";
import { Game, Structure, type GameConfig } from "./gen/poker/common/v1/common_pb";
import { TournamentStatus, type Tournament, type TournamentLevel } from "./gen/poker/lobby/v1/tournament_pb";

const GAMES: Record<number, string> = {
  [Game.STUD]: "Seven Card Stud",
  [Game.STUD_HILO]: "Stud Hi-Lo",
  [Game.DRAW_7A]: "7-A Draw",
};

const STRUCTURES: Record<number, string> = {
  [Structure.UNSPECIFIED]: "fixed limit",
  [Structure.FIXED_LIMIT]: "fixed limit",
  [Structure.POT_LIMIT]: "pot limit",
  [Structure.NO_LIMIT]: "no limit",
};

function isDraw(config: GameConfig | undefined): boolean {
  return config?.game === Game.DRAW_7A;
}

/** "Seven Card Stud", "Stud Hi-Lo", "7-A Draw, no limit" (the stud games are
 * always fixed limit, S1; a draw table's structure is its own, D2). */
export function gameName(config: GameConfig | undefined): string {
  const game = GAMES[config?.game ?? Game.UNSPECIFIED] ?? "Unknown game";
  return isDraw(config) ? `${game}, ${STRUCTURES[config?.structure ?? 0] ?? "fixed limit"}` : game;
}

/** The stakes a player pays: stud's ante, bring-in and small/big bets; draw's
 * blinds (the small blind is the small bet halved, the big blind the small bet,
 * D3), its ante if any, and the fixed-limit bets. */
export function stakes(config: GameConfig | undefined): string {
  if (!config) return "";
  const parts: string[] = [];
  if (isDraw(config)) {
    parts.push(`blinds ${chips(config.smallBet / 2n)}/${chips(config.smallBet)}`);
    if (config.ante > 0n) parts.push(`ante ${chips(config.ante)}`);
    if (config.structure === Structure.UNSPECIFIED || config.structure === Structure.FIXED_LIMIT) {
      parts.push(`bets ${chips(config.smallBet)}/${chips(config.bigBet)}`);
    }
  } else {
    if (config.ante > 0n) parts.push(`ante ${chips(config.ante)}`);
    parts.push(`bring-in ${chips(config.bringIn)}`);
    parts.push(`bets ${chips(config.smallBet)}/${chips(config.bigBet)}`);
  }
  return parts.join(" · ");
}

/** A tournament level's stakes, in the same words as a table's. */
export function levelStakes(config: GameConfig | undefined, level: TournamentLevel | undefined): string {
  if (!level) return "";
  if (level.isBreak) return "break";
  if (isDraw(config)) {
    const blinds = `blinds ${chips(level.smallBlind)}/${chips(level.bigBlind)}`;
    return level.ante > 0n ? `${blinds} · ante ${chips(level.ante)}` : blinds;
  }
  const parts: string[] = [];
  if (level.ante > 0n) parts.push(`ante ${chips(level.ante)}`);
  parts.push(`bring-in ${chips(level.bringIn)}`, `bets ${chips(level.smallBet)}/${chips(level.bigBet)}`);
  return parts.join(" · ");
}

/** "Registering", "Running, level 3", "On break", "Finished". */
export function tournamentState(t: Tournament): string {
  switch (t.status) {
    case TournamentStatus.REGISTERING:
      return "Registering";
    case TournamentStatus.RUNNING:
      if (t.onBreak) return `On break after level ${t.level}`;
      return t.registrationOpen ? `Running, level ${t.level}, late registration open` : `Running, level ${t.level}`;
    case TournamentStatus.FINISHED:
      return "Finished";
    default:
      return "Unknown";
  }
}

// ---- hands per hour, measured on the page

interface Sample {
  at: number; // performance.now(), ms
  hands: bigint;
}

/** How long a table's samples are kept: the rate is over at most this window. */
const WINDOW_MS = 10 * 60_000;
/** The shortest span a rate is computed over (two refreshes, 5 s apart, qualify). */
const SHORTEST_MS = 4_000;

/** Hands per hour of each table, from its hands_played as seen at each refresh
 * (the API gives a count, not a pace).  Kept for the page's life, so the lobby
 * shows a rate at once when a person comes back to it. */
export class Pace {
  private samples = new Map<string, Sample[]>();

  /** Record a table's count now. */
  see(tableId: string, hands: bigint, at: number = performance.now()): void {
    let list = this.samples.get(tableId);
    const last = list?.[list.length - 1];
    if (!list || (last && hands < last.hands)) {
      list = []; // new, or its count went back: start again
      this.samples.set(tableId, list);
    }
    list.push({ at, hands });
    while (list.length > 2 && at - (list[0] as Sample).at > WINDOW_MS) list.shift();
  }

  /** Hands per hour over the samples kept, or null until measured. */
  perHour(tableId: string): { rate: number; seconds: number } | null {
    const list = this.samples.get(tableId);
    if (!list || list.length < 2) return null;
    const first = list[0] as Sample;
    const last = list[list.length - 1] as Sample;
    const span = last.at - first.at;
    if (span < SHORTEST_MS) return null;
    // A count of hands (not money): a Number is exact far beyond any table's life.
    const rate = (Number(last.hands - first.hands) * 3_600_000) / span;
    return { rate: Math.round(rate), seconds: Math.round(span / 1000) };
  }

  forget(tableId: string): void {
    this.samples.delete(tableId);
  }
}
