import { and, asc, count, eq, like, or } from "drizzle-orm";
import { z } from "zod";
import type { Database, DbOrTx } from "~/db/types";
import { memoryNodes, workspaces } from "~/db/schema";
import { listGrants } from "~/server/auth/scope-grants";
import { badRequest } from "~/server/errors";
import { recordAudit } from "~/server/memory";
import { parseInput } from "~/server/validation";
import { firstFreeId, WORKSPACE_ID, WORKSPACE_ID_RULE, workspaceIdFromName } from "./workspace-id";

export const workspaceCreateSchema = z.object({
  name: z.string().trim().min(1).max(100),
  /** Default: made from the name (workspaceIdFromName), numbered when taken. */
  id: z.string().trim().regex(WORKSPACE_ID, WORKSPACE_ID_RULE).optional(),
});
export type WorkspaceCreateInput = z.input<typeof workspaceCreateSchema>;

export type WorkspaceAccess = {
  principalType: "user" | "api_key";
  principalId: string;
  label: string | null;
  canWrite: boolean;
};

export type WorkspaceView = {
  id: string;
  scope: string;
  name: string;
  /** False for a workspace only named by cards or grants (agents may name one in turn.workspaceId). */
  registered: boolean;
  activeCards: number;
  /** Grants naming this workspace (admins reach every workspace regardless). */
  access: WorkspaceAccess[];
  createdAt: string | null;
};

/**
 * The organisation's workspaces (projects inside it): the ones an admin created, and any other a card or
 * a grant names, each with its active cards and who was granted access.
 */
export async function listWorkspaces(db: DbOrTx, params: { tenantId: string }): Promise<WorkspaceView[]> {
  const [rows, cards, grants] = await Promise.all([
    db.select().from(workspaces).where(eq(workspaces.tenantId, params.tenantId)).orderBy(asc(workspaces.name)),
    db
      .select({ id: memoryNodes.scopeId, n: count() })
      .from(memoryNodes)
      .where(
        and(
          eq(memoryNodes.tenantId, params.tenantId),
          eq(memoryNodes.scopeType, "workspace"),
          eq(memoryNodes.status, "active"),
        ),
      )
      .groupBy(memoryNodes.scopeId),
    listGrants(db, { tenantId: params.tenantId }),
  ]);
  const cardCount = new Map(cards.map((c) => [c.id, c.n]));
  const access = new Map<string, WorkspaceAccess[]>();
  for (const g of grants) {
    if (!g.scope.startsWith("workspace:") || g.scope === "workspace:*") continue;
    const id = g.scope.slice("workspace:".length);
    access.set(id, [
      ...(access.get(id) ?? []),
      { principalType: g.principalType, principalId: g.principalId, label: g.principalLabel, canWrite: g.canWrite },
    ]);
  }
  const view = (id: string, name: string, createdAt: Date | null): WorkspaceView => ({
    id,
    scope: `workspace:${id}`,
    name,
    registered: createdAt !== null,
    activeCards: cardCount.get(id) ?? 0,
    access: access.get(id) ?? [],
    createdAt: createdAt?.toISOString() ?? null,
  });
  const registered = rows.map((w) => view(w.id, w.name, w.createdAt));
  const known = new Set(rows.map((w) => w.id));
  const named = [...new Set([...cardCount.keys(), ...access.keys()])].filter((id) => !known.has(id)).sort();
  return [...registered, ...named.map((id) => view(id, id, null))];
}

/** An id from the name that no workspace of the organisation holds yet: 测试项目, then 测试项目-2… */
async function freeIdFor(db: DbOrTx, tenantId: string, name: string): Promise<string> {
  const base = workspaceIdFromName(name);
  const rows = await db
    .select({ id: workspaces.id })
    .from(workspaces)
    .where(and(eq(workspaces.tenantId, tenantId), or(eq(workspaces.id, base), like(workspaces.id, `${base}-%`))));
  return firstFreeId(base, new Set(rows.map((r) => r.id)));
}

/** Creates a workspace (audited); its access is then granted per person or key like any scope. */
export async function createWorkspace(
  db: Database,
  params: { tenantId: string; actorUserId: string; input: WorkspaceCreateInput },
): Promise<WorkspaceView> {
  const input = parseInput(workspaceCreateSchema, params.input, "The workspace");
  const id = input.id ?? (await freeIdFor(db, params.tenantId, input.name));
  await db.transaction(async (tx) => {
    const [created] = await tx
      .insert(workspaces)
      .values({ tenantId: params.tenantId, id, name: input.name, slug: id })
      .onConflictDoNothing()
      .returning({ id: workspaces.id });
    if (!created)
      throw badRequest("workspace_exists", `A workspace ${id} already exists here; pick another id.`, { id });
    await recordAudit(
      tx,
      { tenantId: params.tenantId, actor: { type: "user", id: params.actorUserId } },
      {
        eventType: "policy",
        scope: { type: "workspace", id },
        reason: `workspace created: ${input.name}`,
        after: { id, name: input.name },
      },
    );
  });
  const created = (await listWorkspaces(db, { tenantId: params.tenantId })).find((w) => w.id === id);
  if (!created) throw new Error(`workspace ${id} was created but cannot be read back`);
  return created;
}
