import type { MemoryCard } from "../store/card-view";
import { countJoinedLines, countLineTokens, countTokens, truncateToTokens } from "~/server/text/token-count";

/**
 * The prompt block of automatic recall, built under a token budget. Items are taken in priority
 * order — what must never be forgotten first — and rendered in reading order. Each line is counted
 * with its line break, which adds up to the finished block's exact count (countJoinedLines; the
 * block is counted whole in the rare case where it would not), and the block is trimmed from the
 * lowest priority until it fits, so the budget holds exactly.
 */

export type SectionName =
  | "alwaysRecalled"
  | "profile"
  | "constraints"
  | "activeTasks"
  | "relevant"
  | "summary"
  | "preferences"
  | "facts"
  | "recent";

/** Priority for the budget (first = kept longest). */
export const SECTION_PRIORITY: readonly SectionName[] = [
  "alwaysRecalled",
  "constraints",
  "activeTasks",
  "relevant",
  "summary",
  "profile",
  "preferences",
  "facts",
  "recent",
];
/** Order in the prompt. */
const SECTION_ORDER: readonly SectionName[] = [
  "alwaysRecalled",
  "profile",
  "constraints",
  "activeTasks",
  "preferences",
  "facts",
  "relevant",
  "summary",
  "recent",
];
const HEADINGS: Record<SectionName, string> = {
  alwaysRecalled: "Always apply:",
  profile: "About the user:",
  constraints: "Constraints:",
  activeTasks: "Active tasks:",
  preferences: "Preferences:",
  facts: "Decisions and facts:",
  relevant: "Relevant memories:",
  summary: "Summary of this session so far:",
  recent: "Recent messages (oldest first):",
};
const OPEN = "<memory>";
const CLOSE = "</memory>";
/** No single card or message may take more than this share of the budget. */
const MAX_ITEM_SHARE = 0.25;

export type ContextItem = { section: SectionName; id: string; text: string; card?: MemoryCard; order: number };

export const cardLine = (card: MemoryCard) => {
  const scope = card.scope === "global" ? "global" : card.scope.split(":")[0];
  return `- [${card.id}] (${scope}) ${card.title}: ${card.content}`;
};
export const messageLine = (message: { id: string; role: string; content: string }) =>
  `- [${message.id}] ${message.role}: ${message.content}`;

/** The block's lines, in reading order (none when there is nothing to recall). */
function contextLines(items: readonly ContextItem[]): string[] {
  if (items.length === 0) return [];
  const lines: string[] = [OPEN];
  for (const section of SECTION_ORDER) {
    const inSection = items.filter((item) => item.section === section).sort((a, b) => a.order - b.order);
    if (inSection.length === 0) continue;
    lines.push(HEADINGS[section], ...inSection.map((item) => item.text));
  }
  lines.push(CLOSE);
  return lines;
}

/**
 * Shares of the budget kept for the turn-specific sections while the standing ones (always-recalled,
 * profile, constraints, tasks, preferences, decisions and facts) are placed: fifty open tasks must not crowd out the cards that
 * answer what the user just asked. What a section does not need is given back.
 */
const SECTION_RESERVE: Partial<Record<SectionName, number>> = { relevant: 0.3, summary: 0.1, recent: 0.15 };

/** Said at the end of a card cut to fit: the model knows it read part of the card, and how to read the rest. */
const CUT_NOTE = " (cut; memory_get for all)";
const CUT_NOTE_TOKENS = countTokens(CUT_NOTE);

/**
 * `item` cut to `limit` tokens (with its line break), or "" when what would be left says too little:
 * 24 tokens (or half of it, when that is less; never under 13). A card cut to its id and a title fragment was listed as recalled
 * while the model read nothing of it; a card keeps its id and says it was cut.
 */
