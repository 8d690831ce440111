/**
 * Pools every conversation of a memory-eval/v1 set into one haystack (ids and sessions prefixed with
 * their conversation's id), every query then searching all of it: many people's stories in one scope,
 * as a busy user's long log is. `locomo-pooled` is LoCoMo's 5,882 turns with its 1,982 questions.
 *   npx tsx bench/pool-conversations.ts --input bench/data/locomo.json [--output bench/data/locomo-pooled.json]
 */
import path from "node:path";
import { parseArgs, readDataset, writeDataset } from "./lib/eval-format";

function main() {
  const args = parseArgs(process.argv.slice(2));
  const input = String(args.get("input") ?? path.resolve(import.meta.dirname, "data/locomo.json"));
  const source = readDataset(input);
  const name = `${source.name}-pooled`;
  const output = String(args.get("output") ?? path.join(path.dirname(input), `${name}.json`));
  const messages = source.conversations.flatMap((c) => c.messages.map((m) => ({ ...m, id: `${c.id}/${m.id}`, session: `${c.id}/${m.session ?? "all"}` })));
  const queries = source.queries.map((q) => ({ ...q, conversationId: "pooled", evidence: q.evidence.map((id) => `${q.conversationId}/${id}`) }));
  writeDataset(output, { format: "memory-eval/v1", name, conversations: [{ id: "pooled", messages }], queries, notes: { pooledFrom: source.name, conversations: source.conversations.length } });
  console.log(`wrote ${output}: ${messages.length} messages, ${queries.length} queries`);
}

main();
