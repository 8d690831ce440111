import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { asc, eq } from "drizzle-orm";
import { getDatabase, type DatabaseHandle } from "~/db/client";
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
import { exportJsonl, importJsonl } from "./transfer-commands";
import { reindexSearchText } from "~/server/memory";
import { clearTenantMemory, reembedTenant, runWorkerFromCli, treeSearch, treeStats, treeTopics } from "./tree-commands";
import { getHealth } from "~/server/health";
import { pruneExpiredRecords, retentionPolicyFromEnv } from "~/server/jobs/retention";
import { getTenantOverview } from "~/server/stats/overview";
import { EVERYTHING } from "~/server/auth/permissions";
import { flushBufferedWrites } from "~/db/buffered-writes";
import { registerTreeSubscribers } from "~/server/tree";

export type CliOptions = {
  admin?: boolean;
  member?: boolean;
  password?: string;
  name?: string;
  tenant?: string;
  user?: string;
  scopes?: string;
  permissions?: string;
  "expires-days"?: string;
  yes?: boolean;
  out?: string;
  statuses?: string;
  evidence?: boolean;
  as?: string;
  "dry-run"?: boolean;
  "on-conflict"?: string;
  help?: boolean;
};

const HELP = `Usage: npm run memory -- <command> [options]

  users add <email> [--admin|--member] [--password <pw>] [--name <name>] [--tenant <id>]
                     Create a person (a generated password is printed once unless --password), or change an
                     existing person's role (--admin / --member; never the only admin's) or password (--password).
  users list         People and their roles.
  keys create --user <email> [--name <n>] [--scopes a,b] [--permissions memory:read,memory:write] [--expires-days N]
                     Create an API key for an agent; prints the secret once.
  keys list          Keys with id, prefix, name, state and last use (every organisation unless --tenant).
  keys revoke <id>   Revoke a key (effective on the next request; audited like the dashboard's).
  stats              Totals per organisation, memory tree and job queue, and database health.
  search <query>     Search the memory tree (chunks of captured conversations), Chinese or English.
  topics             Topics by hotness, with their summaries.
  export [--scopes a,b] [--statuses active,deleted] [--evidence] [--out <file>]
                     Cards as JSONL (the dashboard's format; every scope unless --scopes), to stdout or a file.
  import <file> [--dry-run] [--on-conflict skip|supersede] [--as <email>]
                     JSONL cards through the normal write rules, as that person (default: the first admin).
                     A dry run writes nothing and reports what would happen; exits 1 if a line was rejected.
  clear [--yes]      Erase an organisation's memory (asks first unless --yes). People and keys stay.
  worker             Run a background job worker until Ctrl+C (several may run at once).
  reembed            After changing the embedding model: embed every current card for it.
  reindex-text       After upgrading to a release that changes how text is indexed (traditional Chinese folded
                     to simplified, hyphenated words whole): rebuild the search text of rows stored before.
  prune              Delete query log rows, idempotency replies and finished jobs past their retention
                     (MEMORY_*_RETENTION_DAYS; the server also does this every 15 minutes).
  bench <recall|load|cpu|soak|hot-path> [options]
                     Run a benchmark (bench/README.md); e.g. bench recall --help.
  (--tenant <id> picks the organisation; default: the first one.)

Embedded mode: stop the server first (only one process may open ./data), or set DATABASE_URL.`;

const out = (line = "") => console.log(line);

const BENCHMARKS = ["recall", "load", "cpu", "soak", "hot-path"] as const;

/** `bench <name> …`: the npm script bench:<name> with the rest of the arguments, its exit code returned. */
function runBench(args: string[]): number {
  const [name, ...rest] = args;
  if (!name || !(BENCHMARKS as readonly string[]).includes(name)) {
    console.error(`Name a benchmark: ${BENCHMARKS.join(", ")} (bench/README.md says what each measures).`);
    return 1;
  }
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  return spawnSync(npm, ["run", "--silent", `bench:${name}`, "--", ...rest], { stdio: "inherit" }).status ?? 1;
}

async function firstTenantId(db: Database, wanted?: string) {
  if (wanted) {
    const [tenant] = await db.select({ id: tenants.id }).from(tenants).where(eq(tenants.id, wanted)).limit(1);
    if (!tenant) throw new Error(`No organisation ${wanted}; \`users list\` shows the organisations.`);
    return wanted;
  }
  const [tenant] = await db.select({ id: tenants.id }).from(tenants).orderBy(asc(tenants.createdAt)).limit(1);
  if (!tenant) throw new Error("No organisation yet: create the first user with `users add <email> --admin`.");
  return tenant.id;
}

/** The organisation given with --tenant, else every organisation, oldest first. */
async function tenantIds(db: Database, wanted?: string): Promise<string[]> {
  if (wanted) return [wanted];
  return (await db.select({ id: tenants.id }).from(tenants).orderBy(asc(tenants.createdAt))).map((t) => t.id);
}

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

