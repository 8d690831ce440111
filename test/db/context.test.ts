import { SQL } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "~/db/types";
import type { MemoryCallContext } from "~/server/memory/call-context";
import { saveCustomKind } from "~/server/memory/kinds/custom";
import { appendMessages } from "~/server/memory/evidence/messages";
import { buildMemoryContext } from "~/server/memory/retrieval/memory-context";
import { memorySearch } from "~/server/memory/retrieval/search";
import { countTokens } from "~/server/text/token-count";
import { parseScopePattern } from "~/server/memory/scope";
import { appendSummary } from "~/server/memory/evidence/summaries";
import { openTestDatabase, TEST_BACKEND, type TestDatabase } from "../support/db";
import { agentContext, createOp as create, createTenant, noVectors, type Op, writeCards } from "../support/memory";

/** A database object whose calls fail (all, or those `which` picks), as a dead connection pool would. */
function failingDatabase(real: Database, which: (prop: string, args: unknown[]) => boolean = () => true): Database {
  return new Proxy(real, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof value === "function" && typeof prop === "string") {
        return (...args: unknown[]) => {
          if (which(prop, args)) throw new Error("connect ECONNREFUSED 127.0.0.1:5432");
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      }
      return value;
    },
  });
}

/** The text of a raw statement passed to `execute`. */
const statementText = (query: unknown) =>
  query instanceof SQL ? new PgDialect().sqlToQuery(query).sql : String(query);

