import { createWriteStream } from "node:fs";
import { readFile } from "node:fs/promises";
import { once } from "node:events";
import { and, asc, eq } from "drizzle-orm";
import { CARD_STATUSES, tenantMembers, type CardStatus } from "~/db/schema";
import type { Database } from "~/db/types";
import { findUserByEmail } from "~/server/auth/accounts";
import { buildUserCallContext, EVERYTHING } from "~/server/auth/permissions";
import {
  exportCards,
  IMPORT_LIMITS,
  importCards,
  type ImportLineResult,
  type ImportLineStatus,
} from "~/server/dashboard/transfer";
import { createProgress } from "./progress";

const out = (line = "") => console.log(line);

const list = (text: string | undefined) =>
  text
    ?.split(",")
    .map((s) => s.trim())
    .filter(Boolean);

function statusesOf(text: string | undefined): CardStatus[] | undefined {
  const wanted = list(text);
  const unknown = wanted?.filter((s) => !(CARD_STATUSES as readonly string[]).includes(s)) ?? [];
  if (unknown.length) throw new Error(`Unknown status(es) ${unknown.join(", ")}; use ${CARD_STATUSES.join(", ")}.`);
  return wanted as CardStatus[] | undefined;
}

/**
 * `export`: an organisation's cards as JSONL (the dashboard's format), every scope unless `scopes`
 * narrows it, to `outFile` or stdout; the count goes to stderr so stdout stays pure JSONL.
 */
export async function exportJsonl(
  db: Database,
  tenantId: string,
  options: { scopes?: string; statuses?: string; evidence?: boolean; outFile?: string },
) {
  const file = options.outFile ? createWriteStream(options.outFile, { encoding: "utf8" }) : null;
  const progress = createProgress("exported");
  let count = 0;
  try {
    for await (const card of exportCards(db, {
      tenantId,
      readScopes: EVERYTHING,
      scopes: list(options.scopes),
      statuses: statusesOf(options.statuses),
      includeEvidence: options.evidence === true,
    })) {
      const line = JSON.stringify(card);
      if (file) {
        if (!file.write(`${line}\n`)) await once(file, "drain");
      } else out(line);
      progress.update(++count);
    }
  } finally {
    if (file)
      await new Promise<void>((resolve, reject) =>
        file.end((error?: Error | null) => (error ? reject(error) : resolve())),
      );
  }
  progress.done(count);
  if (file) out(`Exported ${count} card(s) to ${options.outFile}.`);
  return count;
}

/** The person an import acts as, with their role here: the one named, else the organisation's first admin. */
async function importingPerson(db: Database, tenantId: string, email: string | undefined) {
  const user = email ? await findUserByEmail(db, email) : null;
  if (email && !user) throw new Error(`No user ${email}.`);
  const [member] = await db
    .select({ userId: tenantMembers.userId, role: tenantMembers.role })
    .from(tenantMembers)
    .where(
      and(
        eq(tenantMembers.tenantId, tenantId),
        user ? eq(tenantMembers.userId, user.id) : eq(tenantMembers.role, "admin"),
      ),
    )
    .orderBy(asc(tenantMembers.createdAt))
    .limit(1);
  if (!member)
    throw new Error(
      user
        ? `${email} is not a member of organisation ${tenantId}.`
        : "This organisation has no admin to import as; name a person with --as you@example.com.",
    );
  return member;
}

/**
 * `import <file>`: JSONL lines through memory_write as a person of the organisation (their grants
 * apply, the audit names them), in the dashboard's chunks. Each line commits alone; a dry run commits
 * nothing. Prints the counts and every line that was not created or already there; false when any
 * line was rejected or in conflict.
 */
export async function importJsonl(
  db: Database,
  tenantId: string,
  options: { file: string; as?: string; dryRun?: boolean; onConflict?: string },
) {
  const onConflict = options.onConflict ?? "skip";
  if (onConflict !== "skip" && onConflict !== "supersede")
    throw new Error(`--on-conflict takes skip or supersede, not "${onConflict}".`);
  const person = await importingPerson(db, tenantId, options.as);
  const ctx = await buildUserCallContext(db, { tenantId, userId: person.userId, role: person.role });
  const lines = (await readFile(options.file, "utf8")).split(/\r?\n/);
  if (lines.at(-1) === "") lines.pop();
  const counts: Record<ImportLineStatus, number> = {
    created: 0,
    noop: 0,
    conflict: 0,
    superseded: 0,
    rejected: 0,
    skipped: 0,
  };
  const problems: ImportLineResult[] = [];
  const progress = createProgress(options.dryRun ? "checked" : "imported", lines.length);
  for (let start = 0; start < lines.length; start += IMPORT_LIMITS.linesPerCall) {
    const report = await importCards(db, ctx, {
      lines: lines.slice(start, start + IMPORT_LIMITS.linesPerCall),
      firstLineNumber: start + 1,
      dryRun: options.dryRun === true,
      onConflict,
    });
    for (const [status, n] of Object.entries(report.counts)) counts[status as ImportLineStatus] += n;
    problems.push(...report.results.filter((r) => r.status === "rejected" || r.status === "conflict"));
    progress.update(Math.min(start + IMPORT_LIMITS.linesPerCall, lines.length));
  }
  progress.done(lines.length);
  for (const p of problems) out(`line ${p.line}: ${p.status}: ${p.message}`);
  const summary = Object.entries(counts)
    .map(([status, n]) => `${n} ${status}`)
    .join(", ");
  out(`${options.dryRun ? "Dry run (nothing was written)" : "Imported"}: ${summary}.`);
  return problems.length === 0;
}
