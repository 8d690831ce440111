import { asc, eq } from "drizzle-orm";
import type { DatabaseHandle } from "~/db/client";
import { tenants } from "~/db/schema";
import type { Database } from "~/db/types";

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

/** What one command gets: the open database, the words after `npm run memory --` and the flags. */
export type CommandRun = {
  db: Database;
  handle: DatabaseHandle;
  args: string[];
  /** The word after an area and its action (`keys revoke <target>`). */
  target: string | undefined;
  options: CliOptions;
};
/** A command's exit code (a thrown Error is printed and exits 1). */
export type CliCommand = (run: CommandRun) => Promise<number>;

export const out = (line = "") => console.log(line);

export async function firstTenantId(db: Database, wanted?: string) {
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
export async function tenantIds(db: Database, wanted?: string): Promise<string[]> {
  if (wanted) return [wanted];
  return (await db.select({ id: tenants.id }).from(tenants).orderBy(asc(tenants.createdAt))).map((t) => t.id);
}
