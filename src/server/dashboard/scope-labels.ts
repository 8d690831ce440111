import { and, eq, sql } from "drizzle-orm";
import { unionAll } from "drizzle-orm/pg-core";
import { anyOf } from "~/db/any-of";
import type { DbOrTx } from "~/db/types";
import {
  memoryMessages,
  memoryNodes,
  scopeGrants,
  tenantMembers,
  users,
  workspaces,
  type ScopeType,
} from "~/db/schema";
import { badRequest } from "~/server/errors";
import { formatScope, parseScope } from "~/server/memory";

/**
 * How a person reads a scope: `user:<id>` is a member's name and email, `workspace:<id>` the
 * workspace's name, `session:<id>` the conversation with its owner. Agents keep speaking scope ids;
 * only the dashboard shows these.
 */
export type ScopeLabel = {
  scope: string;
  type: ScopeType | null;
  id: string;
  /** A person's name (else their email), a workspace's name; null where nothing names it. */
  name: string | null;
  /** A person's email; a session owner's name or email. */
  detail: string | null;
  /** Whether the scope names something of this organisation: a member, a workspace, a session with messages. */
  known: boolean;
};

type Row = { kind: string; id: string; name: string | null; detail: string | null };

const text = (value: string) => sql<string | null>`${value}`;

/** The rows naming the given ids, all in one statement (a UNION ALL per kind of thing). */
async function lookUp(
  db: DbOrTx,
  tenantId: string,
  ids: { user: string[]; email: string[]; workspace: string[]; session: string[] },
): Promise<Row[]> {
  const kind = (name: string) => sql<string>`${name}`.as("kind");
  const members = (by: "id" | "email", values: string[]) =>
    db
      .select({
        kind: kind(by === "id" ? "user" : "email"),
        id: by === "id" ? users.id : sql<string>`lower(${users.email})`.as("id"),
        name: users.name,
        detail: by === "id" ? users.email : sql<string | null>`${users.id}`.as("detail"),
      })
      .from(tenantMembers)
      .innerJoin(users, eq(users.id, tenantMembers.userId))
      .where(
        and(
          eq(tenantMembers.tenantId, tenantId),
          by === "id" ? anyOf(tenantMembers.userId, values) : anyOf(sql`lower(${users.email})`, values),
        ),
      );
  const registered = db
    .select({
      kind: kind("workspace"),
      id: workspaces.id,
      name: sql<string | null>`${workspaces.name}`.as("name"),
      detail: text("").as("detail"),
    })
    .from(workspaces)
    .where(and(eq(workspaces.tenantId, tenantId), anyOf(workspaces.id, ids.workspace)));
  // A workspace no admin created but a card or a grant names is one too (agents name them in turns).
  const namedByCards = db
    .selectDistinct({
      kind: kind("workspace-named"),
      id: memoryNodes.scopeId,
      name: sql<string | null>`null`.as("name"),
      detail: text("").as("detail"),
    })
    .from(memoryNodes)
    .where(
      and(
        eq(memoryNodes.tenantId, tenantId),
        eq(memoryNodes.scopeType, "workspace"),
        anyOf(memoryNodes.scopeId, ids.workspace),
      ),
    );
  const namedByGrants = db
    .selectDistinct({
      kind: kind("workspace-named"),
      id: sql<string>`substr(${scopeGrants.scope}, 11)`.as("id"),
      name: sql<string | null>`null`.as("name"),
      detail: text("").as("detail"),
    })
    .from(scopeGrants)
    .where(
      and(
        eq(scopeGrants.tenantId, tenantId),
        anyOf(
          scopeGrants.scope,
          ids.workspace.map((id) => `workspace:${id}`),
        ),
      ),
    );
  const owners = db
    .select({
      sessionId: memoryMessages.sessionId,
      owner: sql<string | null>`max(${memoryMessages.userScopeId})`.as("owner"),
    })
    .from(memoryMessages)
    .where(and(eq(memoryMessages.tenantId, tenantId), anyOf(memoryMessages.sessionId, ids.session)))
    .groupBy(memoryMessages.sessionId)
    .as("owners");
  const sessions = db
    .select({
      kind: kind("session"),
      id: owners.sessionId,
      name: sql<string | null>`${users.name}`.as("name"),
      detail: sql<string | null>`${users.email}`.as("detail"),
    })
    .from(owners)
    .leftJoin(tenantMembers, and(eq(tenantMembers.tenantId, tenantId), eq(tenantMembers.userId, owners.owner)))
    .leftJoin(users, eq(users.id, tenantMembers.userId));
  return unionAll(
    members("id", ids.user),
    members("email", ids.email),
    registered,
    namedByCards,
    namedByGrants,
    sessions,
  ) as unknown as Promise<Row[]>;
}

