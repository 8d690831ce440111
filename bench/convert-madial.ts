/**
 * MADial-Bench (hejunqing/MADial-Bench) → memory-eval/v1, one language at a time.
 *   npx tsx bench/convert-madial.ts --lang zh|en [--input-dir ../shared/bench/madial] [--output bench/data/madial-zh.json] [--gold all|first] [--question dialogue|last]
 * Documents are the memory events of a user (one "conversation" per user, since a query may only
 * search its own user's memories); each test turn of a dialogue is a query whose text is the
 * dialogue before that turn (kept to its last 1,000 characters, the search input limit: the end of a
 * conversation is what the next turn answers). Gold: `relevant-id` restricted to that user's memories
 * (`--gold first`: only the memory actually used). Category: the scene of the first gold memory.
 * `--question last`: the query is only the person's last line before the test turn (without the name
 * in front), a short question-like query instead of a whole dialogue (`madial-zh-last`).
 */
import fs from "node:fs";
import path from "node:path";
import { parseArgs, writeDataset, type EvalDataset, type EvalQuery } from "./lib/eval-format";

type MemoryRecord = { time?: string; scene?: string; emotion?: string; event: string; "user-id"?: number; id?: string };
type DialogueRecord = {
  dialogue: string[];
  "test-turn": number[];
  "relevant-id": number[];
  "user-id": number;
  id?: number;
};

const MAX_QUERY_CHARS = 1000;

const readLines = <T>(file: string): T[] =>
  fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as T);

function readMemories(file: string): Map<string, MemoryRecord> {
  const out = new Map<string, MemoryRecord>();
  for (const line of readLines<Record<string, MemoryRecord>>(file))
    for (const [id, record] of Object.entries(line)) out.set(id, record);
  return out;
}

/** "<Bart>:\"…\"\n" → "Bart: …" */
const cleanLine = (line: string) =>
  line
    .trim()
    .replace(/^<([^>]+)>:\s*/, "$1: ")
    .replace(/^([^:]+: )"(.*)"$/s, "$1$2");

function main() {
  const args = parseArgs(process.argv.slice(2));
  const lang = String(args.get("lang") ?? "zh");
  if (lang !== "zh" && lang !== "en") throw new Error("--lang must be zh or en");
  const gold = String(args.get("gold") ?? "all");
  const lastOnly = String(args.get("question") ?? "dialogue") === "last";
  const suffix = `${gold === "first" ? "-first" : ""}${lastOnly ? "-last" : ""}`;
  const dir = String(args.get("input-dir") ?? path.resolve(import.meta.dirname, "../../shared/bench/madial"));
  const output = String(args.get("output") ?? path.resolve(import.meta.dirname, `data/madial-${lang}${suffix}.json`));
  const memories = readMemories(path.join(dir, lang, `MADial-Bench-${lang}-memory.json`));
  // English memory lines carry no user: the Chinese line with the same id does.
  const zh = lang === "en" ? readMemories(path.join(dir, "zh", "MADial-Bench-zh-memory.json")) : memories;
  const dialogues = readLines<DialogueRecord>(path.join(dir, lang, `MADial-Bench-${lang}-dialogue.json`));
  const userOf = new Map<string, number>();
  for (const [id, record] of zh) if (record["user-id"] !== undefined) userOf.set(id, record["user-id"]);
  for (const d of dialogues)
    for (const id of d["relevant-id"]) if (!userOf.has(String(id))) userOf.set(String(id), d["user-id"]);

  const byUser = new Map<number, EvalDataset["conversations"][number]["messages"]>();
  let unassigned = 0;
  for (const [id, record] of memories) {
    const user = userOf.get(id);
    if (user === undefined) {
      unassigned++;
      continue;
    }
    const messages = byUser.get(user) ?? [];
    // Each memory is an episode of its own: it shares no conversational context with the next one.
    messages.push({
      id,
      role: "user",
      content: record.event,
      session: `memory-${id}`,
      ...(record.time ? { createdAt: new Date(`${record.time}T12:00:00Z`).toISOString() } : {}),
    });
    byUser.set(user, messages);
  }
  const queries: EvalQuery[] = [];
  let droppedGold = 0;
  dialogues.forEach((d, index) => {
    const conversationId = `user-${d["user-id"]}`;
    const own = new Set((byUser.get(d["user-id"]) ?? []).map((m) => m.id));
    const relevant = d["relevant-id"].map(String);
    const wanted = gold === "first" ? relevant.slice(0, 1) : relevant;
    const evidence = [...new Set(wanted.filter((id) => own.has(id)))];
    droppedGold += new Set(wanted).size - evidence.length;
    for (const turn of d["test-turn"]) {
      const lines = d.dialogue.slice(1, turn).map(cleanLine).filter(Boolean);
      let question = lines.join("\n");
      while (question.length > MAX_QUERY_CHARS && lines.length > 1) question = (lines.shift(), lines.join("\n"));
      question = question.slice(-MAX_QUERY_CHARS);
      if (lastOnly) question = (lines.findLast((line) => !line.startsWith("Assistant:")) ?? "").replace(/^[^:]+: /, "");
      const scene = memories.get(evidence[0] ?? "")?.scene ?? "unknown";
      queries.push({ id: `d${d.id ?? index}/t${turn}`, conversationId, question, evidence, category: scene });
    }
  });
  const conversations = [...byUser.entries()]
    .sort(([a], [b]) => a - b)
    .map(([user, messages]) => ({ id: `user-${user}`, messages }));
  const notes = { lang, gold, memories: memories.size, unassignedMemories: unassigned, droppedGoldIds: droppedGold };
  writeDataset(output, { format: "memory-eval/v1", name: `madial-${lang}${suffix}`, conversations, queries, notes });
  console.log(
    `wrote ${output}: ${conversations.length} users, ${memories.size} memories, ${queries.length} queries`,
    notes,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) main();
