/**
 * A cross-language set from MADial-Bench's two translations: the questions of one language asked of
 * the memories written in the other (zh→en: Chinese dialogues over English memories, and en→zh).
 * Both translations share memory and dialogue ids; a query is kept when both languages have it, with
 * its gold restricted to the memories the target language has.
 *   npx tsx bench/convert-cross-language.ts [--data-dir bench/data]   (after convert-madial.ts --lang zh and --lang en)
 * Writes bench/data/madial-zh2en.json and bench/data/madial-en2zh.json.
 */
import path from "node:path";
import { parseArgs, readDataset, writeDataset, type EvalDataset } from "./lib/eval-format";

function crossed(questions: EvalDataset, memories: EvalDataset, name: string): EvalDataset {
  const target = new Map(memories.conversations.map((c) => [c.id, new Set(c.messages.map((m) => m.id))]));
  const asked = new Map(memories.queries.map((q) => [q.id, q]));
  const queries = questions.queries.flatMap((q) => {
    const ids = target.get(q.conversationId);
    if (!ids || !asked.has(q.id)) return [];
    const evidence = q.evidence.filter((id) => ids.has(id));
    return evidence.length ? [{ ...q, evidence }] : [];
  });
  return {
    format: "memory-eval/v1",
    name,
    conversations: memories.conversations,
    queries,
    notes: {
      questionsFrom: questions.name,
      memoriesFrom: memories.name,
      queriesKept: queries.length,
      queriesAsked: questions.queries.length,
    },
  };
}

function main() {
  const args = parseArgs(process.argv.slice(2));
  const dir = String(args.get("data-dir") ?? path.resolve(import.meta.dirname, "data"));
  const zh = readDataset(path.join(dir, "madial-zh.json"));
  const en = readDataset(path.join(dir, "madial-en.json"));
  for (const set of [crossed(zh, en, "madial-zh2en"), crossed(en, zh, "madial-en2zh")]) {
    writeDataset(path.join(dir, `${set.name}.json`), set);
    console.log(set.name, set.notes);
  }
}

main();
