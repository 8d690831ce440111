/**
 * Fault 1: the process is SIGKILLed while memoryWrite batches are committing. Every batch is one
 * transaction, so after the crash each batch is either complete (all N cards, N create audit rows,
 * N embed jobs) or absent, every batch the child saw commit is there, and the database keeps working.
 */
import fs from "node:fs";
import path from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { openDatabase } from "~/db/client";
import { lockOwnerPid } from "~/db/embedded-lock";
import { queryRows } from "~/db/raw";
import type { Database } from "~/db/types";
import { memorySearch } from "~/server/memory/retrieval/search";
import { memoryWrite } from "~/server/memory/write/write";
import { createEmptyServerDatabase } from "../support/db";
import { agentContext, createTenant } from "../support/memory";
import {
  copyPgliteTemplate,
  count,
  KEEPER_CONTENT,
  describeServer,
  FaultChild,
  processIsAlive,
  randomBetween,
  sleep,
  TEMPLATE_TENANT,
  withApplicationName,
  type ChildEvent,
} from "./support";

const BATCH = 8;

type Round = { committed: Set<number>; begun: Set<number> };

/** Starts the writer child, lets it commit for a random 0.5–2 s after its first commit, then SIGKILLs it. */
async function killWriterMidStream(
  target: { url?: string; dataDir?: string },
  tenantId: string,
  firstBatch: number,
  concurrency: number,
): Promise<Round> {
  const child = new FaultChild("write-loop.ts", { ...target, tenantId, batchSize: BATCH, firstBatch, concurrency });
  await child.waitFor((e) => e.event === "committed", 60_000);
  await sleep(randomBetween(500, 2000));
  await child.kill();
  const batches = (name: string) => new Set(child.named(name).map((e: ChildEvent) => Number(e.batch)));
  return { committed: batches("committed"), begun: batches("begin") };
}

/** The all-or-nothing invariant, checked per batch and in total; returns the batches present. */
async function assertNoPartialBatch(
  db: Database,
  tenantId: string,
  round: { committed: Set<number>; begun: Set<number> },
) {
  const perBatch = await queryRows<{ tag: string; cards: number; audits: number; jobs: number }>(
    db,
    sql`select n.tags[1] as tag, count(*)::int as cards,
          (select count(*)::int from memory_audit_events a where a.tenant_id = ${tenantId} and a.event_type = 'create' and a.node_id = any(array_agg(n.id))) as audits,
          (select count(*)::int from memory_jobs j where j.tenant_id = ${tenantId} and j.type = 'embed' and j.payload->>'id' = any(array_agg(n.id))) as jobs
        from memory_nodes n where n.tenant_id = ${tenantId} and n.tags[1] like 'batch-%' group by 1`,
  );
  const present = new Set<number>();
  for (const row of perBatch) {
    expect({ tag: row.tag, cards: row.cards, audits: row.audits, jobs: row.jobs }).toEqual({
      tag: row.tag,
      cards: BATCH,
      audits: BATCH,
      jobs: BATCH,
    });
    present.add(Number(row.tag.slice("batch-".length)));
  }
  // Acknowledged commits survived the crash; nothing appeared that was never begun.
  for (const batch of round.committed) expect(present.has(batch), `committed batch ${batch} is missing`).toBe(true);
  for (const batch of present) expect(round.begun.has(batch), `batch ${batch} was never begun`).toBe(true);
  // No orphans on either side: every card has its create audit row and embed job, and every one of those has its card.
  const orphans = await queryRows<{
    cards_without_audit: number;
    audits_without_card: number;
    jobs_without_card: number;
  }>(
    db,
    sql`select
          (select count(*)::int from memory_nodes n where n.tenant_id = ${tenantId} and not exists (select 1 from memory_audit_events a where a.tenant_id = n.tenant_id and a.node_id = n.id and a.event_type = 'create')) as cards_without_audit,
          (select count(*)::int from memory_audit_events a where a.tenant_id = ${tenantId} and a.event_type = 'create' and not exists (select 1 from memory_nodes n where n.tenant_id = a.tenant_id and n.id = a.node_id)) as audits_without_card,
          (select count(*)::int from memory_jobs j where j.tenant_id = ${tenantId} and j.type = 'embed' and not exists (select 1 from memory_nodes n where n.tenant_id = j.tenant_id and n.id = j.payload->>'id')) as jobs_without_card`,
  );
  expect(orphans[0]).toEqual({ cards_without_audit: 0, audits_without_card: 0, jobs_without_card: 0 });
  return present;
}

