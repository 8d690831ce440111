// The load generator, run as a separate process (child_process.fork) so that its own work never
// shares an event loop with the measured server. Closed loop: `concurrency` workers each send one
// request, wait for the answer, and send the next. Two modes:
//   http: the agent tool endpoint (POST /api/trpc/tools.<tool>, Bearer key, plain JSON), a mixed workload;
//   sql:  the captured SQL of the same searches straight against Postgres (the "floor").
// With `intervalS`, an http run also reports each interval as it ends (`{type: "interval"}` messages,
// by completion time), so a long run (the soak) can be watched and sampled while it goes.
import http from "node:http";
import { isLocalSetting } from "./local-setting";
import { benchClient } from "./pg-client";

export type Stmt = { label: string; text: string; params: unknown[] };
export type ForgetTarget = { id: string; user: number; revision: number };
/**
 * `ping` is `me.agent`: the key check, rate limit and JSON of an agent call with no memory work, the
 * fixed cost every tool call pays (0 in the benchmark's mix; `bench:cpu --mix ping=100` measures it).
 */
export type Mix = { search: number; context: number; write: number; forget: number; ping: number };
export type Op = keyof Mix;
export const OPS = ["search", "context", "write", "forget", "ping"] as const satisfies readonly Op[];

export type HttpJob = {
  mode: "http";
  targets: string[];
  concurrency: number;
  warmupS: number;
  durationS: number;
  mix: Mix;
  users: { secret: string; session: string }[];
  /** (user, query) pairs: the searches, in the same order the SQL floor replays them. */
  searches: { user: number; queryText: string }[];
  queries: string[];
  forgetPool: ForgetTarget[];
  tag: string;
  seed: number;
  /** Report every `intervalS` seconds of the measured time (and the rest at the end). */
  intervalS?: number;
  /** Searches without a turn, as an MCP client that names no session sends them: the key's `session:*` grant then applies. */
  turnlessSearches?: boolean;
};
export type SqlJob = {
  mode: "sql";
  url: string;
  concurrency: number;
  warmupS: number;
  durationS: number;
  /** Per search: the statements to replay, in order (one statement for the full-text floor). */
  plans: Stmt[][];
};
export type OpStats = { latencies: number[]; ok: number; failed: number; statuses: Record<string, number> };
export type HttpResult = {
  mode: "http";
  elapsedS: number;
  ops: Record<Op, OpStats>;
  forgetPool: ForgetTarget[];
  errors: string[];
};
/** Requests that completed within one interval of the measured time; `seconds` is the interval's length. */
export type IntervalReport = {
  index: number;
  endS: number;
  seconds: number;
  ops: Record<Op, { latencies: number[]; failed: number }>;
};
export type SqlResult = {
  mode: "sql";
  elapsedS: number;
  latencies: number[];
  perLabel: Record<string, number[]>;
  failed: number;
  errors: string[];
};

function lcg(seed: number) {
  let s = seed >>> 0 || 1;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296;
  };
}

const round = (ms: number) => Math.round(ms * 1000) / 1000;

/** POST with a JSON body, or GET when `body` is undefined (a tRPC query). */
function send(agent: http.Agent, url: URL, secret: string, body: unknown): Promise<{ status: number; text: string }> {
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  const headers = payload
    ? { "content-type": "application/json", "content-length": payload.length, authorization: `Bearer ${secret}` }
    : { authorization: `Bearer ${secret}` };
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: payload ? "POST" : "GET", agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(payload);
  });
}

