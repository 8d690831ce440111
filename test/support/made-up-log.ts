import { synthDailyLog } from "../../bench/synth-daily-zh";
import type { Database } from "~/db/types";
import { appendMessages } from "~/server/memory/evidence/messages";
import { parseScopePattern } from "~/server/memory/scope";
import { agentContext, createTenant } from "./memory";

/**
 * The made-up daily-life log (bench/synth-daily-zh.ts: one conversation of 40 stories, seed 11) written
 * into a new tenant's session, each line's role as `roleOf` says. Returns the dataset, the caller's
 * context and the stored ids mapped to the dataset's.
 */
export async function loadMadeUpLog(db: Database, roleOf: (i: number) => "user" | "assistant" = () => "user") {
  const dataset = synthDailyLog({ conversations: 1, stories: 40, seed: 11, wrapped: 0, name: "made-up-log" });
  const conversation = dataset.conversations[0]!;
  const tenantId = await createTenant(db);
  const ctx = agentContext(tenantId, { readScopes: ["user:u1", "session:*"].map(parseScopePattern) });
  const idOf = new Map<string, string>();
  for (let i = 0; i < conversation.messages.length; i += 100) {
    const part = conversation.messages.slice(i, i + 100);
    const { messages } = await appendMessages(db, ctx, {
      sessionId: "log",
      userScopeId: "u1",
      messages: part.map((m, j) => ({ role: roleOf(i + j), content: m.content })),
    });
    messages.forEach((stored, j) => idOf.set(stored.id, part[j]!.id));
  }
  return { dataset, ctx, idOf };
}
