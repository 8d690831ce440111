/**
 * Memory formation on LoCoMo (../shared/bench/locomo/locomo10.json), through the real service and no
 * model: every session of a conversation is captured with appendMessages (hot path), the job queue is
 * worked through with the memory tree's own handlers (extraction, summaries, scoring), and a closing
 * summary is asked for at the end of each session. Then:
 *
 * - extraction, against LoCoMo's per-speaker `session_N_observation` (a fact and the turn supporting
 *   it): observation recall (a card cites the supporting turn and states the fact, token F1 ≥ 0.3),
 *   card precision (a card cites a turn supporting some observation), cards per 100 turns, per kind
 *   category. The extractor learns about the user, so each conversation is captured twice, once with
 *   each speaker as the user (their own organisation), and a speaker's observations are judged
 *   against the cards of their run;
 * - summaries, against `session_N_summary`: ROUGE-1 / ROUGE-L F1 of the session's latest summary and
 *   the share of reference sentences whose key terms (names, numbers, places) it keeps, next to two
 *   trivial baselines in the same run: the session's first 3 user turns, and its 3 turns scored
 *   highest by the hot path's fast score (speaker A's run).
 *
 *   npm run bench:memory-formation [-- --conversations N] [--input FILE] [--database-url URL] [--out bench/results]
 *
 * Writes bench/results/memory-formation-<time>.json and prints Markdown tables.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { and, eq, inArray } from "drizzle-orm";
import { openDatabase } from "~/db/client";
import { memoryJobs, memoryNodes, tenants } from "~/db/schema";
import type { Database } from "~/db/types";
import { newId } from "~/server/ids";
import { processJobsOnce } from "~/server/jobs/worker";
import { appendMessages, MAX_MESSAGES_PER_APPEND } from "~/server/memory/evidence/messages";
import { getLatestSummary } from "~/server/memory/store/summaries";
import { fastScore } from "~/server/tree/fast-score";
import { summarizeSession, treeJobHandlers } from "~/server/tree/jobs";
import { normalizeEvidence, parseSessionDate } from "./convert-locomo";
import {
  firstUserTurns,
  meanSummaryScore,
  scoreExtraction,
  scoreSummary,
  topScoredTurns,
  type ExtractedCard,
  type ExtractionScore,
  type Observation,
  type SummaryScore,
} from "./lib/formation-metrics";
import { registerTreeSubscribers } from "~/server/tree";

// Messages stored here become memory-tree chunks, as in the server (src/server/tree/subscribers.ts).
registerTreeSubscribers();

const { values } = parseArgs({
  options: {
    conversations: { type: "string" },
    input: { type: "string" },
    "database-url": { type: "string" },
    out: { type: "string", default: "bench/results" },
  },
});

type Turn = { speaker: string; dia_id: string; text: string; blip_caption?: string };
type Sample = {
  sample_id: string;
  conversation: Record<string, unknown>;
  observation: Record<string, Record<string, [string, unknown][]>>;
  session_summary: Record<string, string>;
};

const input = values.input ?? path.resolve(import.meta.dirname, "../../shared/bench/locomo/locomo10.json");
const samples = (JSON.parse(fs.readFileSync(input, "utf8")) as Sample[]).slice(
  0,
  values.conversations ? Number(values.conversations) : undefined,
);
const url = values["database-url"];
const dataDir = url ? null : fs.mkdtempSync(path.join(os.tmpdir(), "memory-formation-"));
const handle = await openDatabase(url ? { url } : { dataDir: path.join(dataDir!, "pglite") });
const handlers = treeJobHandlers(null);
/** Embedding jobs stay queued: the bench measures no vectors. */
const HANDLED = Object.keys(handlers) as (keyof typeof handlers)[];

const sessionNumbers = (conv: Record<string, unknown>) =>
  Object.keys(conv)
    .map((k) => /^session_(\d+)$/.exec(k)?.[1])
    .filter((n): n is string => n !== undefined)
    .map(Number)
    .sort((a, b) => a - b);

const turnText = (turn: Turn) => (turn.blip_caption ? `${turn.text} [image: ${turn.blip_caption}]` : turn.text);

/** Works the queue until it is empty; delayed jobs (extraction waits 30 s for the agent) are run now. */
async function drain(db: Database) {
  for (;;) {
    const { handled } = await processJobsOnce(db, handlers, { workerId: "bench", limit: 20 });
    if (handled > 0) continue;
    const [later] = await db
      .update(memoryJobs)
      .set({ runAt: new Date(0) })
      .where(and(eq(memoryJobs.status, "queued"), inArray(memoryJobs.type, HANDLED)))
      .returning({ id: memoryJobs.id });
    if (!later) return;
  }
}