async function runHttp(job: HttpJob): Promise<HttpResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: job.concurrency * 2 });
  const random = lcg(job.seed);
  const ops = Object.fromEntries(
    OPS.map((op) => [op, { latencies: [], ok: 0, failed: 0, statuses: {} }]),
  ) as unknown as Record<Op, OpStats>;
  const pool = [...job.forgetPool];
  const errors: string[] = [];
  const total = OPS.reduce((sum, op) => sum + job.mix[op], 0);
  let rr = 0;
  let writes = 0;
  let searchCursor = Math.floor(random() * job.searches.length);
  const started = performance.now();
  const measureFrom = started + job.warmupS * 1000;
  const stopAt = measureFrom + job.durationS * 1000;

  const emptyInterval = () =>
    Object.fromEntries(OPS.map((op) => [op, { latencies: [], failed: 0 }])) as unknown as IntervalReport["ops"];
  let interval = emptyInterval();
  let intervalIndex = 0;
  let intervalStart = measureFrom;
  let intervalTimer: NodeJS.Timeout | undefined;
  const flushInterval = () => {
    const now = performance.now();
    process.send!({
      type: "interval",
      interval: {
        index: intervalIndex++,
        endS: round((now - measureFrom) / 1000),
        seconds: round((now - intervalStart) / 1000),
        ops: interval,
      } satisfies IntervalReport,
    });
    interval = emptyInterval();
    intervalStart = now;
  };
  const intervalMs = (job.intervalS ?? 0) * 1000;
  const scheduleInterval = () => {
    const next = measureFrom + (intervalIndex + 1) * intervalMs;
    if (next >= stopAt) return;
    intervalTimer = setTimeout(() => (flushInterval(), scheduleInterval()), next - performance.now());
  };
  if (intervalMs > 0) scheduleInterval();

  const pickOp = (): Op => {
    let x = random() * total;
    for (const op of OPS) {
      x -= job.mix[op];
      if (x < 0) return op;
    }
    return "search";
  };

  const request = (
    op: Op,
  ): { path: string; user: number; body?: Record<string, unknown>; target?: ForgetTarget } | null => {
    if (op === "ping") return { path: "me.agent", user: Math.floor(random() * job.users.length) };
    if (op === "search") {
      const s = job.searches[searchCursor++ % job.searches.length]!;
      const turn = job.turnlessSearches ? {} : { turn: { sessionId: job.users[s.user]!.session } };
      return { path: "tools.memory_search", user: s.user, body: { queryText: s.queryText, ...turn } };
    }
    const user = Math.floor(random() * job.users.length);
    const session = job.users[user]!.session;
    if (op === "context") {
      return {
        path: "tools.memory_context",
        user,
        body: { queryText: job.queries[Math.floor(random() * job.queries.length)]!, turn: { sessionId: session } },
      };
    }
    if (op === "write") {
      const n = writes++;
      const zh = random() < 0.5;
      return {
        path: "tools.memory_write",
        user,
        body: {
          operations: [
            {
              op: "create",
              kind: "custom_fact",
              itemKey: `load_${job.tag}_${n}`,
              explicitUserIntent: true,
              node: zh
                ? {
                    title: `负载测试记忆 ${n}`,
                    content: `用户在负载测试中保存的第 ${n} 条记忆：周四下午评审北极星项目预算。`,
                    tags: ["load"],
                  }
                : {
                    title: `Load test memory ${n}`,
                    content: `Memory ${n} saved during the load test: the Hermes budget review is on Thursday.`,
                    tags: ["load"],
                  },
            },
          ],
          turn: { sessionId: session },
        },
      };
    }
    const target = pool.length ? pool.splice(Math.floor(random() * pool.length), 1)[0]! : undefined;
    if (!target) return null;
    return {
      path: "tools.memory_forget",
      user: target.user,
      target,
      body: {
        id: target.id,
        expectedRevision: target.revision,
        reason: "the user asked to forget it (load test)",
        turn: { sessionId: job.users[target.user]!.session, forgetIntent: true },
      },
    };
  };

  const worker = async () => {
    for (;;) {
      const now = performance.now();
      if (now >= stopAt) return;
      let op = pickOp();
      let call = request(op);
      if (!call) {
        op = "write";
        call = request(op)!;
      }
      const url = new URL(`/api/trpc/${call.path}`, job.targets[rr++ % job.targets.length]);
      const t0 = performance.now();
      let status = 0;
      let text = "";
      try {
        ({ status, text } = await send(agent, url, job.users[call.user]!.secret, call.body));
      } catch (error) {
        text = error instanceof Error ? error.message : String(error);
      }
      const ms = performance.now() - t0;
      let ok = status === 200;
      let data: Record<string, unknown> | undefined;
      // Reads are checked by their envelope only: parsing every answer (~85 KB for a context) is work
      // for the driver, which shares the cores with what it measures. Writes and forgets are parsed.
      if (ok && (op === "search" || op === "context" || op === "ping"))
        ok = text.startsWith('{"result":{"data":{') && text.endsWith("}}}");
      else if (ok) {
        try {
          data = (JSON.parse(text) as { result?: { data?: Record<string, unknown> } }).result?.data;
        } catch {
          ok = false;
        }
      }
      if (ok && (op === "write" || op === "forget")) ok = data?.done === true;
      if (ok && op === "write") {
        const result = (data?.results as { nodeId?: string; revision?: number }[] | undefined)?.[0];
        if (result?.nodeId) pool.push({ id: result.nodeId, user: call.user, revision: result.revision ?? 1 });
      }
      if (!ok && call.target && status !== 200) pool.push(call.target);
      if (intervalMs > 0 && performance.now() >= measureFrom) {
        interval[op].latencies.push(round(ms));
        if (!ok) interval[op].failed++;
      }
      if (t0 >= measureFrom && t0 < stopAt) {
        const stats = ops[op];
        stats.latencies.push(round(ms));
        stats.statuses[String(status)] = (stats.statuses[String(status)] ?? 0) + 1;
        if (ok) stats.ok++;
        else {
          stats.failed++;
          if (errors.length < 20) errors.push(`${op} ${status}: ${text.slice(0, 300)}`);
        }
      }
    }
  };
  await Promise.all(Array.from({ length: job.concurrency }, worker));
  if (intervalMs > 0) {
    clearTimeout(intervalTimer);
    flushInterval();
  }
  agent.destroy();
  return { mode: "http", elapsedS: job.durationS, ops, forgetPool: pool, errors };
}

