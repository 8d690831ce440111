import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { memoryChunks, memoryMessages, tenants } from "~/db/schema";
import { writeGeneration } from "~/db/write-generation";
import { appendMessages } from "~/server/memory/evidence/messages";
import { memorySearch } from "~/server/memory/retrieval/search";
import { openTestDatabase, TEST_BACKEND, type TestDatabase } from "../support/db";
import { agentContext, createTenant, importedChunk, noVectors } from "../support/memory";

describe(`write generations (${TEST_BACKEND})`, () => {
  let handle: TestDatabase;
  beforeAll(async () => {
    handle = await openTestDatabase();
  });
  afterAll(async () => handle?.destroy());

  const generation = (table: string) => writeGeneration(handle.db, table);

  it("moves a table's generation on every write to it, in or out of a transaction, and not on reads or other tables' writes", async () => {
    if (handle.mode === "server") {
      // Other processes write to a server database: no generation can vouch for a cache there.
      expect(generation("memory_messages")).toBeUndefined();
      return;
    }
    const tenantId = await createTenant(handle.db);
    const before = generation("memory_messages")!;
    const chunks = generation("memory_chunks")!;
    await handle.db.select().from(memoryMessages).limit(1);
    await handle.db.execute(sql`select count(*) from memory_messages`);
    await handle.db.execute(sql`with recent as (select id from memory_messages limit 1) select count(*) from recent`);
    // A transaction's settings and savepoints change nothing; its reads neither.
    await handle.db.transaction(async (tx) => {
      await tx.execute(sql`set local synchronous_commit = off`);
      await tx.transaction(async (inner) => void (await inner.select().from(memoryMessages).limit(1)));
    });
    expect(generation("memory_messages")).toBe(before);
    await handle.db
      .update(tenants)
      .set({ name: "renamed" })
      .where(sql`${tenants.id} = ${tenantId}`);
    expect(generation("memory_messages")).toBe(before);
    await appendMessages(handle.db, agentContext(tenantId), {
      sessionId: "s1",
      userScopeId: "u1",
      messages: [{ role: "user", content: "hello" }],
    });
    const afterAppend = generation("memory_messages")!;
    expect(afterAppend).toBeGreaterThan(before);
    await handle.db.transaction(async (tx) => {
      await tx.insert(memoryChunks).values(importedChunk(tenantId, "chunk-gen-1", "imported"));
    });
    expect(generation("memory_chunks")).toBeGreaterThan(chunks);
    // A common-table expression moves the tables it writes, and only those: leasing jobs (a row
    // lock, then an update) and counting a rate limit (an upsert) leave the memory tables be.
    const messages = generation("memory_messages")!;
    const chunksBefore = generation("memory_chunks")!;
    await handle.db.execute(
      sql`with gone as (delete from memory_chunks where id = 'chunk-gen-1' returning id) select count(*) from gone`,
    );
    expect(generation("memory_chunks")).toBeGreaterThan(chunksBefore);
    const jobs = generation("memory_jobs")!;
    await handle.db.execute(
      sql`with picked as (select id from memory_jobs where false for no key update skip locked) update memory_jobs set status = status where id in (select id from picked)`,
    );
    expect(generation("memory_jobs")).toBeGreaterThan(jobs);
    const buckets = generation("rate_limit_buckets")!;
    const set = generation("set")!; // `do update set` names no table
    await handle.db.execute(
      sql`insert into rate_limit_buckets (bucket, window_start, count) values (${tenantId}, 0, 1) on conflict (bucket) do update set count = rate_limit_buckets.count + 1`,
    );
    expect(generation("rate_limit_buckets")).toBeGreaterThan(buckets);
    expect(generation("memory_messages")).toBe(messages);
    expect(generation("set")).toBe(set);
    // A write whose tables are not read here (copy, truncate, merge) moves every table.
    await handle.db.execute(sql`truncate table rate_limit_buckets`);
    expect(generation("memory_messages")).toBeGreaterThan(messages);
    // Several statements at once are not read one by one: every table moves.
    const beforeExec = generation("memory_nodes")!;
    const client = (handle.db as unknown as { $client: { exec: (text: string) => Promise<unknown> } }).$client;
    await client.exec("select 1; select 2;");
    expect(generation("memory_nodes")).toBeGreaterThan(beforeExec);
  });

  it("counts a scope found empty once, until something is written to its table, and finds the first row then", async () => {
    const tenantId = await createTenant(handle.db);
    const ctx = agentContext(tenantId);
    const question = { queryText: "quarterly budget review", includeEvidence: true };
    const counts: string[] = [];
    const client = (handle.db as unknown as { $client: { query?: (text: string, ...rest: unknown[]) => unknown } })
      .$client;
    const spied = handle.mode === "embedded" ? client : undefined;
    const query = spied?.query?.bind(spied);
    if (spied && query)
      spied.query = (text: string, ...rest: unknown[]) => {
        if (/select count\(\*\) as n/.test(text) && text.includes("memory_chunks")) counts.push(text);
        return query(text, ...rest);
      };
    try {
      expect((await memorySearch(handle.db, ctx, question, noVectors)).evidence).toEqual([]);
      expect((await memorySearch(handle.db, ctx, question, noVectors)).evidence).toEqual([]);
      if (spied) expect(counts).toHaveLength(1);
      const content = "The quarterly budget review moved to Friday.";
      await handle.db.insert(memoryChunks).values(importedChunk(tenantId, "chunk-gen-2", content));
      const found = await memorySearch(handle.db, ctx, question, noVectors);
      expect(found.evidence?.map((e) => e.id)).toEqual(["chunk-gen-2"]);
      if (spied) expect(counts).toHaveLength(2);
    } finally {
      if (spied && query) spied.query = query;
    }
  });
});
