import { foreignKey, integer, pgTable, primaryKey, real, text } from "drizzle-orm/pg-core";
import { tenantIdColumn, timestampTz } from "./columns";
import { memoryNodes } from "./memory";

/**
 * How often agents were handed each card (search hits, lookups, context blocks) and its hotness
 * (+0.05 a recall, ×0.95 a day: docs/retrieval.md), which search ranking boosts by. Kept beside the cards,
 * not on them: a card row carries seven GIN indexes and a generated tsvector, so bumping a counter
 * there would rewrite all of them on every recall; these narrow rows update in place. Deleting a card
 * deletes its row (cascade), so a hard delete leaves no trace here.
 */
export const memoryNodeUsage = pgTable(
  "memory_node_usage",
  {
    tenantId: tenantIdColumn(),
    nodeId: text("node_id").notNull(),
    recallCount: integer("recall_count").notNull().default(0),
    lastRecalledAt: timestampTz("last_recalled_at").notNull(),
    hotness: real("hotness").notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.nodeId] }),
    foreignKey({ columns: [t.tenantId, t.nodeId], foreignColumns: [memoryNodes.tenantId, memoryNodes.id] }).onDelete(
      "cascade",
    ),
  ],
);

export type MemoryNodeUsage = typeof memoryNodeUsage.$inferSelect;
