/**
 * Writes batches of `batchSize` creates forever, each card tagged `batch-<n>`, from `concurrency`
 * loops at once, reporting every committed batch; the parent SIGKILLs it at a random moment.
 */
import { tenants } from "~/db/schema";
import { newId } from "~/server/ids";
import { memoryWrite } from "~/server/memory/write/write";
import { parseScopePattern } from "~/server/memory/scope";
import { childArgs, emit, openTarget, runChild, type ChildTarget } from "./common";

/** Without `tenantId` the child creates a tenant first and reports it (saves the parent an open of the data dir). */
type Args = ChildTarget & { tenantId?: string; batchSize: number; firstBatch: number; concurrency: number };

runChild(async () => {
  const args = childArgs<Args>();
  const handle = await openTarget(args);
  const tenantId = args.tenantId ?? newId("ten");
  if (!args.tenantId) await handle.db.insert(tenants).values({ id: tenantId, name: "Fault tenant", slug: tenantId });
  const ctx = {
    tenantId,
    actor: { type: "api_key" as const, id: "key_fault" },
    readScopes: ["user:u1"].map(parseScopePattern),
    writeScopes: ["user:u1"].map(parseScopePattern),
    defaults: { user: { type: "user" as const, id: "u1" } },
    trustedMessageIds: [],
  };
  let next = args.firstBatch;
  emit("ready", { pid: process.pid, tenantId });
  const loop = async () => {
    for (;;) {
      const batch = next++;
      emit("begin", { batch });
      const result = await memoryWrite(handle.db, ctx, {
        operations: Array.from({ length: args.batchSize }, (_, i) => ({
          op: "create" as const,
          kind: "custom_fact",
          itemKey: `b${batch}-${i}`,
          explicitUserIntent: true,
          node: {
            title: `Batch ${batch} item ${i}`,
            content: `Fact ${i} of batch ${batch}.`,
            valueJson: { batch, i },
            tags: [`batch-${batch}`],
          },
        })),
      });
      if (!result.done) throw new Error(`batch ${batch} was not applied: ${result.message}`);
      emit("committed", { batch });
    }
  };
  await Promise.all(Array.from({ length: args.concurrency }, loop));
});
