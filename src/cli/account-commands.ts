import { randomBytes } from "node:crypto";
import { asc, eq } from "drizzle-orm";
import {
  API_KEY_PERMISSIONS,
  DEFAULT_API_KEY_PERMISSIONS,
  tenantMembers,
  tenants,
  users,
  type ApiKeyPermission,
} from "~/db/schema";
import type { Database } from "~/db/types";
import { addUserToTenant, findUserByEmail } from "~/server/auth/accounts";
import {
  createApiKey,
  keyScopesFrom,
  listApiKeys,
  memberRole,
  revokeApiKey,
  type ApiKeyView,
} from "~/server/auth/api-keys";
import { keyScopesWithoutReach } from "~/server/auth/permissions";
import { ServiceError } from "~/server/errors";
import { firstTenantId, out, tenantIds, type CliCommand } from "./command";

/* People and API keys, as an operator manages them from the shell. */

/** The operator names a key by its id alone: revoke it in whichever organisation holds it (null: none does). */
async function revokeKeyAsOperator(db: Database, keyId: string, tenant?: string): Promise<ApiKeyView | null> {
  for (const tenantId of await tenantIds(db, tenant)) {
    try {
      return await revokeApiKey(db, { tenantId, keyId, actorUserId: null });
    } catch (error) {
      if (!(error instanceof ServiceError && error.reason === "key_not_found")) throw error;
    }
  }
  return null;
}

/** `users add <email>`: a person, or a changed role or password. */
export const usersAdd: CliCommand = async ({ db, target, options }) => {
  // The email may come positionally (`users add a@b.c --admin`) or as --admin's neighbour.
  const email = target;
  if (!email) throw new Error("Give the email: users add you@example.com [--admin]");
  if (options.admin && options.member) throw new Error("Give --admin or --member, not both.");
  // An existing person keeps their role and password unless a flag says otherwise: running the
  // README's command again must not demote the only admin or lock them out.
  const generated = options.password ? undefined : randomBytes(12).toString("base64url");
  const role = options.admin ? "admin" : options.member ? "member" : undefined;
  const account = await addUserToTenant(db, {
    email,
    password: options.password ?? generated,
    name: options.name,
    role,
    tenantId: options.tenant,
    actorUserId: null,
    resetExistingPassword: options.password !== undefined,
  });
  out(`${account.user.email} is ${account.role} of organisation ${account.tenantId}.`);
  if (generated && account.newUser) out(`Password (shown once): ${generated}`);
  else if (!account.newUser)
    out(
      options.password
        ? "Their password was changed."
        : "Their password is unchanged (give --password to set a new one).",
    );
  return 0;
};

/** `users list`: people and their roles. */
export const usersList: CliCommand = async ({ db }) => {
  const rows = await db
    .select({ email: users.email, role: tenantMembers.role, tenant: tenants.name })
    .from(tenantMembers)
    .innerJoin(users, eq(users.id, tenantMembers.userId))
    .innerJoin(tenants, eq(tenants.id, tenantMembers.tenantId))
    .orderBy(asc(tenants.name), asc(users.email));
  if (rows.length === 0) out("No users yet.");
  for (const r of rows) out(`${r.email}\t${r.role}\t${r.tenant}`);
  return 0;
};

/** `keys create --user <email>`: an API key; the secret is printed once. */
export const keysCreate: CliCommand = async ({ db, options }) => {
  if (!options.user) throw new Error("Give the owner: keys create --user you@example.com");
  const owner = await findUserByEmail(db, options.user);
  if (!owner) throw new Error(`No user ${options.user}.`);
  const tenantId = await firstTenantId(db, options.tenant);
  if (!(await memberRole(db, tenantId, owner.id)))
    throw new Error(
      `${owner.email} is not a member of organisation ${tenantId}; add them first: users add ${owner.email} --tenant ${tenantId}`,
    );
  const permissions = (options.permissions ?? DEFAULT_API_KEY_PERMISSIONS.join(",")).split(",").map((p) => p.trim());
  const unknown = permissions.filter((p) => !(API_KEY_PERMISSIONS as readonly string[]).includes(p));
  if (unknown.length)
    throw new Error(`Unknown permission(s) ${unknown.join(", ")}; use ${API_KEY_PERMISSIONS.join(", ")}.`);
  // "30d" or 0 made a key that never expires, reported as created.
  const daysText = options["expires-days"];
  const days = daysText === undefined ? null : Number(daysText);
  if (days !== null && !(Number.isFinite(days) && days > 0))
    throw new Error(
      `--expires-days takes a positive number of days (e.g. 30), not "${daysText}"; leave it out for a key that does not expire.`,
    );
  const { apiKey, secret } = await createApiKey(db, {
    tenantId,
    ownerUserId: owner.id,
    createdByUserId: null,
    name: options.name ?? "cli key",
    scopes: keyScopesFrom(
      options.scopes
        ?.split(",")
        .map((s) => s.trim())
        .filter(Boolean),
      owner.id,
    ),
    permissions: permissions as ApiKeyPermission[],
    expiresAt: days ? new Date(Date.now() + days * 86_400_000) : null,
  });
  out(`Key ${apiKey.id} (${apiKey.prefix}…) created for ${owner.email}.`);
  out(`Secret (shown once, store it now): ${secret}`);
  const idle = await keyScopesWithoutReach(db, apiKey);
  if (idle.length)
    out(`Note: ${owner.email} has no grant for ${idle.join(", ")}; the key reaches nothing there until they do.`);
  return 0;
};

/** `keys list`: every key, oldest first. */
export const keysList: CliCommand = async ({ db, options }) => {
  let listed = 0;
  for (const tenantId of await tenantIds(db, options.tenant)) {
    // listApiKeys answers newest first (the dashboard's order); the CLI lists oldest first.
    for (const k of (await listApiKeys(db, { tenantId })).reverse()) {
      out(`${k.id}\t${k.prefix}…\t${k.name}\t${k.status}\tlast used ${k.lastUsedAt ?? "never"}`);
      listed++;
    }
  }
  if (listed === 0) out("No keys yet.");
  return 0;
};

/** `keys revoke <id>`: revoked in whichever organisation holds it. */
export const keysRevoke: CliCommand = async ({ db, target, options }) => {
  if (!target) throw new Error("Give the key id: keys revoke key_…");
  if (!(await revokeKeyAsOperator(db, target, options.tenant))) throw new Error(`No key ${target}.`);
  out(`Revoked ${target}.`);
  return 0;
};
