import type { MemoryNode } from "../node-view";
import { countTokens, truncateToTokens } from "./token-count";

/**
 * The prompt block of automatic recall, built under a token budget. Items are taken in priority
 * order — what must never be forgotten first — and rendered in reading order; the finished block is
 * counted once more with the real tokenizer and trimmed from the lowest priority until it fits, so
 * the budget holds exactly, whatever the tokenizer does at item boundaries.
 */

export type SectionName = "alwaysRecalled" | "constraints" | "activeTasks" | "relevant" | "summary" | "preferences" | "recent";

/** Priority for the budget (first = kept longest). */
export const SECTION_PRIORITY: readonly SectionName[] = ["alwaysRecalled", "constraints", "activeTasks", "relevant", "summary", "preferences", "recent"];
/** Order in the prompt. */
const SECTION_ORDER: readonly SectionName[] = ["alwaysRecalled", "constraints", "activeTasks", "preferences", "relevant", "summary", "recent"];
const HEADINGS: Record<SectionName, string> = {
  alwaysRecalled: "Always apply:",
  constraints: "Constraints:",
  activeTasks: "Active tasks:",
  preferences: "Preferences:",
  relevant: "Relevant memories:",
  summary: "Summary of this session so far:",
  recent: "Recent messages (oldest first):",
};
const OPEN = "<memory>";
const CLOSE = "</memory>";
/** No single card or message may take more than this share of the budget. */
const MAX_ITEM_SHARE = 0.25;

export type ContextItem = { section: SectionName; id: string; text: string; node?: MemoryNode; order: number };

export const nodeLine = (node: MemoryNode) => {
  const scope = node.scope === "global" ? "global" : node.scope.split(":")[0];
  return `- [${node.id}] (${scope}) ${node.title}: ${node.content}`;
};
export const messageLine = (message: { id: string; role: string; content: string }) => `- [${message.id}] ${message.role}: ${message.content}`;

export function renderContext(items: readonly ContextItem[]): string {
  if (items.length === 0) return "";
  const lines: string[] = [OPEN];
  for (const section of SECTION_ORDER) {
    const inSection = items.filter((item) => item.section === section).sort((a, b) => a.order - b.order);
    if (inSection.length === 0) continue;
    lines.push(HEADINGS[section], ...inSection.map((item) => item.text));
  }
  lines.push(CLOSE);
  return lines.join("\n");
}

/**
 * Chooses items under `budget` tokens. `candidates` come in priority order within each section;
 * an item too long for the room left is cut to fit when at least a few tokens remain.
 */
export function selectWithinBudget(candidates: readonly ContextItem[], budget: number): { items: ContextItem[]; prompt: string; tokens: number; dropped: ContextItem[] } {
  const maxItem = Math.max(16, Math.floor(budget * MAX_ITEM_SHARE));
  const overhead = countTokens(`${OPEN}\n\n${CLOSE}`);
  const headingCost = (section: SectionName) => countTokens(`${HEADINGS[section]}\n`);
  const chosen: ContextItem[] = [];
  const dropped: ContextItem[] = [];
  const opened = new Set<SectionName>();
  let used = overhead;
  const ordered = SECTION_PRIORITY.flatMap((section) => candidates.filter((c) => c.section === section));
  for (const item of ordered) {
    const heading = opened.has(item.section) ? 0 : headingCost(item.section);
    const room = budget - used - heading - 1;
    const limit = Math.min(room, item.section === "summary" ? Math.floor(budget / 3) : maxItem);
    const whole = limit > 0 ? countTokens(item.text) : Infinity;
    const text = whole <= limit ? item.text : limit >= 12 ? truncateToTokens(item.text, limit) : "";
    if (!text) {
      dropped.push(item);
      continue;
    }
    chosen.push({ ...item, text });
    opened.add(item.section);
    used += heading + (text === item.text ? whole : countTokens(text)) + 1;
  }
  // The exact count of the finished block decides; drop from the lowest priority until it fits.
  let prompt = renderContext(chosen);
  let tokens = countTokens(prompt);
  while (tokens > budget && chosen.length > 0) {
    dropped.push(chosen.pop()!);
    prompt = renderContext(chosen);
    tokens = countTokens(prompt);
  }
  return { items: chosen, prompt, tokens, dropped };
}
