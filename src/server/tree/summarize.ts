import type { MemoryMessage, MemorySummary } from "~/db/schema";
import { fastScore } from "./fast-score";
import { familyOperations } from "./rules";
import { sentencesOf } from "./rules/common";
import { similarity, summaryFields } from "./summarize-fields";

/** Every this many new messages (or tokens), the session's summary chain gets its next summary (docs/memory-tree.md). */
export const SUMMARY_EVERY_MESSAGES = 10;
export const SUMMARY_EVERY_TOKENS = 3000;
/** Words (a CJK character counts as one) of sentences a summary keeps: earlier ones and new ones together. */
export const SUMMARY_WORDS = 170;
/** Of which at least this many go to the new messages' sentences. */
const NEW_WORDS = 100;

const wordCount = (text: string) =>
  (text.match(/[\u4e00-\u9fff]/g)?.length ?? 0) +
  (text.replace(/[\u4e00-\u9fff]/g, " ").match(/[\p{L}\p{N}]+/gu)?.length ?? 0);

/** Names, places and numbers a sentence carries (capitalised words past its first, digits). */
const keyTermCount = (sentence: string) => {
  const words = sentence.match(/[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu) ?? [];
  return (
    words.slice(1).filter((w) => /^\p{Lu}/u.test(w) && w !== "I" && !/^I['’]/.test(w)).length +
    (sentence.match(/\d+/g)?.length ?? 0)
  );
};

const PLEASANTRY =
  /^(?:hi|hey|hello|thanks|thank you|wow|cool|great|awesome|nice|sounds|good|bye|see you|take care|congrats|congratulations|glad|haha|lol|ok|okay|yeah|yes|no|sure|好的|谢谢|嗯|哈哈|你好|再见|没问题)\b/i;

type Candidate = { text: string; order: number; score: number; carried: boolean };

/**
 * How much a sentence carries: the hot path's fast score, whether a rule family finds a fact in it,
 * its names and numbers, and its length (a few words say little, a long one is cut). Questions and
 * pleasantries carry little; the user's own words a little more than the assistant's.
 */
export function sentenceScore(sentence: string, role: string): number {
  const words = wordCount(sentence);
  let score = fastScore(sentence).score;
  if (familyOperations(sentence, { explicit: false, food: false }).length > 0) score += 0.35;
  score += 0.06 * Math.min(4, keyTermCount(sentence));
  if (role === "user") score += 0.05;
  if (/[?？]\s*$/.test(sentence)) score -= 0.3;
  if (PLEASANTRY.test(sentence)) score -= 0.25;
  if (words < 5) score -= 0.4;
  else if (words >= 8 && words <= 40) score += 0.1;
  return score;
}

/**
 * Greedy selection by score, each sentence discounted by how much it repeats one already chosen
 * (coverage: near duplicates such as "第3天…" and "第4天…" are left out), until the word budget is met.
 */
function select(candidates: Candidate[], budget: number, chosen: Candidate[] = []): Candidate[] {
  const picked = [...chosen];
  let words = picked.reduce((n, c) => n + wordCount(c.text), 0);
  const pool = candidates.filter((c) => c.score > 0);
  while (pool.length > 0 && words < budget) {
    let best = -1;
    let bestValue = 0;
    for (const [i, candidate] of pool.entries()) {
      const redundancy = Math.max(0, ...picked.map((p) => similarity(p.text, candidate.text)));
      if (redundancy >= 0.6) continue;
      const value = candidate.score * (1 - redundancy);
      if (value > bestValue) {
        bestValue = value;
        best = i;
      }
    }
    if (best < 0) break;
    const [next] = pool.splice(best, 1);
    picked.push(next!);
    words += wordCount(next!.text);
  }
  return picked;
}

/** The sentences of an earlier summary's text, its goal and facts lines left out (they are rebuilt). */
const carriedSentences = (summary: string) =>
  summary
    .split("\n")
    .filter((line) => !/^(?:Goal|目标|Facts|要点)[:：]/.test(line))
    .flatMap((line) => sentencesOf(line));

/**
 * The next summary from the previous one plus the new messages only (never the whole history),
 * extractive, so it works without a model and never invents facts:
 * - its text: the goal, the key facts, then the sentences that carry the session's facts, chosen by
 *   score (sentenceScore), novelty against the previous summary (what it already says is not said
 *   again) and coverage (no near duplicates), within SUMMARY_WORDS, earlier sentences kept first;
 * - currentGoal, constraints, preferences, decisions, completedWork, pendingWork and knownIssues by
 *   patterns in both languages (summary-fields.ts), carried over until replaced or done.
 */
export function summarizeIncrement(
  previous: MemorySummary | undefined,
  messages: Pick<MemoryMessage, "role" | "content">[],
) {
  const fields = summaryFields(previous, messages);
  const earlier = previous ? carriedSentences(previous.summary) : [];
  const fresh: Candidate[] = [];
  let order = earlier.length;
  for (const message of messages) {
    if (message.role !== "user" && message.role !== "assistant") continue;
    for (const sentence of sentencesOf(message.content)) {
      const novelty = 1 - Math.max(0, ...earlier.map((e) => similarity(e, sentence)));
      fresh.push({
        text: sentence.slice(0, 300),
        order: order++,
        score: sentenceScore(sentence, message.role) * (0.2 + 0.8 * novelty),
        carried: false,
      });
    }
  }
  const newPart = select(fresh, NEW_WORDS);
  // Earlier sentences keep their place as long as the budget allows, oldest dropped first.
  const room = Math.max(0, SUMMARY_WORDS - newPart.reduce((n, c) => n + wordCount(c.text), 0));
  const kept: Candidate[] = [];
  let used = 0;
  for (const [i, text] of [...earlier.entries()].reverse()) {
    // A new sentence restating an earlier one ("…预算8000元…" after "…预算5000元…") takes its place.
    if (newPart.some((c) => similarity(c.text, text) >= 0.6)) continue;
    const words = wordCount(text);
    if (used + words > room) break;
    kept.unshift({ text, order: i, score: 1, carried: true });
    used += words;
  }
  const sentences = [...kept, ...newPart].sort((a, b) => a.order - b.order).map((c) => c.text);
  const chinese = messages.some((m) => /[\u4e00-\u9fff]/.test(m.content));
  // Short items are the facts the rule families said short ("预算 5万"); whole sentences stay in the lists.
  const facts = [...fields.constraints, ...fields.decisions].filter((item) => wordCount(item) <= 10).slice(-6);
  const lines = [
    fields.currentGoal ? `${chinese ? "目标：" : "Goal: "}${fields.currentGoal}` : null,
    facts.length ? `${chinese ? "要点：" : "Facts: "}${facts.join(chinese ? "；" : "; ")}` : null,
    sentences.join(chinese ? "" : " ") || null,
  ].filter((line): line is string => line !== null);
  const summary = lines.length ? lines.join("\n") : `${messages.length} new message(s).`;
  return { summary, ...fields };
}