function cutItem(item: ContextItem, whole: number, limit: number): string {
  const room = limit - 1 - (item.card ? CUT_NOTE_TOKENS : 0);
  if (room < Math.max(13, Math.min(Math.ceil(whole / 2), 24))) return "";
  return item.card ? `${truncateToTokens(item.text, room)}${CUT_NOTE}` : truncateToTokens(item.text, room);
}

/**
 * Chooses items under `budget` tokens. `candidates` come in priority order within each section;
 * an item too long for the room left is cut to fit when at least a few tokens remain. A first pass
 * keeps each turn-specific section's reserve free from the sections ranked above it; a second pass
 * fills what is left in plain priority order.
 */
export function selectWithinBudget(
  candidates: readonly ContextItem[],
  budget: number,
): { items: ContextItem[]; prompt: string; tokens: number; dropped: ContextItem[] } {
  const maxItem = Math.max(16, Math.floor(budget * MAX_ITEM_SHARE));
  const overhead = countLineTokens(OPEN) + countTokens(CLOSE);
  const headingCost = (section: SectionName) => countLineTokens(HEADINGS[section]);
  const ordered = SECTION_PRIORITY.flatMap((section) => candidates.filter((c) => c.section === section));
  // Tokens each reserved section would use, up to its reserve.
  const reserveLeft = new Map<SectionName, number>();
  for (const [section, share] of Object.entries(SECTION_RESERVE) as [SectionName, number][]) {
    const items = ordered.filter((c) => c.section === section);
    if (items.length === 0) continue;
    const wanted = headingCost(section) + items.reduce((sum, c) => sum + Math.min(countLineTokens(c.text), maxItem), 0);
    reserveLeft.set(section, Math.min(wanted, Math.floor(budget * share)));
  }
  const protectedBelow = (section: SectionName) => {
    const rank = SECTION_PRIORITY.indexOf(section);
    let sum = 0;
    for (const [other, tokens] of reserveLeft) if (SECTION_PRIORITY.indexOf(other) > rank) sum += tokens;
    return sum;
  };

  const chosen = new Map<ContextItem, string>();
  const opened = new Set<SectionName>();
  let used = overhead;
  const place = (item: ContextItem, protect: number): boolean => {
    const heading = opened.has(item.section) ? 0 : headingCost(item.section);
    const room = budget - used - heading - protect;
    const limit = Math.min(room, item.section === "summary" ? Math.floor(budget / 3) : maxItem);
    // Line costs include the line break; a cut text gets one token less than the limit for it.
    const whole = limit > 0 ? countLineTokens(item.text) : Infinity;
    const text = whole <= limit ? item.text : cutItem(item, whole, limit);
    if (!text) return false;
    chosen.set(item, text);
    opened.add(item.section);
    const cost = heading + (text === item.text ? whole : countLineTokens(text));
    used += cost;
    const reserve = reserveLeft.get(item.section);
    if (reserve !== undefined) reserveLeft.set(item.section, Math.max(0, reserve - cost));
    return true;
  };
  const deferred = ordered.filter((item) => !place(item, protectedBelow(item.section)));
  for (const section of reserveLeft.keys()) reserveLeft.set(section, 0);
  const dropped = deferred.filter((item) => !place(item, 0));

  // Rendered and trimmed in priority order: the exact count of the finished block decides; drop from
  // the lowest priority until it fits.
  const picked = ordered.filter((item) => chosen.has(item));
  const asChosen = (items: readonly ContextItem[]) =>
    items.map((item): ContextItem => ({
      section: item.section,
      id: item.id,
      text: chosen.get(item)!,
      card: item.card,
      order: item.order,
    }));
  let lines = contextLines(asChosen(picked));
  let tokens = countJoinedLines(lines);
  while (tokens > budget && picked.length > 0) {
    dropped.push(picked.pop()!);
    lines = contextLines(asChosen(picked));
    tokens = countJoinedLines(lines);
  }
  return { items: asChosen(picked), prompt: lines.join("\n"), tokens, dropped };
}
