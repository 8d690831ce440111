/**
 * MADial-zh's memories hidden in chit-chat: one log of every line of every MADial dialogue (1,209
 * short Chinese messages, both people's and the assistant's, all stored as one speaker's) with both
 * users' memory events mixed in, in one session and without timestamps; the queries are
 * `madial-zh-last`'s (the person's last line before the test turn), the gold their memories. Lines
 * equal to a query are left out of the log.
 *   npx tsx bench/convert-madial-noisy.ts [--lang zh] [--copies N] [--input-dir ../shared/bench/madial]   (after convert-madial.ts --question last)
 * `--copies 2` repeats the chit-chat (new ids) for a log of ~2,600 messages, to measure latency at that size.
 */
import fs from "node:fs";
import path from "node:path";
import { parseArgs, readDataset, writeDataset, type EvalMessage } from "./lib/eval-format";

function main() {
  const args = parseArgs(process.argv.slice(2));
  const lang = String(args.get("lang") ?? "zh");
  const dir = String(args.get("input-dir") ?? path.resolve(import.meta.dirname, "../../shared/bench/madial"));
  const last = readDataset(path.resolve(import.meta.dirname, `data/madial-${lang}-last.json`));
  const asked = new Set(last.queries.map((q) => q.question));
  const copies = Number(args.get("copies") ?? 1);
  const lines = fs
    .readFileSync(path.join(dir, lang, `MADial-Bench-${lang}-dialogue.json`), "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as { dialogue: string[]; "user-id": number });
  const chatter = new Map<string, EvalMessage[]>();
  for (let copy = 0; copy < copies; copy++) {
    lines.forEach((d, i) => {
      const own = chatter.get("all") ?? [];
      d.dialogue.forEach((raw, j) => {
        const m = /^<([^>]+)>:\s*"?(.*?)"?\s*$/s.exec(raw.trim());
        if (!m || asked.has(m[2]!)) return;
        own.push({ id: `chat-${copy}-${i}-${j}`, role: "user", content: m[2]! });
      });
      chatter.set("all", own);
    });
  }
  // Memories spread evenly through the chit-chat, in a fixed order.
  const pooled = { id: "all", messages: last.conversations.flatMap((c) => c.messages) };
  const conversations = [pooled].map((c) => {
    const noise = chatter.get("all") ?? [];
    const step = Math.max(1, Math.floor(noise.length / Math.max(1, c.messages.length)));
    const messages: EvalMessage[] = [];
    let k = 0;
    noise.forEach((m, i) => {
      messages.push(m);
      if (i % step === step - 1 && k < c.messages.length)
        messages.push({ id: c.messages[k]!.id, role: "user", content: c.messages[k++]!.content });
    });
    while (k < c.messages.length)
      messages.push({ id: c.messages[k]!.id, role: "user", content: c.messages[k++]!.content });
    return { id: c.id, messages };
  });
  const name = `madial-${lang}-noisy${copies > 1 ? `-x${copies}` : ""}`;
  writeDataset(path.resolve(import.meta.dirname, `data/${name}.json`), {
    format: "memory-eval/v1",
    name,
    conversations,
    queries: last.queries.map((q) => ({ ...q, conversationId: "all" })),
    notes: { memoriesIn: "chit-chat of every dialogue", messages: conversations.map((c) => c.messages.length) },
  });
  console.log(
    name,
    conversations.map((c) => c.messages.length),
  );
}

main();