/** `open` is the database to run against; the default is the one the environment selects (tests pass their own). */
export async function runCli(
  args: string[],
  options: CliOptions,
  open: () => Promise<DatabaseHandle> = getDatabase,
): Promise<number> {
  registerTreeSubscribers();
  const [area, action, target] = args;
  if (!area || options.help) {
    out(HELP);
    return area ? 0 : 1;
  }
  // Benchmarks bring their own databases: nothing of this install is opened (nor locked) for them.
  if (area === "bench") return runBench(args.slice(1));
  let handle: DatabaseHandle;
  try {
    handle = await open();
  } catch (error) {
    // e.g. embedded mode while the server holds ./data: the message says what to do.
    console.error(error instanceof Error ? error.message : String(error));
    return 1;
  }
  const { db } = handle;
  try {
    const command = [
      "search",
      "topics",
      "clear",
      "worker",
      "stats",
      "reembed",
      "reindex-text",
      "export",
      "import",
    ].includes(area)
      ? area
      : `${area} ${action ?? ""}`.trim();
    switch (command) {
      case "users add": {
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
      }
      case "users list": {
        const rows = await db
          .select({ email: users.email, role: tenantMembers.role, tenant: tenants.name })
          .from(tenantMembers)
          .innerJoin(users, eq(users.id, tenantMembers.userId))
          .innerJoin(tenants, eq(tenants.id, tenantMembers.tenantId))
          .orderBy(asc(tenants.name), asc(users.email));
        if (rows.length === 0) out("No users yet.");
        for (const r of rows) out(`${r.email}\t${r.role}\t${r.tenant}`);
        return 0;
      }
      case "keys create": {
        if (!options.user) throw new Error("Give the owner: keys create --user you@example.com");
        const owner = await findUserByEmail(db, options.user);
        if (!owner) throw new Error(`No user ${options.user}.`);
        const tenantId = await firstTenantId(db, options.tenant);
        if (!(await memberRole(db, tenantId, owner.id)))
          throw new Error(
            `${owner.email} is not a member of organisation ${tenantId}; add them first: users add ${owner.email} --tenant ${tenantId}`,
          );
        const permissions = (options.permissions ?? DEFAULT_API_KEY_PERMISSIONS.join(","))
          .split(",")
          .map((p) => p.trim());
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
      }
      case "keys list": {
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
      }
      case "keys revoke": {
        if (!target) throw new Error("Give the key id: keys revoke key_…");
        if (!(await revokeKeyAsOperator(db, target, options.tenant))) throw new Error(`No key ${target}.`);
        out(`Revoked ${target}.`);
        return 0;
      }
      case "stats": {
        const health = await getHealth(handle);
        out(
          `database: ${health.database.mode}, schema ${health.database.schemaVersion}, postgres ${health.database.postgres}, vector ${health.database.extensions.vector ?? "missing"}, pg_trgm ${health.database.extensions.pg_trgm ?? "missing"}`,
        );
        for (const t of await db.select().from(tenants).orderBy(asc(tenants.createdAt))) {
          const o = await getTenantOverview(db, { tenantId: t.id, readScopes: EVERYTHING });
          out(
            `${t.name} (${t.id}): ${o.activeMemories} active memories, ${o.messages} messages in ${o.sessions} sessions, ${o.activeKeys} keys, ${o.members} members`,
          );
          await treeStats(db, t.id);
        }
        return 0;
      }
      case "search": {
        const query = args.slice(1).join(" ").trim();
        if (!query) throw new Error("Give a query: search 预算");
        await treeSearch(db, await firstTenantId(db, options.tenant), query);
        return 0;
      }
      case "topics":
        await treeTopics(db, await firstTenantId(db, options.tenant));
        return 0;
      case "export":
        await exportJsonl(db, await firstTenantId(db, options.tenant), {
          scopes: options.scopes,
          statuses: options.statuses,
          evidence: options.evidence,
          outFile: options.out,
        });
        return 0;
      case "import": {
        const file = args[1];
        if (!file) throw new Error("Give the file: import memories.jsonl [--dry-run]");
        const clean = await importJsonl(db, await firstTenantId(db, options.tenant), {
          file,
          as: options.as,
          dryRun: options["dry-run"],
          onConflict: options["on-conflict"],
        });
        return clean ? 0 : 1;
      }
      case "clear":
        return (await clearTenantMemory(db, await firstTenantId(db, options.tenant), { yes: options.yes === true }))
          ? 0
          : 1;
      case "worker":
        await runWorkerFromCli(db);
        return 0;
      case "reembed":
        await reembedTenant(db, await firstTenantId(db, options.tenant));
        return 0;
      case "reindex-text": {
        // Every organisation unless --tenant names one: the upgrade concerns them all.
        const ids = options.tenant
          ? [await firstTenantId(db, options.tenant)]
          : (await db.select({ id: tenants.id }).from(tenants)).map((t) => t.id);
        for (const tenantId of ids) {
          const changed = await reindexSearchText(db, { tenantId });
          out(
            `${tenantId}: search text rebuilt in ${Object.entries(changed)
              .map(([table, n]) => `${table} ${n}`)
              .join(", ")} row(s).`,
          );
        }
        return 0;
      }
      case "prune": {
        const policy = retentionPolicyFromEnv();
        const pruned = await pruneExpiredRecords(db, policy);
        out(
          `Pruned ${pruned.queryLog} query log rows (kept ${policy.queryLogDays || "all"} days), ${pruned.idempotencyKeys} idempotency replies (${policy.idempotencyDays || "all"} days), ${pruned.jobs} finished jobs (${policy.finishedJobDays || "all"} days).`,
        );
        return 0;
      }
      default:
        out(`Unknown command "${args.join(" ")}".\n`);
        out(HELP);
        return 1;
    }
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    return 1;
  } finally {
    await flushBufferedWrites();
    await handle.close();
  }
}