async function runSql(job: SqlJob): Promise<SqlResult> {
  const client = benchClient(job.url, { max: job.concurrency, onnotice: () => {}, idle_timeout: 30 });
  // Open the pool's connections before timing anything (the service's pool is warm too).
  await Promise.all(Array.from({ length: job.concurrency }, () => client`select 1`));
  const latencies: number[] = [];
  const perLabel: Record<string, number[]> = {};
  const errors: string[] = [];
  let failed = 0;
  let cursor = 0;
  const started = performance.now();
  const measureFrom = started + job.warmupS * 1000;
  const stopAt = measureFrom + job.durationS * 1000;
  const worker = async () => {
    while (performance.now() < stopAt) {
      const plan = job.plans[cursor++ % job.plans.length]!;
      const t0 = performance.now();
      const parts: [string, number][] = [];
      try {
        for (let i = 0; i < plan.length; i++) {
          const stmt = plan[i]!;
          const s0 = performance.now();
          if (isLocalSetting(stmt.text) && plan[i + 1]) {
            // A local setting + the next statement ran in one transaction in the service (e.g. the query log without a WAL flush).
            const next = plan[++i]!;
            await client.begin(async (tx) => {
              await tx.unsafe(stmt.text);
              await tx.unsafe(next.text, next.params as never[], { prepare: true });
            });
          } else {
            // Prepared, as the service sends them (src/db/client.ts withPreparedStatements).
            await client.unsafe(stmt.text, stmt.params as never[], { prepare: true });
          }
          parts.push([stmt.label, performance.now() - s0]);
        }
      } catch (error) {
        failed++;
        if (errors.length < 10) errors.push(error instanceof Error ? error.message : String(error));
        continue;
      }
      if (t0 >= measureFrom && t0 < stopAt) {
        latencies.push(round(performance.now() - t0));
        const sums = new Map<string, number>();
        for (const [label, ms] of parts) sums.set(label, (sums.get(label) ?? 0) + ms);
        for (const [label, ms] of sums) (perLabel[label] ??= []).push(round(ms));
      }
    }
  };
  await Promise.all(Array.from({ length: job.concurrency }, worker));
  await client.end({ timeout: 5 });
  return { mode: "sql", elapsedS: job.durationS, latencies, perLabel, failed, errors };
}

process.on("message", (message: { type: "run"; job: HttpJob | SqlJob }) => {
  if (message?.type !== "run") return;
  const run = message.job.mode === "http" ? runHttp(message.job) : runSql(message.job);
  run.then(
    (result) => process.send!({ type: "result", result }, () => process.exit(0)),
    (error: unknown) =>
      process.send!(
        { type: "error", error: error instanceof Error ? (error.stack ?? error.message) : String(error) },
        () => process.exit(1),
      ),
  );
});
