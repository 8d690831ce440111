/**
 * LoCoMo (snap-research/LoCoMo, locomo10.json) → memory-eval/v1.
 *   npx tsx bench/convert-locomo.ts [--input ../shared/bench/locomo/locomo10.json] [--output bench/data/locomo.json]
 * A document is one turn (`dia_id`); image turns carry their BLIP caption as `[image: …]` (never the
 * image search query, which would leak the topic). Turn times are the session's date plus one
 * second per turn. Evidence ids are cleaned (split on `;`/space, leading zeros dropped, `D:11:26` →
 * `D11:26`); ids matching no turn are dropped and counted in `notes`.
 */
import path from "node:path";
import fs from "node:fs";
import { parseArgs, writeDataset, type EvalDataset, type EvalMessage, type EvalQuery } from "./lib/eval-format";

type Turn = { speaker: string; dia_id: string; text: string; blip_caption?: string };
type Qa = { question: string; evidence?: unknown[]; category: number };
type Sample = { sample_id: string; conversation: Record<string, unknown>; qa: Qa[] };

/** The dataset's own category numbering (its evaluation code). */
const CATEGORIES: Record<number, string> = {
  1: "multi-hop",
  2: "temporal",
  3: "open-domain",
  4: "single-hop",
  5: "adversarial",
};
const MONTHS = [
  "january",
  "february",
  "march",
  "april",
  "may",
  "june",
  "july",
  "august",
  "september",
  "october",
  "november",
  "december",
];

/** "1:56 pm on 8 May, 2023" → Date (UTC). */
export function parseSessionDate(text: string): Date | null {
  const m = /(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})/i.exec(text);
  if (!m) return null;
  let hour = Number(m[1]) % 12;
  if (m[3]!.toLowerCase() === "pm") hour += 12;
  const month = MONTHS.indexOf(m[5]!.toLowerCase());
  if (month < 0) return null;
  return new Date(Date.UTC(Number(m[6]), month, Number(m[4]), hour, Number(m[2])));
}

/** Candidate turn ids in one raw evidence entry: "D8:6; D9:17", "D:11:26", "D30:05", "D1:3 D1:5". */
export function normalizeEvidence(raw: unknown): string[] {
  if (typeof raw !== "string") return [];
  return raw
    .split(/[;,\s]+/)
    .filter(Boolean)
    .map((id) => {
      const m = /^D:?(\d+):0*(\d+)$/.exec(id.trim());
      return m ? `D${Number(m[1])}:${Number(m[2])}` : id.trim();
    });
}

function main() {
  const args = parseArgs(process.argv.slice(2));
  const input = String(
    args.get("input") ?? path.resolve(import.meta.dirname, "../../shared/bench/locomo/locomo10.json"),
  );
  const output = String(args.get("output") ?? path.resolve(import.meta.dirname, "data/locomo.json"));
  const samples = JSON.parse(fs.readFileSync(input, "utf8")) as Sample[];
  const conversations: EvalDataset["conversations"] = [];
  const queries: EvalQuery[] = [];
  const dropped: string[] = [];
  let malformedEntries = 0;
  let noEvidence = 0;
  for (const sample of samples) {
    const conv = sample.conversation;
    const speakerA = String(conv.speaker_a);
    const sessionNumbers = Object.keys(conv)
      .map((k) => /^session_(\d+)$/.exec(k)?.[1])
      .filter((n): n is string => n !== undefined)
      .map(Number)
      .sort((a, b) => a - b);
    const messages: EvalMessage[] = [];
    for (const n of sessionNumbers) {
      const turns = conv[`session_${n}`] as Turn[];
      const start = parseSessionDate(String(conv[`session_${n}_date_time`] ?? ""));
      turns.forEach((turn, i) => {
        const content = turn.blip_caption ? `${turn.text} [image: ${turn.blip_caption}]` : turn.text;
        messages.push({
          id: turn.dia_id,
          role: turn.speaker === speakerA ? "user" : "assistant",
          speaker: turn.speaker,
          content,
          session: `session_${n}`,
          ...(start ? { createdAt: new Date(start.getTime() + i * 1000).toISOString() } : {}),
        });
      });
    }
    const ids = new Set(messages.map((m) => m.id));
    conversations.push({ id: sample.sample_id, messages });
    sample.qa.forEach((qa, i) => {
      const raw = qa.evidence ?? [];
      const candidates = raw.flatMap(normalizeEvidence);
      malformedEntries += raw.filter((r) => typeof r !== "string" || !/^D[1-9]\d*:[1-9]\d*$/.test(r)).length;
      const evidence = [...new Set(candidates.filter((id) => ids.has(id)))];
      dropped.push(...candidates.filter((id) => !ids.has(id)).map((id) => `${sample.sample_id}:${id}`));
      if (evidence.length === 0) noEvidence++;
      queries.push({
        id: `${sample.sample_id}/q${i}`,
        conversationId: sample.sample_id,
        question: qa.question,
        evidence,
        category: CATEGORIES[qa.category] ?? `category-${qa.category}`,
      });
    });
  }
  const notes = {
    source: path.basename(input),
    malformedEvidenceEntries: malformedEntries,
    droppedEvidenceIds: dropped.length,
    dropped,
    queriesWithoutEvidence: noEvidence,
  };
  writeDataset(output, { format: "memory-eval/v1", name: "locomo", conversations, queries, notes });
  console.log(
    `wrote ${output}: ${conversations.length} conversations, ${conversations.reduce((n, c) => n + c.messages.length, 0)} turns, ${queries.length} queries`,
    notes,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) main();
