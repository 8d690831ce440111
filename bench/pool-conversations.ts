/**
 * Pools every conversation of a memory-eval/v1 set into one haystack (ids and sessions prefixed with
 * their conversation's id), every query then searching all of it: many people's stories in one scope,
 * as a busy user's long log is. `locomo-pooled` is LoCoMo's 5,882 turns with its 1,982 questions.
 * `--log` also drops what a plain note log lacks — every turn becomes one speaker's (role user, no
 * speaker name), without timestamps, in one session — so nothing can lean on turn structure:
 * `locomo-log`, the shape of a long diary of short messages.
 *   npx tsx bench/pool-conversations.ts --input bench/data/locomo.json [--log] [--output FILE]
 */
import path from "node:path";
import { parseArgs, readDataset, writeDataset, type EvalMessage } from "./lib/eval-format";

function main() {
  const args = parseArgs(process.argv.slice(2));
  const input = String(args.get("input") ?? path.resolve(import.meta.dirname, "data/locomo.json"));
  const log = args.has("log");
  const source = readDataset(input);
  const name = `${source.name}-${log ? "log" : "pooled"}`;
  const output = String(args.get("output") ?? path.join(path.dirname(input), `${name}.json`));
  const messages = source.conversations.flatMap((c) =>
    c.messages.map((m): EvalMessage => {
      const id = `${c.id}/${m.id}`;
      return log ? { id, role: "user", content: m.content } : { ...m, id, session: `${c.id}/${m.session ?? "all"}` };
    }),
  );
  const queries = source.queries.map((q) => ({
    ...q,
    conversationId: "pooled",
    evidence: q.evidence.map((id) => `${q.conversationId}/${id}`),
  }));
  writeDataset(output, {
    format: "memory-eval/v1",
    name,
    conversations: [{ id: "pooled", messages }],
    queries,
    notes: {
      pooledFrom: source.name,
      conversations: source.conversations.length,
      ...(log ? { log: "one speaker, no timestamps, one session" } : {}),
    },
  });
  console.log(`wrote ${output}: ${messages.length} messages, ${queries.length} queries`);
}

main();
