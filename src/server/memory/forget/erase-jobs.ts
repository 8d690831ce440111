import { and, eq, inArray, or, sql } from "drizzle-orm";
import type { Transaction } from "~/db/types";
import { memoryJobs } from "~/db/schema";

/** Rows a `returning()` delete or update gave back: how many it touched. */
export const count = (rows: unknown[]) => rows.length;

/** Deletes the queued jobs about these rows (embed jobs name `{kind, id}`, the others `nodeId`); returns how many. */
export async function deleteJobsNaming(
  tx: Transaction,
  tenantId: string,
  kind: "node" | "message" | "chunk",
  ids: readonly string[],
): Promise<number> {
  const naming = or(
    and(sql`${memoryJobs.payload}->>'kind' = ${kind}`, inArray(sql`${memoryJobs.payload}->>'id'`, [...ids])),
    kind === "node" ? inArray(sql`${memoryJobs.payload}->>'nodeId'`, [...ids]) : undefined,
  );
  return count(
    await tx
      .delete(memoryJobs)
      .where(and(eq(memoryJobs.tenantId, tenantId), naming))
      .returning({ id: memoryJobs.id }),
  );
}
