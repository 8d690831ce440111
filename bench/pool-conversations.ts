/**
 * Pools every conversation of one or more memory-eval/v1 sets into one haystack (ids and sessions
 * prefixed with their conversation's id, and with the set's name when several are pooled), every
 * query then searching all of it: many people's stories in one scope, as a busy user's long log is.
 * `locomo-pooled` is LoCoMo's 5,882 turns with its 1,982 questions. `--log` also drops what a plain
 * note log lacks — every turn becomes one speaker's (role user, no speaker name), without timestamps,
 * in one session — so nothing can lean on turn structure: `locomo-log`, the shape of a long diary of
 * short messages. Several inputs (comma-separated) make a larger scope for latency: `--input
 * bench/data/locomo-log.json,bench/data/madial-zh-noisy-x2.json,bench/data/madial-zh-noisy.json`
 * pools 9,851 English and Chinese messages.
 *   npx tsx bench/pool-conversations.ts --input bench/data/locomo.json[,more.json] [--log] [--output FILE]
 */
import path from "node:path";
import { parseArgs, readDataset, writeDataset, type EvalMessage, type EvalQuery } from "./lib/eval-format";

function main() {
  const args = parseArgs(process.argv.slice(2));
  const inputs = String(args.get("input") ?? path.resolve(import.meta.dirname, "data/locomo.json")).split(",");
  const log = args.has("log");
  const sources = inputs.map((input) => readDataset(input));
  const several = sources.length > 1;
  const name = `${sources.map((s) => s.name).join("+")}-${log ? "log" : "pooled"}`;
  const output = String(args.get("output") ?? path.join(path.dirname(inputs[0]!), `${name}.json`));
  const messages: EvalMessage[] = [];
  const queries: EvalQuery[] = [];
  for (const source of sources) {
    const prefix = (conversationId: string) => (several ? `${source.name}/${conversationId}` : conversationId);
    for (const c of source.conversations)
      for (const m of c.messages) {
        const id = `${prefix(c.id)}/${m.id}`;
        messages.push(
          log
            ? { id, role: "user", content: m.content }
            : { ...m, id, session: `${prefix(c.id)}/${m.session ?? "all"}` },
        );
      }
    for (const q of source.queries)
      queries.push({
        ...q,
        id: several ? `${source.name}/${q.id}` : q.id,
        conversationId: "pooled",
        evidence: q.evidence.map((id) => `${prefix(q.conversationId)}/${id}`),
      });
  }
  writeDataset(output, {
    format: "memory-eval/v1",
    name,
    conversations: [{ id: "pooled", messages }],
    queries,
    notes: {
      pooledFrom: sources.map((s) => s.name).join(", "),
      conversations: sources.reduce((sum, s) => sum + s.conversations.length, 0),
      ...(log ? { log: "one speaker, no timestamps, one session" } : {}),
    },
  });
  console.log(`wrote ${output}: ${messages.length} messages, ${queries.length} queries`);
}

main();
