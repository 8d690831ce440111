import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { and, desc, eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { runCli, type CliOptions } from "~/cli/main";
import { apiKeys, memoryAuditEvents, memoryNodes, memoryQueryLog, tenantMembers, users } from "~/db/schema";
import { verifyCredentials } from "~/server/auth/accounts";
import { appendMessages } from "~/server/memory/evidence/messages";
import { parseScopePattern } from "~/server/memory/scope";
import { TENANT_MEMORY_TABLES } from "~/server/memory/forget/tenant-tables";
import { createKey, createOrg } from "../support/agents";
import { openTestDatabase, TEST_BACKEND, type TestDatabase } from "../support/db";
import { agentContext, createOp, createTenant, writeCards } from "../support/memory";

describe(`operator CLI against the database (${TEST_BACKEND})`, () => {
  let handle: TestDatabase;
  let a: Awaited<ReturnType<typeof createOrg>>;
  let b: Awaited<ReturnType<typeof createOrg>>;
  beforeAll(async () => {
    handle = await openTestDatabase();
    a = await createOrg(handle.db);
    b = await createOrg(handle.db);
  });
  afterAll(async () => handle?.destroy());
  afterEach(() => void vi.restoreAllMocks());

  /** Runs one command as `npm run memory -- …` would, on this test's database; returns its exit code and stdout/stderr lines. */
  async function cli(args: string[], options: CliOptions = {}) {
    const stdout: string[] = [];
    const stderr: string[] = [];
    vi.spyOn(console, "log").mockImplementation((line: unknown = "") => void stdout.push(String(line)));
    vi.spyOn(console, "error").mockImplementation((line: unknown) => void stderr.push(String(line)));
    vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    // runCli closes its handle when done; this test's database outlives every command.
    const code = await runCli(args, options, async () => ({ ...handle, close: async () => {} }));
    vi.restoreAllMocks();
    return { code, stdout, stderr };
  }

  const rowsOf = (table: (typeof TENANT_MEMORY_TABLES)[keyof typeof TENANT_MEMORY_TABLES], tenantId: string) =>
    handle.db.select().from(table).where(eq(table.tenantId, tenantId));

  it("keys list: every organisation's keys, oldest first, with state and last use", async () => {
    expect(await cli(["keys", "list"])).toEqual({ code: 0, stdout: ["No keys yet."], stderr: [] });
    const first = await createKey(handle.db, { tenantId: a.tenantId, ownerUserId: a.memberId });
    const second = await createKey(handle.db, { tenantId: a.tenantId, ownerUserId: a.adminId });
    const elsewhere = await createKey(handle.db, { tenantId: b.tenantId, ownerUserId: b.memberId });
    await handle.db
      .update(apiKeys)
      .set({ lastUsedAt: new Date("2030-01-02T03:04:05.000Z") })
      .where(eq(apiKeys.id, second.apiKey.id));
    const line = (key: typeof first.apiKey, lastUsed = "never") =>
      `${key.id}\t${key.prefix}…\ttest agent\tactive\tlast used ${lastUsed}`;
    expect(await cli(["keys", "list"])).toEqual({
      code: 0,
      stdout: [line(first.apiKey), line(second.apiKey, "2030-01-02T03:04:05.000Z"), line(elsewhere.apiKey)],
      stderr: [],
    });
    expect((await cli(["keys", "list"], { tenant: b.tenantId })).stdout).toEqual([line(elsewhere.apiKey)]);
  });

  it("keys revoke: finds the key in whichever organisation holds it, revokes it with the dashboard's audit row", async () => {
    const key = await createKey(handle.db, { tenantId: b.tenantId, ownerUserId: b.memberId });
    expect(await cli(["keys", "revoke", key.apiKey.id])).toEqual({
      code: 0,
      stdout: [`Revoked ${key.apiKey.id}.`],
      stderr: [],
    });
    const [row] = await handle.db.select().from(apiKeys).where(eq(apiKeys.id, key.apiKey.id));
    expect(row!.revokedAt).not.toBeNull();
    const [audit] = await handle.db
      .select()
      .from(memoryAuditEvents)
      .where(and(eq(memoryAuditEvents.tenantId, b.tenantId), eq(memoryAuditEvents.eventType, "key")))
      .orderBy(desc(memoryAuditEvents.id))
      .limit(1);
    expect(audit).toMatchObject({
      actorType: "system",
      actorId: null,
      reason: "api key revoked",
      after: { keyId: key.apiKey.id, revokedAt: row!.revokedAt!.toISOString() },
    });
    expect((await cli(["keys", "list"], { tenant: b.tenantId })).stdout).toContain(
      `${key.apiKey.id}\t${key.apiKey.prefix}…\ttest agent\trevoked\tlast used never`,
    );
    // Twice changes nothing; an unknown id (or one of another organisation than --tenant) is an error.
    expect((await cli(["keys", "revoke", key.apiKey.id])).code).toBe(0);
    const [again] = await handle.db.select().from(apiKeys).where(eq(apiKeys.id, key.apiKey.id));
    expect(again!.revokedAt).toEqual(row!.revokedAt);
    expect(await cli(["keys", "revoke", "key_nope"])).toEqual({ code: 1, stdout: [], stderr: ["No key key_nope."] });
    expect((await cli(["keys", "revoke", key.apiKey.id], { tenant: a.tenantId })).stderr).toEqual([
      `No key ${key.apiKey.id}.`,
    ]);
  });

  it("clear: erases every memory table of one organisation, scrubs its audit, keeps people, keys and other organisations", async () => {
    for (const org of [a, b]) {
      const ctx = agentContext(org.tenantId);
      await writeCards(
        handle.db,
        ctx,
        createOp(
          "custom_fact",
          { title: "Garden", content: "Grows tomatoes.", valueJson: "tomatoes" },
          { itemKey: "garden" },
        ),
      );
      await appendMessages(handle.db, ctx, {
        sessionId: "s1",
        userScopeId: "u1",
        messages: [{ role: "user", content: "My cat Miso loves sardines and I grow tomatoes." }],
      });
    }
    const held = async (tenantId: string) =>
      Object.fromEntries(
        await Promise.all(
          Object.entries(TENANT_MEMORY_TABLES).map(async ([name, table]) => [
            name,
            (await rowsOf(table, tenantId)).length,
          ]),
        ),
      );
    const before = await held(b.tenantId);
    expect(before).toMatchObject({ memoryNodes: 1, memoryMessages: 1, memoryEmbeddings: 0 });
    expect(before.memoryJobs).toBeGreaterThan(0);
    expect(before.memoryChunks).toBeGreaterThan(0);

    expect(await cli(["clear"], { yes: true, tenant: a.tenantId })).toEqual({
      code: 0,
      stdout: ["All memory of this organisation was erased."],
      stderr: [],
    });
    expect(
      Object.values(await held(a.tenantId)).every((n) => n === 0),
      JSON.stringify(await held(a.tenantId)),
    ).toBe(true);
    expect(await held(b.tenantId)).toEqual(before);
    const audit = await handle.db
      .select()
      .from(memoryAuditEvents)
      .where(eq(memoryAuditEvents.tenantId, a.tenantId))
      .orderBy(desc(memoryAuditEvents.id));
    expect(audit[0]).toMatchObject({
      eventType: "hard_delete",
      actorType: "system",
      actorId: "cli",
      reason: "memory clear from the CLI",
    });
    expect(audit.every((e) => e.before === null && e.after === null)).toBe(true);
    expect((await handle.db.select().from(apiKeys).where(eq(apiKeys.tenantId, a.tenantId))).length).toBeGreaterThan(0);
  });

  it("reindex-text: rebuilds search text stored by an earlier release (traditional Chinese, hyphenated words), once", async () => {
    const org = await createOrg(handle.db);
    const [id] = await writeCards(
      handle.db,
      agentContext(org.tenantId),
      createOp(
        "custom_fact",
        { title: "家裡的Wi-Fi", content: "家裡的 Wi-Fi 叫 Lighthouse。", valueJson: "Lighthouse" },
        { itemKey: "wifi" },
      ),
    );
    // As an earlier release indexed it: no whole "wifi", the traditional 裡.
    await handle.db
      .update(memoryNodes)
      .set({ searchTitle: "家 裡 的 wi fi", searchBody: "家 裡 的 wi fi 叫 lighthouse" })
      .where(eq(memoryNodes.id, id!));
    const first = await cli(["reindex-text", "--tenant", org.tenantId]);
    expect(first.code).toBe(0);
    expect(first.stdout.join("\n")).toContain("memory_nodes 1");
    const [row] = await handle.db.select().from(memoryNodes).where(eq(memoryNodes.id, id!));
    expect(row!.searchTitle.split(" ")).toEqual(expect.arrayContaining(["wifi", "家里"]));
    expect((await cli(["reindex-text", "--tenant", org.tenantId])).stdout.join("\n")).toContain("memory_nodes 0");
  });

  it("prune: deletes query log rows past the retention (default 30 days) and says how many", async () => {
    const tenantId = await createTenant(handle.db);
    const at = (days: number) => new Date(Date.now() - days * 86_400_000);
    await handle.db.insert(memoryQueryLog).values(
      [40, 1].map((days) => ({
        tenantId,
        operation: "memory_search",
        actorType: "user" as const,
        actorId: null,
        latencyMs: 2,
        resultCount: 0,
        createdAt: at(days),
      })),
    );
    const { code, stdout } = await cli(["prune"]);
    expect(code).toBe(0);
    expect(stdout[0]).toMatch(
      /^Pruned [1-9]\d* query log rows \(kept 30 days\), \d+ idempotency replies \(7 days\), \d+ finished jobs \(7 days\)\.$/,
    );
    const left = await handle.db.select().from(memoryQueryLog).where(eq(memoryQueryLog.tenantId, tenantId));
    expect(left.every((r) => r.createdAt.getTime() > at(30).getTime())).toBe(true);
  });
  it("export and import: one organisation's cards as JSONL into another, a dry run first, problems named by line", async () => {
    const source = await createOrg(handle.db);
    const target = await createOrg(handle.db);
    // The cards are a real person's (the source's member); a user scope must name a member of the
    // organisation it is imported into.
    const person = source.memberId;
    await writeCards(
      handle.db,
      agentContext(source.tenantId, {
        readScopes: [parseScopePattern(`user:${person}`)],
        writeScopes: [parseScopePattern(`user:${person}`)],
        defaults: { ...agentContext(source.tenantId).defaults, user: { type: "user", id: person } },
      }),
      createOp("profile_name", { title: "Name", content: "Ada.", valueJson: "Ada" }),
      createOp(
        "custom_fact",
        { title: "Commute", content: "Rides a bike to work.", valueJson: "bike" },
        { itemKey: "commute" },
      ),
    );
    const exported = await cli(["export"], { tenant: source.tenantId });
    expect(exported.code).toBe(0);
    expect(exported.stdout.map((l) => (JSON.parse(l) as { kind: string }).kind).sort()).toEqual([
      "custom_fact",
      "profile_name",
    ]);

    const dir = await mkdtemp(path.join(os.tmpdir(), "memory-cli-"));
    const file = path.join(dir, "cards.jsonl");
    const toFile = await cli(["export"], { tenant: source.tenantId, out: file });
    expect(toFile.stdout).toEqual([`Exported 2 card(s) to ${file}.`]);
    expect((await readFile(file, "utf8")).trimEnd().split("\n")).toEqual(exported.stdout);

    const active = async () =>
      (
        await handle.db
          .select()
          .from(memoryNodes)
          .where(and(eq(memoryNodes.tenantId, target.tenantId), eq(memoryNodes.status, "active")))
      )
        .map((r) => r.content)
        .sort();
    await writeFile(file, `${[...exported.stdout, "not json"].join("\n")}\n`);
    // Before the person is a member of the target, their scope names nobody there: every card line is refused by name.
    const refused = await cli(["import", file], { tenant: target.tenantId, "dry-run": true });
    expect(refused.code).toBe(1);
    expect(refused.stdout.slice(0, 2)).toEqual(
      [1, 2].map((line) =>
        expect.stringContaining(`line ${line}: rejected: user:${person} names nobody in this organisation`),
      ),
    );
    await handle.db.insert(tenantMembers).values({ tenantId: target.tenantId, userId: person, role: "member" });
    const dry = await cli(["import", file], { tenant: target.tenantId, "dry-run": true });
    expect(dry).toEqual({
      code: 1,
      stdout: [
        "line 3: rejected: not valid JSON",
        "Dry run (nothing was written): 2 created, 0 noop, 0 conflict, 0 superseded, 1 rejected, 0 skipped.",
      ],
      stderr: [],
    });
    expect(await active()).toEqual([]);

    await writeFile(file, `${exported.stdout.join("\n")}\n`);
    expect(await cli(["import", file], { tenant: target.tenantId })).toEqual({
      code: 0,
      stdout: ["Imported: 2 created, 0 noop, 0 conflict, 0 superseded, 0 rejected, 0 skipped."],
      stderr: [],
    });
    expect(await active()).toEqual(["Ada.", "Rides a bike to work."]);
    const [audit] = await handle.db
      .select()
      .from(memoryAuditEvents)
      .where(and(eq(memoryAuditEvents.tenantId, target.tenantId), eq(memoryAuditEvents.eventType, "import")));
    expect(audit).toMatchObject({ actorType: "user", actorId: target.adminId });
    // Again: every line already there.
    expect((await cli(["import", file], { tenant: target.tenantId })).stdout).toEqual([
      "Imported: 0 created, 2 noop, 0 conflict, 0 superseded, 0 rejected, 0 skipped.",
    ]);
    expect(await cli(["import", file], { tenant: target.tenantId, as: "nobody@example.com" })).toMatchObject({
      code: 1,
      stderr: ["No user nobody@example.com."],
    });
  });
  it("bench: names the benchmarks when given none it knows, without opening the install's database", async () => {
    let opened = false;
    vi.spyOn(console, "error").mockImplementation(() => {});
    const code = await runCli(["bench", "nope"], {}, async () => {
      opened = true;
      return { ...handle, close: async () => {} };
    });
    vi.restoreAllMocks();
    expect(code).toBe(1);
    expect(opened).toBe(false);
  });
  it("users add: a new person gets a generated password once; running it again changes neither role nor password, and never demotes the only admin", async () => {
    const org = await createOrg(handle.db);
    const adminEmail = (await handle.db.select({ email: users.email }).from(users).where(eq(users.id, org.adminId)))[0]!
      .email;
    const added = await cli(["users", "add", "new-person@example.com"], { tenant: org.tenantId });
    expect(added.stdout[0]).toBe(`new-person@example.com is member of organisation ${org.tenantId}.`);
    expect(added.stdout[1]).toMatch(/^Password \(shown once\): \S{16}$/);

    const again = await cli(["users", "add", adminEmail], { tenant: org.tenantId });
    expect(again).toEqual({
      code: 0,
      stdout: [
        `${adminEmail} is admin of organisation ${org.tenantId}.`,
        "Their password is unchanged (give --password to set a new one).",
      ],
      stderr: [],
    });
    expect(await verifyCredentials(handle.db, adminEmail, "admin password")).not.toBeNull();

    expect(await cli(["users", "add", adminEmail], { tenant: org.tenantId, member: true })).toMatchObject({
      code: 1,
      stderr: [expect.stringMatching(/only admin/)],
    });
    expect(
      (await cli(["users", "add", adminEmail], { tenant: org.tenantId, password: "a brand new password" })).stdout[1],
    ).toBe("Their password was changed.");
    expect(await verifyCredentials(handle.db, adminEmail, "a brand new password")).not.toBeNull();
  });
  it("keys create: says when a scope reaches nothing because the owner has no grant for it", async () => {
    const org = await createOrg(handle.db);
    const memberEmail = (
      await handle.db.select({ email: users.email }).from(users).where(eq(users.id, org.memberId))
    )[0]!.email;
    const created = await cli(["keys", "create"], {
      tenant: org.tenantId,
      user: memberEmail,
      scopes: `user:${org.memberId},user:${org.adminId},workspace:w9`,
    });
    expect(created.code).toBe(0);
    expect(created.stdout.at(-1)).toBe(
      `Note: ${memberEmail} has no grant for user:${org.adminId}, workspace:w9; the key reaches nothing there until they do.`,
    );
    // The defaults name no scope the owner lacks (workspace:* is whatever they are granted): no note.
    const defaults = await cli(["keys", "create"], { tenant: org.tenantId, user: memberEmail });
    expect(defaults.stdout.at(-1)).toMatch(/^Secret \(shown once, store it now\): mem_live_/);
  });
  it("keys create: refuses an expiry that is no number of days, a malformed scope and an owner outside the organisation, creating nothing", async () => {
    const org = await createOrg(handle.db);
    const other = await createOrg(handle.db);
    const memberEmail = (
      await handle.db.select({ email: users.email }).from(users).where(eq(users.id, org.memberId))
    )[0]!.email;
    const before = await handle.db.select().from(apiKeys).where(eq(apiKeys.tenantId, org.tenantId));
    for (const days of ["30d", "0", "-5"]) {
      expect(
        await cli(["keys", "create"], { tenant: org.tenantId, user: memberEmail, "expires-days": days }),
        days,
      ).toMatchObject({ code: 1, stderr: [expect.stringMatching(/--expires-days takes a positive number of days/)] });
    }
    expect(
      await cli(["keys", "create"], { tenant: org.tenantId, user: memberEmail, scopes: "user:me,nonsense" }),
    ).toMatchObject({ code: 1, stderr: [expect.stringMatching(/"nonsense" is not a scope/)] });
    expect(await cli(["keys", "create"], { tenant: other.tenantId, user: memberEmail })).toMatchObject({
      code: 1,
      stderr: [expect.stringMatching(/is not a member of organisation/)],
    });
    expect(await handle.db.select().from(apiKeys).where(eq(apiKeys.tenantId, org.tenantId))).toHaveLength(
      before.length,
    );
    const dated = await cli(["keys", "create"], { tenant: org.tenantId, user: memberEmail, "expires-days": "30" });
    expect(dated.code).toBe(0);
    const [newest] = await handle.db
      .select()
      .from(apiKeys)
      .where(eq(apiKeys.tenantId, org.tenantId))
      .orderBy(desc(apiKeys.createdAt))
      .limit(1);
    expect(newest!.expiresAt!.getTime()).toBeGreaterThan(Date.now() + 29 * 86_400_000);
  });
});