type Run = {
  tenantId: string;
  diaOf: Map<string, string>;
  sessions: { n: number; sessionId: string; turns: { role: "user" | "assistant"; content: string }[] }[];
  turns: number;
  userTurns: number;
};

/** One conversation captured with `user` as the user: its own organisation, one session per LoCoMo session. */
async function capture(sample: Sample, user: string): Promise<Run> {
  const tenantId = newId("ten");
  await handle.db.insert(tenants).values({ id: tenantId, name: `${sample.sample_id} as ${user}`, slug: tenantId });
  const by = { tenantId, actor: { type: "system" as const, id: "bench" } };
  const diaOf = new Map<string, string>();
  const sessions: Run["sessions"] = [];
  let turns = 0;
  let userTurns = 0;
  for (const n of sessionNumbers(sample.conversation)) {
    const raw = sample.conversation[`session_${n}`] as Turn[];
    const start = parseSessionDate(String(sample.conversation[`session_${n}_date_time`] ?? "")) ?? new Date();
    const sessionId = `${sample.sample_id}-s${n}`;
    const messages = raw.map((turn, i) => ({
      role: turn.speaker === user ? ("user" as const) : ("assistant" as const),
      content: turnText(turn),
      clientMessageId: turn.dia_id,
      createdAt: new Date(start.getTime() + i * 1000),
    }));
    for (let i = 0; i < messages.length; i += MAX_MESSAGES_PER_APPEND) {
      const batch = messages.slice(i, i + MAX_MESSAGES_PER_APPEND);
      const stored = await appendMessages(handle.db, by, {
        sessionId,
        userScopeId: user.toLowerCase(),
        messages: batch,
      });
      stored.messages.forEach((m, j) => diaOf.set(m.id, batch[j]!.clientMessageId));
    }
    await drain(handle.db);
    await summarizeSession(handle.db, { tenantId, sessionId, llm: null, closing: true });
    sessions.push({ n, sessionId, turns: messages.map((m) => ({ role: m.role, content: m.content })) });
    turns += messages.length;
    userTurns += messages.filter((m) => m.role === "user").length;
  }
  return { tenantId, diaOf, sessions, turns, userTurns };
}

async function cardsOf(run: Run): Promise<ExtractedCard[]> {
  const rows = await handle.db
    .select()
    .from(memoryNodes)
    .where(and(eq(memoryNodes.tenantId, run.tenantId), eq(memoryNodes.status, "active")));
  return rows.map((row) => ({
    id: row.id,
    kindCategory: row.categoryPath[0] ?? row.kind,
    // What recall shows of a card is its content.
    text: row.content,
    turnIds: row.sourceMessageIds.map((id) => run.diaOf.get(id)).filter((id): id is string => id !== undefined),
  }));
}

function observationsOf(sample: Sample, speaker: string): Observation[] {
  const out: Observation[] = [];
  for (const bySpeaker of Object.values(sample.observation)) {
    for (const [text, evidence] of bySpeaker[speaker] ?? []) {
      const ids = (Array.isArray(evidence) ? evidence : [evidence]).flatMap(normalizeEvidence);
      for (const turnId of ids.slice(0, 1)) out.push({ text, turnId, speaker });
    }
  }
  return out;
}

const started = performance.now();
const extraction: { conversation: string; speaker: string; score: ExtractionScore; seconds: number }[] = [];
const summaries: { service: SummaryScore[]; firstUserTurns: SummaryScore[]; topFastScore: SummaryScore[] } = {
  service: [],
  firstUserTurns: [],
  topFastScore: [],
};
const examples: { session: string; reference: string; summary: string }[] = [];

for (const sample of samples) {
  const speakers = [String(sample.conversation.speaker_a), String(sample.conversation.speaker_b)];
  for (const [index, speaker] of speakers.entries()) {
    const t0 = performance.now();
    const run = await capture(sample, speaker);
    const score = scoreExtraction(observationsOf(sample, speaker), await cardsOf(run), run.userTurns);
    extraction.push({
      conversation: sample.sample_id,
      speaker,
      score,
      seconds: Math.round((performance.now() - t0) / 100) / 10,
    });
    console.error(
      `${sample.sample_id} as ${speaker}: ${run.turns} turns, recall ${score.recall}, precision ${score.precision}, ${score.cards} cards (${extraction.at(-1)!.seconds} s)`,
    );
    if (index !== 0) continue;
    for (const session of run.sessions) {
      const reference = sample.session_summary[`session_${session.n}_summary`];
      if (!reference) continue;
      const summary =
        (await getLatestSummary(handle.db, { tenantId: run.tenantId, sessionId: session.sessionId }))?.summary ?? "";
      summaries.service.push(scoreSummary(summary, reference));
      summaries.firstUserTurns.push(scoreSummary(firstUserTurns(session.turns), reference));
      summaries.topFastScore.push(
        scoreSummary(
          topScoredTurns(session.turns, (text) => fastScore(text).score),
          reference,
        ),
      );
      if (examples.length < 3) examples.push({ session: session.sessionId, reference, summary });
    }
  }
}

