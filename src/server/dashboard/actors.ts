import { and, eq, inArray } from "drizzle-orm";
import type { DbOrTx } from "~/db/types";
import { apiKeys, users, type ActorType } from "~/db/schema";

export type ActorRef = { type: ActorType | string; id: string | null };
export type ActorLabel = ActorRef & { label: string };

const refKey = (ref: ActorRef) => `${ref.type}:${ref.id ?? ""}`;

/**
 * Names people can read for audit actors: a user's name and email, an API key's name and prefix,
 * "system" for workers. Keys are looked up in the tenant only; an unknown id is shown as it is.
 */
export async function labelActors(
  db: DbOrTx,
  tenantId: string,
  refs: readonly ActorRef[],
): Promise<(ref: ActorRef) => ActorLabel> {
  const userIds = [...new Set(refs.filter((r) => r.type === "user" && r.id).map((r) => r.id!))];
  const keyIds = [...new Set(refs.filter((r) => r.type === "api_key" && r.id).map((r) => r.id!))];
  const [userRows, keyRows] = await Promise.all([
    userIds.length
      ? db.select({ id: users.id, email: users.email, name: users.name }).from(users).where(inArray(users.id, userIds))
      : [],
    keyIds.length
      ? db
          .select({ id: apiKeys.id, name: apiKeys.name, prefix: apiKeys.prefix })
          .from(apiKeys)
          .where(and(eq(apiKeys.tenantId, tenantId), inArray(apiKeys.id, keyIds)))
      : [],
  ]);
  const labels = new Map<string, string>();
  for (const u of userRows) labels.set(`user:${u.id}`, u.name ? `${u.name} <${u.email}>` : u.email);
  for (const k of keyRows) labels.set(`api_key:${k.id}`, `${k.name} (${k.prefix}…)`);
  return (ref) => ({
    ...ref,
    label: labels.get(refKey(ref)) ?? (ref.type === "system" ? "system" : (ref.id ?? ref.type)),
  });
}
