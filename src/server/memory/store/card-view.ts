import type { MemoryCardRecord, MemoryCardRow } from "~/db/schema";
import { formatScope } from "../scope";

/** A memory card as tools, the dashboard and the CLI see it (no search columns). */
export type MemoryCard = {
  id: string;
  scope: string;
  kind: string;
  key: string;
  itemKey: string | null;
  domain: string;
  categoryPath: string[];
  type: MemoryCardRow["type"];
  valueJson: unknown;
  title: string;
  content: string;
  status: MemoryCardRow["status"];
  revision: number;
  lineageId: string;
  supersedesId: string | null;
  supersededById: string | null;
  confidence: number;
  importance: number;
  tags: string[];
  entities: string[];
  sourceMessageIds: string[];
  explicitUserIntent: boolean;
  redacted: boolean;
  createdBy: { type: MemoryCardRow["createdByType"]; id: string | null };
  updatedBy: { type: MemoryCardRow["updatedByType"]; id: string | null };
  createdAt: string;
  updatedAt: string;
  expiresAt: string | null;
  endedAt: string | null;
};

export function toMemoryCard(row: MemoryCardRecord): MemoryCard {
  return {
    id: row.id,
    scope: formatScope({ type: row.scopeType, id: row.scopeId }),
    kind: row.kind,
    key: row.key,
    itemKey: row.itemKey,
    domain: row.domain,
    categoryPath: row.categoryPath,
    type: row.type,
    valueJson: row.valueJson,
    title: row.title,
    content: row.content,
    status: row.status,
    revision: row.revision,
    lineageId: row.lineageId,
    supersedesId: row.supersedesId,
    supersededById: row.supersededById,
    confidence: row.confidence,
    importance: row.importance,
    tags: row.tags,
    entities: row.entities,
    sourceMessageIds: row.sourceMessageIds,
    explicitUserIntent: row.explicitUserIntent,
    redacted: row.redacted,
    createdBy: { type: row.createdByType, id: row.createdById },
    updatedBy: { type: row.updatedByType, id: row.updatedById },
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    expiresAt: row.expiresAt?.toISOString() ?? null,
    endedAt: row.endedAt?.toISOString() ?? null,
  };
}

/** The audit payload of a card: what it said, for before/after. */
export function auditSnapshot(row: MemoryCardRow) {
  return {
    id: row.id,
    revision: row.revision,
    status: row.status,
    key: row.key,
    title: row.title,
    content: row.content,
    valueJson: row.valueJson,
    confidence: row.confidence,
    importance: row.importance,
    tags: row.tags,
    expiresAt: row.expiresAt?.toISOString() ?? null,
  };
}