/** All runs pooled: counts summed, ratios recomputed. */
function pooled(scores: ExtractionScore[]) {
  const sum = (pick: (s: ExtractionScore) => number) => scores.reduce((n, s) => n + pick(s), 0);
  const ratio = (a: number, b: number) => (b === 0 ? 0 : Math.round((a / b) * 1000) / 1000);
  const byKindCategory: Record<
    string,
    { cards: number; supported: number; precision: number; observationsStated: number }
  > = {};
  for (const s of scores) {
    for (const [category, bucket] of Object.entries(s.byKindCategory)) {
      const into = (byKindCategory[category] ??= { cards: 0, supported: 0, precision: 0, observationsStated: 0 });
      into.cards += bucket.cards;
      into.supported += bucket.supported;
      into.observationsStated += bucket.observationsStated;
    }
  }
  for (const bucket of Object.values(byKindCategory)) bucket.precision = ratio(bucket.supported, bucket.cards);
  const observations = sum((s) => s.observations);
  const cards = sum((s) => s.cards);
  const turns = sum((s) => s.turns);
  return {
    observations,
    recalled: sum((s) => s.recalled),
    recall: ratio(
      sum((s) => s.recalled),
      observations,
    ),
    cards,
    supported: sum((s) => s.supported),
    precision: ratio(
      sum((s) => s.supported),
      cards,
    ),
    userTurns: turns,
    cardsPer100Turns: turns === 0 ? 0 : Math.round((cards / turns) * 1000) / 10,
    byKindCategory,
  };
}

const overall = pooled(extraction.map((e) => e.score));
const summaryReport = {
  sessions: summaries.service.length,
  service: meanSummaryScore(summaries.service),
  firstUserTurns: meanSummaryScore(summaries.firstUserTurns),
  topFastScore: meanSummaryScore(summaries.topFastScore),
};
const report = {
  benchmark: "memory-formation",
  dataset: path.basename(input),
  conversations: samples.length,
  database: handle.mode,
  machine: `${os.cpus().length} cpu, ${Math.round(os.totalmem() / 2 ** 30)} GiB, node ${process.version}`,
  seconds: Math.round((performance.now() - started) / 1000),
  extraction: { overall, runs: extraction },
  summaries: summaryReport,
  examples,
  note: "cards per 100 turns counts the user's turns (the extractor reads only those); observation recall: token F1 >= 0.3 and the supporting turn cited",
};
const markdown = [
  `| extraction (${samples.length} conversations, both speakers) | value |`,
  "|---|---|",
  `| observation recall | ${overall.recall} (${overall.recalled} of ${overall.observations}) |`,
  `| card precision | ${overall.precision} (${overall.supported} of ${overall.cards}) |`,
  `| cards per 100 user turns | ${overall.cardsPer100Turns} |`,
  "",
  "| kind category | cards | precision | observations stated |",
  "|---|---|---|---|",
  ...Object.entries(overall.byKindCategory)
    .sort((a, b) => b[1].cards - a[1].cards)
    .map(([category, b]) => `| ${category} | ${b.cards} | ${b.precision} | ${b.observationsStated} |`),
  "",
  `| summaries (${summaryReport.sessions} sessions) | ROUGE-1 F1 | ROUGE-L F1 | key-term share |`,
  "|---|---|---|---|",
  ...(["service", "firstUserTurns", "topFastScore"] as const).map(
    (name) =>
      `| ${name} | ${summaryReport[name].rouge1} | ${summaryReport[name].rougeL} | ${summaryReport[name].keyTerms ?? "-"} |`,
  ),
].join("\n");
console.log(JSON.stringify({ ...report, extraction: { overall }, examples: undefined }, null, 2));
console.log(markdown);
fs.mkdirSync(values.out!, { recursive: true });
fs.writeFileSync(
  path.join(values.out!, `memory-formation-${handle.mode}-${new Date().toISOString().replace(/[:.]/g, "-")}.json`),
  `${JSON.stringify({ ...report, markdown }, null, 2)}\n`,
);
await handle.close();
if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
