import { eq } from "drizzle-orm";
import type { Database, DbOrTx } from "~/db/types";
import { memoryAuditEvents, tenants, type Tenant } from "~/db/schema";
import { notFound } from "~/server/errors";

export type TenantPolicy = Pick<Tenant, "writePolicy" | "sensitivePolicy">;

export const unknownTenant = (tenantId: string) => notFound("unknown_tenant", `No organisation with id ${tenantId}.`);

export async function getTenant(db: DbOrTx, tenantId: string): Promise<Tenant> {
  const [tenant] = await db.select().from(tenants).where(eq(tenants.id, tenantId)).limit(1);
  if (!tenant) throw unknownTenant(tenantId);
  return tenant;
}

/** Changes the organisation's memory policy; the audit row is written in the same transaction. */
export async function updateTenantPolicy(
  db: Database,
  params: { tenantId: string; actorUserId: string; policy: Partial<TenantPolicy> },
): Promise<Tenant> {
  return db.transaction(async (tx) => {
    const before = await getTenant(tx, params.tenantId);
    const [after] = await tx
      .update(tenants)
      .set({ ...params.policy, updatedAt: new Date() })
      .where(eq(tenants.id, params.tenantId))
      .returning();
    await tx.insert(memoryAuditEvents).values({
      tenantId: params.tenantId,
      eventType: "policy",
      actorType: "user",
      actorId: params.actorUserId,
      reason: "organisation policy changed",
      before: { writePolicy: before.writePolicy, sensitivePolicy: before.sensitivePolicy },
      after: { writePolicy: after!.writePolicy, sensitivePolicy: after!.sensitivePolicy },
    });
    return after!;
  });
}