const safeParse = (scope: string) => {
  try {
    return parseScope(scope);
  } catch {
    return null;
  }
};

/**
 * Labels for a set of scope strings, in one query whatever their mix. Only members of this
 * organisation are named (a former member's or a made-up `user:` scope stays an id, `known: false`).
 */
export async function labelScopes(
  db: DbOrTx,
  params: { tenantId: string; scopes: readonly string[] },
): Promise<Map<string, ScopeLabel>> {
  const parsed = [...new Set(params.scopes)].map((scope) => ({ scope, parsed: safeParse(scope) }));
  const idsOf = (type: ScopeType) => [
    ...new Set(parsed.flatMap((p) => (p.parsed?.type === type ? [p.parsed.id] : []))),
  ];
  const ids = {
    user: idsOf("user"),
    email: idsOf("user")
      .filter((id) => id.includes("@"))
      .map((id) => id.toLowerCase()),
    workspace: idsOf("workspace"),
    session: idsOf("session"),
  };
  const rows =
    ids.user.length + ids.workspace.length + ids.session.length ? await lookUp(db, params.tenantId, ids) : [];
  const found = new Map<string, Row>();
  // Registered workspaces win over ones only named by cards or grants.
  for (const row of rows) {
    const key = `${row.kind === "workspace-named" ? "workspace" : row.kind}:${row.id}`;
    if (row.kind !== "workspace-named" || !found.has(key)) found.set(key, row);
  }
  const labels = new Map<string, ScopeLabel>();
  for (const { scope, parsed: p } of parsed) {
    if (!p) {
      labels.set(scope, { scope, type: null, id: scope, name: null, detail: null, known: false });
      continue;
    }
    const row = found.get(`${p.type}:${p.id}`);
    const base = { scope: formatScope(p), type: p.type, id: p.id };
    if (p.type === "global") labels.set(scope, { ...base, name: null, detail: null, known: true });
    else if (p.type === "context") labels.set(scope, { ...base, name: null, detail: null, known: true });
    else if (!row) {
      const byEmail = p.type === "user" ? found.get(`email:${p.id.toLowerCase()}`) : undefined;
      // `user:bob@example.com` names nobody, but the refusal can say whose id was meant.
      labels.set(scope, {
        ...base,
        name: null,
        detail: byEmail?.detail ? `user:${byEmail.detail}` : null,
        known: false,
      });
    } else if (p.type === "user")
      labels.set(scope, { ...base, name: row.name || row.detail, detail: row.detail, known: true });
    else if (p.type === "workspace") labels.set(scope, { ...base, name: row.name ?? p.id, detail: null, known: true });
    else
      labels.set(scope, { ...base, name: row.name || row.detail, detail: row.name ? row.detail : null, known: true });
  }
  return labels;
}

/**
 * Refuses (400 `unknown_scope`) a scope naming a person who is not a member here or a workspace that
 * does not exist. Sessions and contexts have no registry (an agent's first message makes a session),
 * so they pass. Returns each refused scope with its reason (import reports them line by line).
 */
export async function unknownScopeRefusals(
  db: DbOrTx,
  params: { tenantId: string; scopes: readonly string[] },
): Promise<Map<string, string>> {
  const labels = await labelScopes(db, params);
  const refusals = new Map<string, string>();
  for (const [scope, label] of labels) {
    if (label.known || (label.type !== "user" && label.type !== "workspace")) continue;
    refusals.set(
      scope,
      label.type === "user"
        ? `${scope} names nobody in this organisation: a person's scope is user:<their id>${label.detail ? ` (for ${label.id} that is ${label.detail})` : ""}. Pick the person from the list, or add them as a member first.`
        : `${scope} is not a workspace of this organisation. Pick one from the list, or create it under Admin → Workspaces first.`,
    );
  }
  return refusals;
}

export async function requireKnownScopes(
  db: DbOrTx,
  params: { tenantId: string; scopes: readonly string[] },
): Promise<void> {
  const refusals = await unknownScopeRefusals(db, params);
  if (refusals.size)
    throw badRequest("unknown_scope", [...refusals.values()].join(" "), { scopes: [...refusals.keys()] });
}
