// `npm run bench:hot-path [-- --messages N] [--database-url URL]`: the memory tree's hot path
// (capture → canonicalize → chunk → 14-rule score → persist, one transaction per message) measured
// per message, on the embedded database by default. Writes bench/results/hot-path-<time>.json.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { openDatabase } from "~/db/client";
import { tenants } from "~/db/schema";
import { appendMessages } from "~/server/memory/evidence/messages";
import { registerTreeSubscribers } from "~/server/tree";

// Messages stored here become memory-tree chunks, as in the server (src/server/tree/subscribers.ts).
registerTreeSubscribers();

const { values } = parseArgs({
  options: { messages: { type: "string", default: "1000" }, "database-url": { type: "string" } },
});
const total = Number(values.messages);
const url = values["database-url"];

const SAMPLES = [
  "记住：项目预算 5 万，9 月 15 日前完成。",
  "以后做饭别给我推荐香菜，我喜欢少油少辣。",
  "The deploy failed again with a timeout on the v2.3.1 release, can you check the config?",
  "好的",
  "We decided to move the Hermes project repo to github.com/acme/hermes next week.",
  "明天下午三点和同事张伟在杭州开会，讨论新版本的上线计划和预算。",
  "I prefer short answers, and please always reply in English.",
  "Thanks, that fixed it!",
];

const dataDir = url ? null : fs.mkdtempSync(path.join(os.tmpdir(), "memory-hotpath-"));
const handle = await openDatabase(url ? { url } : { dataDir: path.join(dataDir!, "pglite") });
const tenantId = `bench_${Date.now()}`;
await handle.db.insert(tenants).values({ id: tenantId, name: "hot path bench", slug: tenantId });

const latencies: number[] = [];
const started = performance.now();
for (let i = 0; i < total; i++) {
  const content = `${SAMPLES[i % SAMPLES.length]} (#${i})`;
  const t0 = performance.now();
  await appendMessages(
    handle.db,
    { tenantId, actor: { type: "system", id: "bench" } },
    { sessionId: `s${i % 20}`, messages: [{ role: i % 2 ? "assistant" : "user", content }] },
  );
  latencies.push(performance.now() - t0);
}
const seconds = (performance.now() - started) / 1000;
latencies.sort((a, b) => a - b);
const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))]!;
const report = {
  benchmark: "hot-path",
  database: handle.mode,
  machine: `${os.cpus().length} cpu, ${Math.round(os.totalmem() / 2 ** 30)} GiB, node ${process.version}`,
  messages: total,
  messagesPerSecond: Math.round((total / seconds) * 10) / 10,
  latencyMs: {
    p50: +pct(50).toFixed(2),
    p95: +pct(95).toFixed(2),
    p99: +pct(99).toFixed(2),
    max: +latencies.at(-1)!.toFixed(2),
  },
  note: "per message: one transaction storing the message, its chunk(s) with fast-score reasons, and the cold-path job rows",
};
console.log(JSON.stringify(report, null, 2));
fs.mkdirSync("bench/results", { recursive: true });
fs.writeFileSync(
  `bench/results/hot-path-${handle.mode}-${new Date().toISOString().replace(/[:.]/g, "-")}.json`,
  `${JSON.stringify(report, null, 2)}\n`,
);
if (!url) await handle.db.delete(tenants);
await handle.close();
if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
