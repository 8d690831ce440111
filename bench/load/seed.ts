// Seeds the load benchmark's database: one organisation with many members (each with an API key,
// sessions and a workspace), a neighbouring organisation, N cards bulk-inserted with the app's own
// column builders, a few hundred cards written through memoryWrite, and session messages through
// appendMessages. Seeding is not what is measured; it only has to be realistic and fast.
import { sql } from "drizzle-orm";
import { memoryNodes, memoryNodeUsage, scopeGrants, type ApiKey } from "~/db/schema";
import type { Database, DbOrTx } from "~/db/types";
import { addUserToTenant, registerAccount } from "~/server/auth/accounts";
import { createApiKey } from "~/server/auth/api-keys";
import { buildAgentCallContext } from "~/server/auth/permissions";
import { newId } from "~/server/ids";
import { canonicalKey } from "~/server/memory/kinds/canonical-key";
import { resolveKind } from "~/server/memory/kinds/registry";
import { appendMessages } from "~/server/memory/evidence/messages";
import { buildCardSearchFields } from "~/server/memory/store/search-fields";
import { memoryWrite } from "~/server/memory/write/write";
import { itemCard, profileCards, rng, sessionMessages, type CardSpec, type Rng } from "./corpus";
import { withCardIndexesBuiltAfterLoad, withShadowMarksAfterLoad } from "./index-after-load";
import { registerTreeSubscribers } from "~/server/tree";

// Messages stored here become memory-tree chunks, as in the server (src/server/tree/subscribers.ts).
registerTreeSubscribers();

export type BenchUser = {
  index: number;
  id: string;
  secret: string;
  key: ApiKey;
  sessions: string[];
  workspace: string;
};
export type ForgetTarget = { id: string; user: number; revision: number };
export type SeedResult = {
  tenantId: string;
  neighbourTenantId: string;
  users: BenchUser[];
  forgetPool: ForgetTarget[];
  counts: Record<string, number>;
  seconds: Record<string, number>;
  writePathMs: number[];
};

type CardInsert = typeof memoryNodes.$inferInsert;
type Scope = { type: "user" | "session" | "workspace" | "global"; id: string };

const DAY = 86_400_000;
const SESSIONS_PER_USER = 3;
const WORKSPACES = 20;

/** Recall counts and hotness of the generated cards (most were recalled some time), inserted with them. */
const seededUsage = new Map<string, typeof memoryNodeUsage.$inferInsert>();

/** A card row exactly as memoryWrite would store it: registry key/domain/category, segmented search columns. */
function cardRow(r: Rng, tenantId: string, scope: Scope, spec: CardSpec, actorId: string, now: number): CardInsert {
  const def = resolveKind(spec.kind);
  if (!def) throw new Error(`unknown kind ${spec.kind}`);
  const key = canonicalKey(def, def.itemized ? spec.itemKey : null);
  if (!key.ok) throw new Error(`bad item key ${spec.itemKey}: ${key.message}`);
  const id = newId("mem");
  const at = new Date(now - r.int(180) * DAY - r.int(DAY));
  const hotness = r.int(100) / 100;
  const recallCount = r.int(20);
  if (recallCount > 0) seededUsage.set(id, { tenantId, nodeId: id, recallCount, lastRecalledAt: at, hotness });
  return {
    tenantId,
    id,
    scopeType: scope.type,
    scopeId: scope.id,
    kind: def.kind,
    key: key.key,
    itemKey: key.itemKey,
    domain: def.domain,
    categoryPath: [...def.categoryPath],
    categoryPathText: def.categoryPath.join("/"),
    type: def.type,
    valueJson: spec.valueJson ?? null,
    title: spec.title,
    content: spec.content,
    status: "active",
    revision: 1,
    lineageId: id,
    supersedesId: null,
    confidence: 0.6 + r.int(40) / 100,
    importance: 0.3 + r.int(60) / 100,
    tags: spec.tags,
    entities: spec.entities,
    sourceMessageIds: [],
    explicitUserIntent: true,
    createdByType: "api_key",
    createdById: actorId,
    updatedByType: "api_key",
    updatedById: actorId,
    createdAt: at,
    updatedAt: at,
    ...buildCardSearchFields({
      title: spec.title,
      content: spec.content,
      key: key.key,
      itemKey: key.itemKey,
      entities: spec.entities,
      tags: spec.tags,
      valueJson: spec.valueJson,
      categoryPath: def.categoryPath,
    }),
  };
}

