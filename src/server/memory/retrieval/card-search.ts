import { and, eq, inArray, sql, type SQL } from "drizzle-orm";
import { memoryNodes, type MemoryCardRecord, type CardStatus } from "~/db/schema";
import type { DbOrTx } from "~/db/types";
import type { KindRegistry } from "../kinds/custom";
import { structuredFilterConditions, type StructuredCardFilter } from "../store/card-filter";
import { recordFromJson, selectCardRecords } from "../store/card-records";
import { withOverridingCards, type SlotChain } from "./slot-rivals";
import type { ScopePattern } from "../scope";
import { scopePatternsCondition, scopePatternsFilter } from "../store/scope-sql";
import { boostedScore, reciprocalRankFusion, relativeFloor, type SignalHits } from "./fusion";
import { isQueryWord, type QueryTerm } from "./query-terms";
import type { ScoreComponents, SearchHit } from "./search-schema";
import { fullTextMatch, trigramHits, vectorHits, type ScopedMatch, type StatsPart } from "./signals";
import { CARD_SOURCE } from "./text-sources";
import { anyOf } from "~/db/any-of";

/**
 * Cards of the tenant in the given scopes and statuses matching the structured filter. Tenant first.
 * `indexable: false` writes the tenant and the scopes so that no index can serve them, for the match
 * whose index scan already keeps to them (the card index's scope lexemes hash tenant and scope):
 * otherwise the planner ANDs that scan with a bitmap of every row in the scopes or, in the generic
 * plan of a prepared statement (which guesses half the table per tenant), of the whole tenant —
 * 100,000 entries and 11 ms at 100k cards, for a match of 40 rows that removes none of them.
 */
export function cardWhere(params: {
  tenantId: string;
  scopes: readonly ScopePattern[];
  filter: StructuredCardFilter;
  registry: KindRegistry;
  statuses: readonly CardStatus[];
  indexable?: boolean;
}): SQL {
  const indexable = params.indexable !== false;
  return and(
    indexable ? eq(memoryNodes.tenantId, params.tenantId) : sql`(${memoryNodes.tenantId} || '') = ${params.tenantId}`,
    indexable ? scopePatternsCondition(params.scopes) : scopePatternsFilter(params.scopes),
    inArray(memoryNodes.status, [...params.statuses]),
    ...structuredFilterConditions(params.filter, params.registry),
  )!;
}

/** A card is current when active and not past its expiry. */
const currentFirst = (now: Date) =>
  sql`(${memoryNodes.status} = 'active' and (${memoryNodes.expiresAt} is null or ${memoryNodes.expiresAt} > ${now.toISOString()}::timestamptz))`;

/**
 * The exact path (docs/retrieval.md): structured filters only, index-backed by (tenant, scope, status, key), the
 * category prefix index and the value_json GIN index. Current cards come first; non-current ones
 * ride along only so that the caller learns why they were left out.
 */
export async function fetchFilteredCards(
  db: DbOrTx,
  params: { where: SQL; now: Date; limit: number },
): Promise<MemoryCardRecord[]> {
  return selectCardRecords(
    db,
    sql`where ${params.where}
        order by ${currentFirst(params.now)} desc, ${memoryNodes.importance} desc, ${memoryNodes.confidence} desc, ${memoryNodes.updatedAt} desc, ${memoryNodes.id} asc
        limit ${params.limit}`,
  );
}

export async function loadCardRows(
  db: DbOrTx,
  tenantId: string,
  ids: readonly string[],
): Promise<Map<string, MemoryCardRecord>> {
  if (ids.length === 0) return new Map();
  const rows = await selectCardRecords(
    db,
    sql`where ${and(eq(memoryNodes.tenantId, tenantId), anyOf(memoryNodes.id, ids))}`,
    { withHotness: true },
  );
  return new Map(rows.map((row) => [row.id, row]));
}

/**
 * Full-text matches up to which the candidates come back with their records (the usual case: tens of
 * rows at 100k cards), saving a statement per search; more matches and the fused top few are read after.
 */
const RECORDS_WITH_MATCHES = 100;
/** Signal weights for cards: full text is the precise one, vectors catch rewording, trigrams typos. */
export const CARD_SIGNAL_WEIGHTS = { fullText: 1, vector: 0.7, trigram: 0.5 } as const;
/** Full-text hits scoring under this share of the best one matched only incidental words. */
const FULL_TEXT_FLOOR = 0.1;
const TRIGRAM_MIN_SIMILARITY = 0.35;
/** Trigrams are for short lookups with a typo or a partial word ("cilantor", "herm"). */
const TRIGRAM_MAX_TERMS = 2;

/**
 * Trigrams rescue a short lookup that full text missed (a typo, a partial word), and they cost a
 * statement of their own (~10 ms at 100k cards, ~120 ms at 1M). Only a word found nowhere in the
 * caller's scope can be a typo to rescue: when full text found every word, they are not run ("who is
 * Wu Xia" — both words on the card — took them on 10 % of the benchmark's searches, 16 % of its
 * database time).
 */