describe(`buildMemoryContext (${TEST_BACKEND})`, () => {
  let handle: TestDatabase;
  beforeAll(async () => {
    handle = await openTestDatabase();
  });
  afterAll(async () => handle?.destroy());

  const write = (ctx: MemoryCallContext, ...operations: Op[]) => writeCards(handle.db, ctx, ...operations);

  async function seed() {
    const tenantId = await createTenant(handle.db);
    const ctx = agentContext(tenantId);
    const [allergy, language, task, cilantro, nurse, shifts] = await write(
      ctx,
      create("hard_constraint", {
        title: "No peanuts",
        content: "Severe peanut allergy: never suggest peanuts.",
        valueJson: "peanut allergy",
      }),
      create("language_preference", { title: "Language", content: "Answer in Chinese.", valueJson: "zh" }),
      create(
        "active_task",
        { title: "Plan Kyoto trip", content: "Planning a trip to Kyoto in April.", valueJson: "kyoto trip" },
        { itemKey: "kyoto" },
      ),
      create("avoid_ingredient", {
        title: "用户不吃香菜 (cilantro)",
        content: "推荐菜谱时避免香菜。",
        valueJson: "香菜",
      }),
      create("occupation", { title: "Job", content: "Works as a nurse.", valueJson: "nurse" }),
      create(
        "custom_fact",
        { title: "Shift pattern", content: "Works night shifts on Tuesdays and Fridays.", valueJson: "tue/fri nights" },
        { itemKey: "shifts" },
      ),
    );
    const turn = await appendMessages(handle.db, ctx, {
      sessionId: "s1",
      userScopeId: "u1",
      messages: [
        { role: "user", content: "What should I cook tonight?" },
        { role: "assistant", content: "How about tomato and egg stir-fry?" },
      ],
    });
    await appendSummary(handle.db, ctx, {
      sessionId: "s1",
      parentSummaryId: null,
      fromMessageId: turn.messages[0]!.id,
      toMessageId: turn.messages[1]!.id,
      summary: "The user asked for dinner ideas.",
    });
    // Another session's messages and temporary state: never part of s1's turn.
    await appendMessages(handle.db, ctx, {
      sessionId: "s2",
      userScopeId: "u1",
      messages: [{ role: "user", content: "Other session secret about the nurse job." }],
    });
    const [otherSession] = await write(
      ctx,
      create(
        "temporary_state",
        { title: "Tired", content: "Tired after a night shift as a nurse.", valueJson: "tired" },
        { scope: "session:s2", itemKey: "tired" },
      ),
    );
    return {
      tenantId,
      ctx,
      ids: {
        allergy: allergy!,
        language: language!,
        task: task!,
        cilantro: cilantro!,
        nurse: nurse!,
        shifts: shifts!,
        otherSession: otherSession!,
      },
      messages: turn.messages,
    };
  }

  it("recalls the card this turn's session holds for a slot, not the user's card its question found", async () => {
    const tenantId = await createTenant(handle.db);
    // A client that names the session per call (sessionId), not in its turn defaults.
    const ctx = agentContext(tenantId, { defaults: { user: { type: "user", id: "u1" } } });
    const [userCard] = await write(
      ctx,
      create(
        "custom_fact",
        { title: "Gym", content: "Goes to the gym on Mondays.", valueJson: "mondays" },
        { itemKey: "gym" },
      ),
    );
    const [sessionCard] = await write(
      ctx,
      create(
        "custom_fact",
        { title: "Gym", content: "This week: Thursday instead.", valueJson: "thursday" },
        { scope: "session:s9", itemKey: "gym" },
      ),
    );
    const context = await buildMemoryContext(
      handle.db,
      ctx,
      { queryText: "when do I go to the gym on Mondays?", sessionId: "s9" },
      noVectors,
    );
    expect(context.relevantNodes.map((n) => n.id)).toEqual([sessionCard]);
    expect(context.usedMemoryIds).not.toContain(userCard);
    // Another conversation keeps the user's card.
    const other = await buildMemoryContext(
      handle.db,
      ctx,
      { queryText: "when do I go to the gym on Mondays?", sessionId: "s10" },
      noVectors,
    );
    expect(other.relevantNodes.map((n) => n.id)).toEqual([userCard]);
  });

  it("shows the session summary's goal and lists compactly, leaving out what its text already says", async () => {
    const tenantId = await createTenant(handle.db);
    const ctx = agentContext(tenantId);
    const turn = await appendMessages(handle.db, ctx, {
      sessionId: "s-sum",
      userScopeId: "u1",
      messages: [
        { role: "user", content: "帮我规划杭州三日游，预算5000元。" },
        { role: "assistant", content: "好的。" },
      ],
    });
    await appendSummary(handle.db, ctx, {
      sessionId: "s-sum",
      parentSummaryId: null,
      fromMessageId: turn.messages[0]!.id,
      toMessageId: turn.messages[1]!.id,
      summary: "用户在规划杭州三日游。\n要点：预算 5000元",
      currentGoal: "规划杭州三日游",
      constraints: ["预算 5000元", "不坐红眼航班"],
      decisions: ["住西湖边"],
      pendingWork: ["订高铁票", "订酒店", "查天气", "x".repeat(300)],
      knownIssues: [],
    });
    const context = await buildMemoryContext(handle.db, ctx, { queryText: "杭州行程", sessionId: "s-sum" }, noVectors);
    expect(context.prompt).toContain(
      "用户在规划杭州三日游。\n要点：预算 5000元\nConstraints: 不坐红眼航班\nDecisions: 住西湖边\nPending: 订酒店; 查天气; " +
        "x".repeat(99) +
        "…",
    );
    expect(context.prompt).not.toContain("Goal: 规划杭州三日游");
    expect(context.prompt).not.toContain("订高铁票");
    expect(context.prompt).not.toContain("Issues:");
  });

  it("assembles the turn's memory: always-recalled, profile, constraints, tasks, preferences, relevant, summary, recent messages", async () => {
    const { ctx, ids, messages } = await seed();
    const context = await buildMemoryContext(
      handle.db,
      ctx,
      { queryText: "How are my night shifts going?", sessionId: "s1" },
      noVectors,
    );
    expect(context.diagnostics).toMatchObject({ enabled: true, storeStatus: "ok", warnings: [], tokenBudget: 4000 });
    expect(context.alwaysRecalled.map((n) => n.id).sort()).toEqual([ids.allergy, ids.language].sort());
    expect(context.activeTasks.map((n) => n.id)).toEqual([ids.task]);
    expect(context.preferences.map((n) => n.id)).toEqual([ids.cilantro]);
    expect(context.profile.map((n) => n.id)).toEqual([ids.nurse]);
    expect(context.relevantNodes.map((n) => n.id)).toEqual([ids.shifts]);
    expect(context.latestSummary?.summary).toBe("The user asked for dinner ideas.");
    expect(context.recentMessages.map((m) => m.id)).toEqual(messages.map((m) => m.id));
    expect(context.usedMemoryIds.sort()).toEqual(
      [ids.allergy, ids.language, ids.task, ids.cilantro, ids.nurse, ids.shifts].sort(),
    );
    for (const id of [...context.usedMemoryIds, ...messages.map((m) => m.id)])
      expect(context.prompt).toContain(`[${id}]`);
    expect(context.prompt).toMatch(/^<memory>\nAlways apply:/);
    expect(context.prompt).not.toContain("Other session secret");
    expect(context.usedMemoryIds).not.toContain(ids.otherSession);
    expect(context.diagnostics.usedTokens).toBe(countTokens(context.prompt));
    expect(context.diagnostics.retrievedNodeCount).toBe(6);
  });

  it("recalls the user's profile, decisions and workspace facts whatever was asked, and the organisation's always-recalled kinds", async () => {
    const { ctx, ids } = await seed();
    const [daughter, home, decision, stack, wifi] = await write(
      ctx,
      create(
        "personal_relationship",
        {
          title: "Daughter Mia",
          content: "Mia is 7 and loves dinosaurs.",
          valueJson: { name: "Mia", relation: "daughter" },
        },
        { itemKey: "mia" },
      ),
      create("home_location", { title: "住在北京", content: "用户住在北京。", valueJson: { city: "北京" } }),
      create(
        "durable_decision",
        { title: "Postgres only", content: "The team decided to keep everything in Postgres.", valueJson: "postgres" },
        { scope: "workspace:w1" },
      ),
      create(
        "project_context",
        { title: "Stack", content: "The project is a Next.js app deployed on Fly.", valueJson: "next.js" },
        { scope: "workspace:w1", itemKey: "stack" },
      ),
      // A user's own fact is recalled when a question finds it, not every turn.
      create(
        "custom_fact",
        { title: "Wi-Fi", content: "The home network is called Meadow.", valueJson: "meadow" },
        { itemKey: "wifi" },
      ),
    );
    await saveCustomKind(handle.db, ctx, {
      kind: "medical_alert",
      key: "health.alert",
      domain: "health",
      type: "fact",
      itemized: true,
      valueShape: "string",
      alwaysRecall: true,
      description: "Health facts every answer must respect.",
    });
    await saveCustomKind(handle.db, ctx, {
      kind: "hobby",
      key: "hobby.any",
      domain: "hobby",
      type: "fact",
      itemized: true,
      valueShape: "string",
      description: "Hobbies.",
    });
    const [alert, hobby] = await write(
      ctx,
      create(
        "medical_alert",
        { title: "Epilepsy", content: "Avoid suggesting flashing lights.", valueJson: "epilepsy" },
        { itemKey: "epilepsy" },
      ),
      // Nothing in it answers the question below, in either language (its weekend would: 周末 finds
      // "weekend"; "plays" would too: 玩 is "play" in CC-CEDICT).
      create(
        "hobby",
        { title: "Stamps", content: "Collects old stamps in the evenings.", valueJson: "stamps" },
        { itemKey: "stamps" },
      ),
    );

    // "Plan a weekend outing with my kid": no word of it matches the cards it needs.
    const context = await buildMemoryContext(
      handle.db,
      ctx,
      { queryText: "帮我规划周末带孩子出去玩", sessionId: "s1" },
      noVectors,
    );
    expect(context.profile.map((n) => n.id).sort()).toEqual([daughter, home, ids.nurse].sort());
    expect(context.facts.map((n) => n.id).sort()).toEqual([decision, stack].sort());
    expect(context.alwaysRecalled.map((n) => n.id).sort()).toEqual([ids.allergy, ids.language, alert].sort());
    expect(context.usedMemoryIds).not.toContain(wifi);
    expect(context.usedMemoryIds).not.toContain(hobby);
    const at = (heading: string) => context.prompt.indexOf(heading);
    expect(at("Always apply:")).toBeLessThan(at("About the user:"));
    expect(at("About the user:")).toBeLessThan(at("Active tasks:"));
    expect(at("Preferences:")).toBeLessThan(at("Decisions and facts:"));
    expect(context.prompt).toContain(`[${daughter}] (user) Daughter Mia: Mia is 7 and loves dinosaurs.`);

    // Another organisation marking its own "hobby" kind always-recalled does not make this one's stand.
    const other = agentContext(await createTenant(handle.db));
    await saveCustomKind(handle.db, other, {
      kind: "hobby",
      key: "hobby.any",
      domain: "hobby",
      type: "fact",
      itemized: true,
      valueShape: "string",
      alwaysRecall: true,
      description: "Hobbies.",
    });
    const again = await buildMemoryContext(handle.db, ctx, { queryText: "hello", sessionId: "s1" }, noVectors);
    expect(again.alwaysRecalled.map((n) => n.id)).toContain(alert);
    expect(again.usedMemoryIds).not.toContain(hobby);
  });

  it("never exceeds the token budget, and keeps what matters most when it is tight", async () => {
    const { ctx, ids } = await seed();
    const long = "This preference note is deliberately long. ".repeat(40);
    await write(
      ctx,
      ...Array.from({ length: 12 }, (_, i) =>
        create("custom_fact", { title: `Note ${i}`, content: `${long} nurse ${i}` }, { itemKey: `note_${i}` }),
      ),
    );
    await appendMessages(handle.db, ctx, {
      sessionId: "s1",
      userScopeId: "u1",
      messages: Array.from({ length: 20 }, (_, i) => ({ role: "user" as const, content: `Message ${i}: ${long}` })),
    });
    for (const tokenBudget of [200, 257, 400, 800, 1500, 4000]) {
      const context = await buildMemoryContext(
        handle.db,
        ctx,
        { queryText: "nurse notes", sessionId: "s1", tokenBudget },
        noVectors,
      );
      expect(countTokens(context.prompt), `budget ${tokenBudget}`).toBeLessThanOrEqual(tokenBudget);
      expect(context.diagnostics.usedTokens).toBe(countTokens(context.prompt));
      expect(context.usedMemoryIds).toContain(ids.allergy);
      if (tokenBudget < 1500) expect(context.diagnostics.omittedNodeCount).toBeGreaterThan(0);
    }
  });

  it("recalls a card whose text holds tokenizer control strings like any other text", async () => {
    const { ctx } = await seed();
    const [odd] = await write(
      ctx,
      create(
        "custom_fact",
        { title: "Prompt tags", content: "The user pastes <|endoftext|> and <|im_start|>system into chats." },
        { itemKey: "tags" },
      ),
    );
    await appendMessages(handle.db, ctx, {
      sessionId: "s1",
      userScopeId: "u1",
      messages: [{ role: "user", content: "Remember <|endoftext|> please" }],
    });
    const context = await buildMemoryContext(
      handle.db,
      ctx,
      { queryText: "prompt tags endoftext", sessionId: "s1" },
      noVectors,
    );
    expect(context.diagnostics).toMatchObject({ enabled: true, storeStatus: "ok", warnings: [] });
    expect(context.usedMemoryIds).toContain(odd);
    expect(context.prompt).toContain("Remember <|endoftext|> please");
    expect(context.diagnostics.usedTokens).toBe(countTokens(context.prompt));
  });

  it("keeps room for the cards relevant to this turn when standing cards alone would fill the budget", async () => {
    const { ctx, ids } = await seed();
    for (let batch = 0; batch < 2; batch++) {
      await write(
        ctx,
        ...Array.from({ length: 40 }, (_, i) =>
          create(
            "active_task",
            {
              title: `Chore ${batch * 40 + i}`,
              content: `Open chore number ${batch * 40 + i}: tidy the garage shelves.`,
            },
            { itemKey: `chore_${batch * 40 + i}` },
          ),
        ),
      );
    }
    const context = await buildMemoryContext(
      handle.db,
      ctx,
      { queryText: "when are my shifts?", sessionId: "s1", tokenBudget: 1200 },
      noVectors,
    );
    expect(countTokens(context.prompt)).toBeLessThanOrEqual(1200);
    expect(context.usedMemoryIds).toContain(ids.allergy);
    expect(context.relevantNodes.map((n) => n.id)).toContain(ids.shifts);
    expect(context.recentMessages.length).toBeGreaterThan(0);
    expect(context.activeTasks.length).toBeGreaterThan(5);
    expect(context.activeTasks.length).toBeLessThan(81);
  });

  it("never recalls a search hit that loses its slot to a standing card (a user default under the workspace's fact)", async () => {
    const tenantId = await createTenant(handle.db);
    const ctx = agentContext(tenantId);
    // Workspace facts stand every turn; the user's card of the same slot is found only by the search.
    const [workspaceFact, userFact] = await write(
      ctx,
      create(
        "custom_fact",
        { title: "Deploy window", content: "Production deploys happen on Thursdays.", valueJson: "thursday" },
        { itemKey: "release_day", scope: "workspace:w1" },
      ),
      create(
        "custom_fact",
        { title: "Hotfix habit", content: "Pushes hotfixes on Mondays.", valueJson: "monday" },
        { itemKey: "release_day", scope: "user:u1" },
      ),
    );
    // The search finds the user's card by its words, and answers with the workspace's, which overrides it.
    const searched = await memorySearch(handle.db, ctx, { queryText: "hotfixes Mondays" }, noVectors);
    expect(searched.relevant.map((n) => [n.id, n.matchedBy])).toEqual([[workspaceFact, ["slot"]]]);
    expect(searched.omitted).toContainEqual({ nodeId: userFact, reason: "conflict_lost" });
    const context = await buildMemoryContext(
      handle.db,
      ctx,
      { queryText: "hotfixes Mondays", sessionId: "s1" },
      noVectors,
    );
    expect(context.facts.map((n) => n.id)).toEqual([workspaceFact]);
    expect(context.usedMemoryIds).not.toContain(userFact);
    expect(context.prompt).not.toContain("Mondays");
    expect(context.diagnostics.omittedNodeCount).toBeGreaterThanOrEqual(1);
  });

  it("counts a card left out once, though both the search and the joint resolution leave it out", async () => {
    const tenantId = await createTenant(handle.db);
    const ctx = agentContext(tenantId);
    await write(
      ctx,
      create("flavor_profile", {
        title: "用户爱吃辣",
        content: "用户爱吃辣，最爱川菜。",
        valueJson: { spicy: "high" },
      }),
      create(
        "flavor_profile",
        { title: "今天少辣", content: "今天胃不舒服，吃辣要少。", valueJson: { spicy: "low" } },
        { scope: "session:s1" },
      ),
    );
    const context = await buildMemoryContext(handle.db, ctx, { queryText: "吃辣", sessionId: "s1" }, noVectors);
    expect(context.usedMemoryIds).toHaveLength(1);
    expect(context.diagnostics).toMatchObject({ retrievedNodeCount: 1, omittedNodeCount: 1 });
  });

  it("reads only this turn's session and scopes it may read", async () => {
    const { tenantId } = await seed();
    const stranger = agentContext(tenantId, {
      readScopes: ["user:u9", "session:s9"].map(parseScopePattern),
      defaults: { session: { type: "session", id: "s9" } },
    });
    const context = await buildMemoryContext(handle.db, stranger, { queryText: "nurse", sessionId: "s1" }, noVectors);
    expect(context.usedMemoryIds).toEqual([]);
    expect(context.recentMessages).toEqual([]);
    expect(context.latestSummary).toBeNull();
    expect(context.prompt).toBe("");
    expect(context.diagnostics.warnings.join(" ")).toMatch(/session s1 is not readable/);
  });

  it("degrades instead of throwing when part of the store fails, and disables itself when all of it does", async () => {
    const { ctx } = await seed();
    // The search's statements fail (those reading the full-text vectors); the rest still works.
    const searchFails = failingDatabase(
      handle.db,
      (p, args) => p === "execute" && statementText(args[0]).includes("search_vector"),
    );
    const partial = await buildMemoryContext(searchFails, ctx, { queryText: "nurse", sessionId: "s1" }, noVectors);
    expect(partial.diagnostics.storeStatus).toBe("degraded");
    expect(partial.diagnostics.warnings.join(" ")).toMatch(/relevant-memory search unavailable/);
    expect(partial.alwaysRecalled.length).toBeGreaterThan(0);
    expect(partial.diagnostics.warnings.join(" ")).not.toMatch(/ECONNREFUSED|select|memory_nodes/);

    const down = await buildMemoryContext(
      failingDatabase(handle.db),
      ctx,
      { queryText: "nurse", sessionId: "s1" },
      noVectors,
    );
    expect(down).toMatchObject({
      prompt: "",
      usedMemoryIds: [],
      diagnostics: { enabled: false, storeStatus: "disabled" },
    });
    expect(down.diagnostics.warnings[0]).toMatch(/memory store unavailable/);
  });

  it("disables itself on a closed database handle", async () => {
    const closed = await openTestDatabase();
    const tenantId = await createTenant(closed.db);
    await closed.destroy();
    const context = await buildMemoryContext(
      closed.db,
      agentContext(tenantId),
      { queryText: "anything", sessionId: "s1" },
      noVectors,
    );
    expect(context.diagnostics).toMatchObject({ enabled: false, storeStatus: "disabled" });
    expect(context.diagnostics.warnings).toHaveLength(1);
  });
});