/** The active card plus, sometimes, the revision it superseded (same lineage), as a history would hold. */
function withHistory(r: Rng, row: CardInsert, share: number): CardInsert[] {
  if (!r.chance(share)) return [row];
  const old: CardInsert = {
    ...row,
    id: newId("mem"),
    status: "superseded",
    revision: 1,
    createdAt: new Date(row.createdAt!.getTime() - 30 * DAY),
    content: `${row.content} (earlier version)`,
  };
  old.lineageId = old.id;
  old.supersededById = row.id;
  old.endedAt = row.createdAt;
  old.searchBody = `${row.searchBody} earlier version`;
  return [old, { ...row, revision: 2, lineageId: old.id, supersedesId: old.id }];
}

async function bulkInsert(db: DbOrTx, rows: CardInsert[], onProgress?: (done: number) => void) {
  const BATCH = 400;
  const PER_TX = 10;
  for (let i = 0; i < rows.length; i += BATCH * PER_TX) {
    await db.transaction(async (tx) => {
      for (let j = i; j < Math.min(rows.length, i + BATCH * PER_TX); j += BATCH) {
        const batch = rows.slice(j, j + BATCH);
        await tx.insert(memoryNodes).values(batch);
        const usage = batch.flatMap((row) => seededUsage.get(row.id) ?? []);
        if (usage.length > 0) await tx.insert(memoryNodeUsage).values(usage);
      }
    });
    onProgress?.(Math.min(rows.length, i + BATCH * PER_TX));
  }
}

/** Generates `total` card rows over the given scopes: every user's profile slots first, then itemized cards. */
function generateCards(
  r: Rng,
  tenantId: string,
  total: number,
  users: { id: string; keyId: string; sessions: string[] }[],
  options: { withWorkspaces: boolean },
): CardInsert[] {
  const now = Date.now();
  const rows: CardInsert[] = [];
  for (const user of users) {
    if (rows.length >= total) break;
    for (const spec of profileCards(r, `user-${user.id.slice(-4)}`))
      rows.push(cardRow(r, tenantId, { type: "user", id: user.id }, spec, user.keyId, now));
  }
  let n = 0;
  while (rows.length < total) {
    const user = users[r.int(users.length)]!;
    const roll = r.next();
    const scope: Scope =
      roll < 0.58
        ? { type: "user", id: user.id }
        : roll < 0.83
          ? { type: "session", id: r.pick(user.sessions) }
          : roll < 0.98 && options.withWorkspaces
            ? { type: "workspace", id: `w-${r.int(WORKSPACES)}` }
            : { type: "global", id: "" };
    const spec = itemCard(r, scope.type, n++);
    for (const row of withHistory(r, cardRow(r, tenantId, scope, spec, user.keyId, now), 0.1))
      if (rows.length < total) rows.push(row);
  }
  return rows.slice(0, total);
}

export type SeedParams = {
  cards: number;
  users: number;
  seed: number;
  memoryWrites: number;
  /** Build memory_nodes' secondary indexes after the bulk insert, as a restore would (see index-after-load.ts). */
  indexAfterLoad: boolean;
  log: (line: string) => void;
};

