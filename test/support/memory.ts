import { tenants } from "~/db/schema";
import type { Database } from "~/db/types";
import { newId } from "~/server/ids";
import type { MemoryCallContext } from "~/server/memory/context";
import { parseScopePattern } from "~/server/memory/scope";

export async function createTenant(db: Database, overrides: Partial<typeof tenants.$inferInsert> = {}) {
  const id = newId("ten");
  await db.insert(tenants).values({ id, name: `Tenant ${id}`, slug: id, ...overrides });
  return id;
}

/**
 * An agent acting for user `u1` in session `s1`: reads and writes its own user scope and any session,
 * reads global. Override anything per test.
 */
export function agentContext(tenantId: string, overrides: Partial<MemoryCallContext> = {}): MemoryCallContext {
  return {
    tenantId,
    actor: { type: "api_key", id: "key_test" },
    readScopes: ["user:u1", "session:*", "workspace:w1", "global"].map(parseScopePattern),
    writeScopes: ["user:u1", "session:*", "workspace:w1"].map(parseScopePattern),
    defaults: { user: { type: "user", id: "u1" }, session: { type: "session", id: "s1" }, workspace: { type: "workspace", id: "w1" } },
    trustedMessageIds: [],
    ...overrides,
  };
}

/** A person editing in the dashboard: explicit by nature, may forget. */
export function personContext(tenantId: string, overrides: Partial<MemoryCallContext> = {}): MemoryCallContext {
  return agentContext(tenantId, { actor: { type: "user", id: "usr_test" }, forgetIntent: true, ...overrides });
}