/** After the crash the database still reads and writes: one more batch commits and is found. */
async function assertStillWorks(db: Database, tenantId: string) {
  const ctx = agentContext(tenantId);
  const written = await memoryWrite(db, ctx, {
    operations: [
      {
        op: "create",
        kind: "custom_fact",
        itemKey: "after-crash",
        explicitUserIntent: true,
        node: { title: "After the crash", content: "Written after the crash.", tags: ["after-crash"] },
      },
    ],
  });
  expect(written.done).toBe(true);
  const found = await memorySearch(db, ctx, { tags: ["after-crash"] }, { embeddings: null, logQuery: false });
  expect(found.exact.map((n) => n.id)).toEqual([written.results[0]!.nodeId]);
}

describe("SIGKILL during batch writes: embedded (PGlite data dir)", () => {
  it("leaves whole batches or none, and the next open takes over the dead process's lock", async () => {
    const dataDir = copyPgliteTemplate();
    const tenantId = TEMPLATE_TENANT;
    const round = await killWriterMidStream({ dataDir }, tenantId, 0, 2);
    // The dead child's lock file is still there, naming a pid that no longer runs.
    const owner = lockOwnerPid(`${dataDir}.lock`)!;
    expect(owner).not.toBe(process.pid);
    expect(processIsAlive(owner)).toBe(false);
    const handle = await openDatabase({ dataDir });
    expect(lockOwnerPid(`${dataDir}.lock`)).toBe(process.pid);
    const present = await assertNoPartialBatch(handle.db, tenantId, round);
    expect(present.size).toBeGreaterThan(0);
    // Data from before the crash is untouched.
    expect(
      await count(
        handle.db,
        sql`select count(*)::int as n from memory_nodes where tenant_id = ${tenantId} and content = ${KEEPER_CONTENT} and status = 'active'`,
      ),
    ).toBe(1);
    // It died with batches in flight (begun, never acknowledged).
    expect([...round.begun].some((b) => !round.committed.has(b))).toBe(true);
    await assertStillWorks(handle.db, tenantId);
    await handle.close();
    expect(fs.existsSync(`${dataDir}.lock`)).toBe(false);
    fs.rmSync(path.dirname(dataDir), { recursive: true, force: true });
  });
});

describeServer("SIGKILL during batch writes: server (Postgres)", () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const fn of cleanup.reverse()) await fn();
  });

  it("leaves whole batches or none; the server drops the dead client's sessions and keeps serving", async () => {
    const { url, drop } = await createEmptyServerDatabase();
    cleanup.push(drop);
    const handle = await openDatabase({ url, poolMax: 2 });
    cleanup.push(() => handle.close());
    const tenantId = await createTenant(handle.db);
    const committed = new Set<number>();
    const begun = new Set<number>();
    for (let round = 0; round < 2; round++) {
      const result = await killWriterMidStream(
        { url: withApplicationName(url, "fault-writer") },
        tenantId,
        round * 10_000,
        4,
      );
      result.committed.forEach((b) => committed.add(b));
      result.begun.forEach((b) => begun.add(b));
      // The killed client's backends notice the closed sockets, roll back and exit.
      const others = sql`select count(*)::int as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and application_name = 'fault-writer'`;
      for (let i = 0; i < 100 && (await count(handle.db, others)) > 0; i++) await sleep(100);
      expect(await count(handle.db, others)).toBe(0);
      const present = await assertNoPartialBatch(handle.db, tenantId, { committed, begun });
      expect(present.size).toBeGreaterThan(0);
      expect([...result.begun].some((b) => !result.committed.has(b))).toBe(true);
    }
    await assertStillWorks(handle.db, tenantId);
  });
});