export async function seed(db: Database, params: SeedParams): Promise<SeedResult> {
  const r = rng(params.seed);
  const seconds: Record<string, number> = {};
  const timed = async <T>(label: string, run: () => Promise<T>): Promise<T> => {
    const t0 = performance.now();
    const out = await run();
    seconds[label] = +((performance.now() - t0) / 1000).toFixed(1);
    params.log(`  ${label}: ${seconds[label]} s`);
    return out;
  };
  const tag = Date.now().toString(36);

  // People: an admin (first account or open sign-up), then members, each with a workspace grant and a key.
  const { tenantId, users } = await timed("users and keys", async () => {
    const admin = await registerAccount(db, {
      email: `bench-admin-${tag}@example.com`,
      password: "bench admin password",
      name: "Bench admin",
      openSignup: true,
    });
    const users: BenchUser[] = [];
    for (let i = 0; i < params.users; i++) {
      const member = await addUserToTenant(db, {
        email: `bench-${i}-${tag}@example.com`,
        role: "member",
        tenantId: admin.tenantId,
        actorUserId: admin.user.id,
      });
      const workspace = `w-${i % WORKSPACES}`;
      await db.insert(scopeGrants).values({
        tenantId: admin.tenantId,
        id: newId("grt"),
        principalType: "user",
        principalId: member.user.id,
        scope: `workspace:${workspace}`,
        canRead: true,
        canWrite: true,
        grantedByUserId: admin.user.id,
      });
      const { apiKey, secret } = await createApiKey(db, {
        tenantId: admin.tenantId,
        ownerUserId: member.user.id,
        createdByUserId: admin.user.id,
        name: `bench agent ${i}`,
        scopes: [`user:${member.user.id}`, "session:*", `workspace:${workspace}`, "global"],
        permissions: ["memory:read", "memory:write", "memory:forget", "messages:write"],
      });
      const sessions = Array.from({ length: SESSIONS_PER_USER }, (_, k) => `s-${i}-${k}-${tag}`);
      users.push({ index: i, id: member.user.id, secret, key: apiKey, sessions, workspace });
    }
    return { tenantId: admin.tenantId, users };
  });

  // The neighbour: another organisation with a tenth as many cards, which no benchmark key may ever see.
  const neighbour = await registerAccount(db, {
    email: `bench-neighbour-${tag}@example.com`,
    password: "bench neighbour password",
    name: "Neighbour",
    openSignup: true,
  });
  const neighbourTenantId = neighbour.tenantId;
  const neighbourRows = generateCards(
    r,
    neighbourTenantId,
    Math.max(1, Math.floor(params.cards / 10)),
    [{ id: neighbour.user.id, keyId: "key_neighbour", sessions: [`s-neighbour-${tag}`] }],
    {
      withWorkspaces: false,
    },
  );
  const rows = generateCards(
    r,
    tenantId,
    params.cards,
    users.map((u) => ({ id: u.id, keyId: u.key.id, sessions: u.sessions })),
    { withWorkspaces: true },
  );
  const load = async (tx: DbOrTx) => {
    await bulkInsert(tx, neighbourRows);
    await bulkInsert(tx, rows, (done) => {
      if (done % 20_000 < 4000 || done === rows.length) params.log(`    ${done}/${rows.length}`);
    });
  };
  await timed(
    `bulk insert of ${rows.length} cards (+${neighbourRows.length} of the neighbour)${params.indexAfterLoad ? ", indexes built after" : ""}`,
    () =>
      params.indexAfterLoad
        ? withCardIndexesBuiltAfterLoad(db, (tx) => withShadowMarksAfterLoad(tx, load, params.log), params.log)
        : withShadowMarksAfterLoad(db, load, params.log),
  );

  // Through the product's write path: proves it on this data and gives memory_forget its targets.
  const forgetPool: ForgetTarget[] = [];
  const writePathMs: number[] = [];
  await timed(`memoryWrite of ${params.memoryWrites} cards`, async () => {
    for (let i = 0; i < params.memoryWrites; i++) {
      const user = users[i % users.length]!;
      const ctx = await buildAgentCallContext(db, user.key, { sessionId: user.sessions[0] });
      const spec = itemCard(r, "user", 1_000_000 + i);
      const t0 = performance.now();
      const result = await memoryWrite(db, ctx, {
        operations: [
          {
            op: "create",
            kind: "custom_fact",
            itemKey: `bench_seed_${i}`,
            explicitUserIntent: true,
            node: { title: spec.title, content: spec.content, tags: spec.tags },
          },
        ],
      });
      writePathMs.push(performance.now() - t0);
      const first = result.results[0];
      if (!result.done || !first?.nodeId)
        throw new Error(`memoryWrite failed while seeding: ${JSON.stringify(result)}`);
      forgetPool.push({ id: first.nodeId, user: user.index, revision: first.revision ?? 1 });
    }
  });

  // Evidence: two sessions of six turns per member, through appendMessages (hot path included).
  let messages = 0;
  await timed("session messages", async () => {
    const jobs = users.flatMap((user) => user.sessions.slice(0, 2).map((sessionId) => ({ user, sessionId })));
    const worker = async () => {
      for (let job = jobs.shift(); job; job = jobs.shift()) {
        const batch = sessionMessages(r);
        await appendMessages(
          db,
          { tenantId, actor: { type: "api_key", id: job.user.key.id } },
          { sessionId: job.sessionId, userScopeId: job.user.id, messages: batch },
        );
        messages += batch.length;
      }
    };
    await Promise.all(Array.from({ length: 4 }, worker));
  });

  // A production table would have been vacuumed and analyzed (autovacuum); give this one the same, so
  // that autovacuum does not pick the freshly loaded rows up in the middle of a measurement.
  await timed("vacuum analyze", async () => {
    await db.execute(sql`vacuum analyze`);
  });

  const statuses = await db.execute(
    sql`select status, count(*)::int as n from memory_nodes where tenant_id = ${tenantId} group by status`,
  );
  const counts: Record<string, number> = { users: users.length, messages };
  for (const row of (Array.isArray(statuses) ? statuses : (statuses as unknown as { rows: unknown[] }).rows) as {
    status: string;
    n: number;
  }[])
    counts[`cards_${row.status}`] = Number(row.n);
  counts.neighbour_cards = Math.max(1, Math.floor(params.cards / 10));
  return { tenantId, neighbourTenantId, users, forgetPool, counts, seconds, writePathMs };
}