function needsTypoRescue(
  terms: readonly QueryTerm[],
  found: readonly boolean[],
  fullTextCount: number,
  candidates: number,
): boolean {
  // A translation not found says nothing of a typo.
  const words = terms.map((term, i) => ({ term, found: found[i] })).filter(({ term }) => isQueryWord(term));
  return fullTextCount < candidates / 4 && words.length <= TRIGRAM_MAX_TERMS && words.some((word) => !word.found);
}

export type RankedCard = { row: MemoryCardRecord; score: ScoreComponents; matchedBy: SearchHit["matchedBy"] };

/**
 * The relevant path: BM25 full text, trigram and vector candidates fused by rank, then boosted by
 * importance, confidence, recency, hotness and explicit intent. Best first.
 */
export async function rankCardsByText(
  db: DbOrTx,
  params: {
    tenantId: string;
    where: SQL;
    terms: readonly QueryTerm[];
    trigramText: string;
    vector?: { values: readonly number[]; model: string; minSimilarity: number; weight: number };
    candidates: number;
    now: Date;
    /** The scope's disjoint parts (disjointScopes), counted and cached one by one for the corpus statistics (see scopeStats). */
    statsParts?: readonly StatsPart[];
    /**
     * The caller's scopes as scope lexemes (scopesTsQuery, wildcards included), with `where` for the
     * full-text match written so no index serves its tenant and scopes (cardWhere's `indexable: false`).
     */
    scoped?: ScopedMatch;
    /** The caller's chain scopes: a card overriding a candidate there joins the ranking in its place (slot-rivals.ts). */
    slotChain?: SlotChain;
  },
): Promise<RankedCard[]> {
  const { where, candidates } = params;
  const lists: SignalHits[] = [];
  const {
    hits: fullText,
    terms,
    found,
    scopeEmpty,
  } = await fullTextMatch(db, {
    source: CARD_SOURCE,
    where,
    terms: params.terms,
    limit: candidates,
    minimum: Math.ceil(candidates / 4),
    statsParts: params.statsParts,
    scoped: params.scoped,
    recordsUpTo: Math.max(RECORDS_WITH_MATCHES, candidates),
  });
  lists.push({
    signal: "fullText",
    weight: CARD_SIGNAL_WEIGHTS.fullText,
    hits: relativeFloor(fullText, FULL_TEXT_FLOOR),
  });
  // A scope with no card at all (counted by the full-text match) has nothing for the other signals.
  if (!scopeEmpty && needsTypoRescue(terms, found, fullText.length, candidates)) {
    const hits = await trigramHits(db, {
      source: CARD_SOURCE,
      where,
      text: params.trigramText,
      limit: candidates,
      minSimilarity: TRIGRAM_MIN_SIMILARITY,
    });
    lists.push({ signal: "trigram", weight: CARD_SIGNAL_WEIGHTS.trigram, hits });
  }
  if (params.vector && !scopeEmpty) {
    const hits = await vectorHits(db, {
      source: CARD_SOURCE,
      where,
      vector: params.vector.values,
      model: params.vector.model,
      limit: candidates,
      minSimilarity: params.vector.minSimilarity,
    });
    lists.push({ signal: "vector", weight: CARD_SIGNAL_WEIGHTS.vector * params.vector.weight, hits });
  }
  const fused = reciprocalRankFusion(lists);
  // Full-text hits usually come with their records (decoded for the fused ones only); the rest are read here.
  const records = new Map(fullText.map((hit) => [hit.id, hit.record]));
  const rows = new Map<string, MemoryCardRecord>();
  for (const { id } of fused) {
    const record = records.get(id);
    if (record) rows.set(id, recordFromJson(record));
  }
  const missing = fused.filter((f) => !rows.has(f.id)).map((f) => f.id);
  if (missing.length > 0) for (const [id, row] of await loadCardRows(db, params.tenantId, missing)) rows.set(id, row);
  const ranked: RankedCard[] = [];
  for (const f of fused) {
    const row = rows.get(f.id);
    if (!row) continue;
    const matchedBy: SearchHit["matchedBy"] = [];
    if (f.components.fullText !== undefined) matchedBy.push("full_text");
    if (f.components.trigram !== undefined) matchedBy.push("trigram");
    if (f.components.vector !== undefined) matchedBy.push("vector");
    ranked.push({ row, score: boostedScore(f, row, params.now), matchedBy });
  }
  ranked.sort((a, b) => b.score.final - a.score.final || (a.row.id < b.row.id ? -1 : 1));
  // An overriding card ranks as the candidate it overrides; conflict resolution then shows it in its place.
  const withOverrides = await withOverridingCards(
    db,
    params.slotChain,
    ranked,
    (r) => r.row,
    (row, overridden): RankedCard => ({ row, score: { ...overridden.score }, matchedBy: ["slot"] }),
  );
  return withOverrides.items;
}
