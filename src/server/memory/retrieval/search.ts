import type { MemoryCardRecord, CardStatus } from "~/db/schema";
import type { DbOrTx } from "~/db/types";
import type { EmbeddingProvider } from "~/server/providers/embeddings";
import type { MemoryCallContext } from "../call-context";
import { BUILT_IN_KIND_REGISTRY, loadKindRegistry, type KindRegistry } from "../kinds/custom";
import { readMemoryAsOf } from "./history";
import { filterKindNames } from "../store/card-filter";
import { toMemoryCard, type MemoryCard } from "../store/card-view";
import type { ScopePattern } from "../scope";
import { resolveConflicts, type Omitted } from "./conflicts";
import { searchEvidence } from "./evidence";
import { rankLexically } from "./lexical-score";
import { cardMatchesFilter } from "./card-match";
import { fetchEnumerationPage } from "./enumeration";
import { fetchFilteredCards, cardWhere, rankCardsByText } from "./card-search";
import { embedQuery, resolveProvider, type QueryVector } from "./query-embedding";
import { recordQuery } from "./query-log";
import { queryTerms, trigramQueryText } from "./query-terms";
import type { RankingFeatures } from "./ranking-features";
import { rerankCards, rerankEvidence, rerankWarning } from "./rerank";
import { getReranker, type Reranker } from "~/server/providers/rerank";
import { scopesTsQuery } from "./scope-lexemes";
import { slotChain, withOverridingCards } from "./slot-rivals";
import { disjointScopes, narrowReadScopes, turnScopes } from "./read-scopes";
import {
  memorySearchInputSchema,
  SEARCH_LIMITS,
  type EvidenceHit,
  type MemorySearchInput,
  type MemorySearchResult,
  type OmitReason,
  type SearchHit,
} from "./search-schema";
import { badRequest } from "~/server/errors";
import { logServerError } from "~/server/log";
import { parseInput } from "~/server/validation";
import { unknownKindsNotice } from "../kinds/unknown";

import { ParsedInput, Plan, plan } from "./search-plan";

export type SearchOptions = {
  /** Embedding provider for the query vector; `null` turns the vector signal off. Default: the configured one. */
  embeddings?: EmbeddingProvider | null;
  now?: Date;
  /** Write a memory_query_log row (default true; context building logs its own). */
  logQuery?: boolean;
  /** Ranking features to use (default: all); the recall benchmark switches them off one at a time. */
  ranking?: RankingFeatures;
  /** Re-ranking endpoint for cards and evidence; `null` turns it off. Default: the configured one (RERANK_BASE_URL), if any. */
  reranker?: Reranker | null;
};

/** Omitted entries returned; `omittedCount` says how many there were in all. */
const MAX_OMITTED = 50;
/** Non-current cards (superseded, expired) ride along with exact hits to explain what was left out. */
const EXACT_HISTORY_ALLOWANCE = 20;
const HISTORY_STATUSES: readonly CardStatus[] = ["active", "expired", "superseded"];

type Candidates = {
  exact: MemoryCard[];
  relevant: (MemoryCard & { score?: SearchHit["score"]; matchedBy: SearchHit["matchedBy"] })[];
  evidence?: EvidenceHit[];
  warnings: string[];
  /** Exact hits that did not match the filters themselves: they override a card that did (slot-rivals.ts). */
  slotIds?: ReadonlySet<string>;
  /** An enumeration page: cards read only to resolve the page's conflicts (they are listed on their own page). */
  otherPages?: ReadonlySet<string>;
  nextCursor?: string;
};

async function currentCandidates(
  db: DbOrTx,
  ctx: MemoryCallContext,
  p: Plan,
  input: ParsedInput,
  scopes: ScopePattern[],
  registry: KindRegistry,
  options: SearchOptions,
  now: Date,
): Promise<Candidates> {
  const limit = input.limit ?? SEARCH_LIMITS.defaultLimit;
  const warnings: string[] = [];
  const base = { tenantId: ctx.tenantId, scopes, registry };
  const chain = slotChain(ctx.tenantId, ctx.defaults, scopes);
  let exactRows: MemoryCardRecord[] = [];
  const slotIds = new Set<string>();
  const currentStatuses: CardStatus[] = input.includeExpired ? ["active", "expired"] : ["active"];
  if (p.listAll) {
    const page = await fetchEnumerationPage(db, {
      where: cardWhere({ ...base, filter: p.all, statuses: currentStatuses }),
      cursor: input.cursor,
      limit,
      now,
    });
    return {
      exact: [...page.rows, ...page.rivals].map(toMemoryCard),
      relevant: [],
      warnings,
      otherPages: new Set(page.rivals.map((r) => r.id)),
      ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}),
    };
  }
  if (p.runExact) {
    const statuses = p.hasIdentifying ? HISTORY_STATUSES : currentStatuses;
    exactRows = await fetchFilteredCards(db, {
      where: cardWhere({ ...base, filter: p.all, statuses }),
      now,
      limit: limit + EXACT_HISTORY_ALLOWANCE,
    });
    // A filter (a tag, a value) can match the user's card and not the session's override of it: the
    // override comes too, just before the card it overrides, and wins its slot there.
    const withOverrides = await withOverridingCards(
      db,
      chain,
      exactRows,
      (row) => row,
      (rival) => rival,
    );
    exactRows = withOverrides.items;
    for (const rival of withOverrides.added) slotIds.add(rival.id);
  }
  let vector: QueryVector | undefined;
  const relevant: Candidates["relevant"] = [];
  let evidence: EvidenceHit[] | undefined;
  if (p.runRelevant && p.queryText) {
    const terms = queryTerms(p.queryText, options.ranking);
    // "☕" or "???": nothing full text can look for; say so rather than only "no memory matched".
    if (terms.length === 0)
      warnings.push(
        `queryText "${p.queryText.slice(0, 40)}" holds no word to search for (letters, digits or CJK characters); only the vector signal, if any, looked. Describe what you want in words.`,
      );
    const embedded = await embedQuery(resolveProvider(options.embeddings), p.queryText);
    vector = embedded.vector;
    if (embedded.warning) warnings.push(embedded.warning);
    const exactIds = new Set(exactRows.map((r) => r.id));
    const scopeQuery = scopesTsQuery(ctx.tenantId, scopes);
    const ranked = await rankCardsByText(db, {
      tenantId: ctx.tenantId,
      where: cardWhere({ ...base, filter: p.narrowing, statuses: HISTORY_STATUSES }),
      terms,
      trigramText: trigramQueryText(p.queryText),
      vector,
      candidates: Math.max(limit * 4, 40),
      now,
      slotChain: chain,
      scoped: scopeQuery
        ? {
            query: scopeQuery,
            where: cardWhere({ ...base, filter: p.narrowing, statuses: HISTORY_STATUSES, indexable: false }),
          }
        : undefined,
      statsParts: disjointScopes(scopes).map((scope) => ({
        key: JSON.stringify([ctx.tenantId, scope, p.narrowing]),
        where: cardWhere({ ...base, scopes: [scope], filter: p.narrowing, statuses: HISTORY_STATUSES }),
      })),
    });
    // Object.assign onto the fresh card, not a spread copy (see boostedScore: ~6 µs per copied card).
    for (const r of ranked)
      if (!exactIds.has(r.row.id))
        relevant.push(Object.assign(toMemoryCard(r.row), { score: r.score, matchedBy: r.matchedBy }));
    const reranker = options.reranker === undefined ? getReranker() : options.reranker;
    // The cards' request is in flight while the evidence is searched.
    const cardsReranked = reranker
      ? rerankCards(reranker, p.queryText, relevant).catch((error: unknown) => {
          logServerError("re-ranking memories", error);
          return { cards: relevant, error: "the re-ranking step failed" };
        })
      : undefined;
    const rerankErrors: { memories?: string; evidence?: string } = {};
    if (input.includeEvidence) {
      const first = await searchEvidence(db, {
        tenantId: ctx.tenantId,
        scopes,
        terms,
        queryText: p.queryText,
        trigramText: trigramQueryText(p.queryText),
        vector,
        limit: reranker ? Math.max(limit, reranker.topN) : limit,
        features: options.ranking,
      });
      if (reranker) {
        const reranked = await rerankEvidence(reranker, p.queryText, first, limit);
        evidence = reranked.hits;
        rerankErrors.evidence = reranked.error;
      } else evidence = first;
    }
    if (cardsReranked) {
      const reranked = await cardsReranked;
      relevant.splice(0, relevant.length, ...reranked.cards);
      rerankErrors.memories = reranked.error;
    }
    const rerankSkipped = rerankWarning(rerankErrors);
    if (rerankSkipped) warnings.push(rerankSkipped);
  }
  return { exact: exactRows.map(toMemoryCard), relevant, evidence, warnings, slotIds };
}

/** `asOf`: memory as it stood then (history.ts decides which revisions were current), ranked in memory. */
async function asOfCandidates(
  db: DbOrTx,
  ctx: MemoryCallContext,
  p: Plan,
  input: ParsedInput,
  scopes: ScopePattern[],
  registry: KindRegistry,
  options: SearchOptions,
): Promise<Candidates> {
  const asOf = new Date(input.asOf!);
  const kinds = p.all.kinds && filterKindNames(p.all.kinds, registry);
  const then = await readMemoryAsOf(db, { tenantId: ctx.tenantId, scopes, asOf, kinds, limit: 1000 });
  // Each of these revisions was the current one at asOf, whatever became of it since.
  const current = then.map((card) => ({ ...card, status: "active" as const }));
  const exact = p.runExact ? current.filter((n) => cardMatchesFilter(n, p.all, registry)) : [];
  const relevant: Candidates["relevant"] = [];
  if (p.runRelevant && p.queryText) {
    const exactIds = new Set(exact.map((n) => n.id));
    const pool = current.filter((n) => !exactIds.has(n.id) && cardMatchesFilter(n, p.narrowing, registry));
    for (const { card, score } of rankLexically(pool, p.queryText))
      relevant.push({ ...card, score: { fullText: score, final: score }, matchedBy: ["full_text"] });
  }
  let evidence: EvidenceHit[] | undefined;
  if (input.includeEvidence && p.runRelevant && p.queryText) {
    const limit = input.limit ?? SEARCH_LIMITS.defaultLimit;
    const terms = queryTerms(p.queryText, options.ranking);
    evidence = await searchEvidence(db, {
      tenantId: ctx.tenantId,
      scopes,
      terms,
      queryText: p.queryText,
      trigramText: trigramQueryText(p.queryText),
      limit,
      before: asOf,
      features: options.ranking,
    });
  }
  return { exact, relevant, evidence, warnings: [] };
}

function prioritizeOmitted(omitted: Omitted[]): Omitted[] {
  const order: Record<OmitReason, number> = {
    conflict_lost: 0,
    superseded: 1,
    expired: 2,
    low_confidence: 3,
    over_limit: 4,
  };
  return [...omitted].sort((a, b) => order[a.reason] - order[b.reason]);
}

/** Current cards a search found but does not show (under the confidence threshold, or shadowed in a conflict). */
const HIDDEN_CURRENT: readonly OmitReason[] = ["low_confidence", "conflict_lost"];

/**
 * The result in a sentence. With nothing shown it never claims emptiness while current cards were
 * found and left out (`hidden`): an enumeration that hid a low-confidence card said "memory is empty".
 */
function describe(
  p: Plan,
  exact: number,
  relevant: number,
  evidence: number | undefined,
  hidden: number,
  morePages: boolean,
): string {
  const evidenceText =
    evidence === undefined ? "" : ` ${evidence} evidence message${evidence === 1 ? "" : "s"} matched.`;
  const hiddenText = `${hidden} current memor${hidden === 1 ? "y" : "ies"} matched but ${hidden === 1 ? "was" : "were"} left out (listed in omitted: low_confidence or conflict_lost); memory_get reads one by id.`;
  if (p.listAll) {
    const filtered = p.hasIdentifying || p.hasNarrowing;
    if (exact === 0 && hidden > 0)
      return `Enumerated every current memory${filtered ? " matching these filters" : ""} in the scopes you can read: none to show, but ${hiddenText}`;
    if (exact === 0) {
      return filtered
        ? "Enumerated every current memory matching these filters in the scopes you can read: there are none."
        : "Enumerated every current memory in the scopes you can read: memory is empty.";
    }
    const more = morePages
      ? " More remain: send nextCursor as cursor (with the same all and filters) for the next page."
      : "";
    return `Listed ${exact} current memor${exact === 1 ? "y" : "ies"}${filtered ? " matching the filters" : ""}.${more}`;
  }
  if (exact + relevant === 0 && hidden > 0) return `Nothing to show for this query: ${hiddenText}${evidenceText}`;
  if (exact + relevant === 0) {
    return `No memory matched this query.${evidenceText} That is no proof that nothing is stored: only an enumeration (all: true) can tell.`;
  }
  return `${exact} exact and ${relevant} relevant memor${exact + relevant === 1 ? "y" : "ies"} found.${evidenceText}`;
}

/**
 * `memory_search` (MemoryQuery → {exact, relevant, omitted}, docs/retrieval.md): the exact path for structured
 * filters, the hybrid relevant path for queryText, enumeration for `all` or list-all phrasing, and
 * evidence on request. Everything is restricted to ctx.tenantId and the caller's readable scopes
 * (narrowed, never widened, by `scopes`), conflict-resolved, and cut to `limit`.
 */
export async function memorySearch(
  db: DbOrTx,
  ctx: MemoryCallContext,
  rawInput: MemorySearchInput | unknown,
  options: SearchOptions = {},
): Promise<MemorySearchResult> {
  const started = performance.now();
  const input = parseInput(memorySearchInputSchema, rawInput ?? {}, "memory_search input");
  const now = options.now ?? new Date();
  const limit = input.limit ?? SEARCH_LIMITS.defaultLimit;
  // In a turn, other conversations' session cards are not this turn's business (as for context):
  // they are searched only when asked for by `scopes` ("session:*" or a named session).
  const scopes =
    input.scopes === undefined && ctx.defaults.session
      ? turnScopes(ctx.readScopes, ctx.defaults.session.id)
      : narrowReadScopes(ctx.readScopes, input.scopes);
  const p = plan(input);
  if (input.cursor && (!p.listAll || input.asOf)) {
    throw badRequest(
      "cursor_without_enumeration",
      "cursor continues an enumeration: send it with all: true and the same filters as the page it came from (not with asOf), or leave it out.",
    );
  }

  let result: MemorySearchResult;
  if (scopes.length === 0) {
    result = {
      exact: [],
      relevant: [],
      omitted: [],
      enumerated: false,
      message:
        "None of the requested scopes is readable with your grants; nothing was searched. This says nothing about what memory holds.",
    };
  } else {
    // Only kind names need the tenant's registry (custom kinds); skip the read otherwise.
    const registry = input.kinds?.length ? await loadKindRegistry(db, ctx.tenantId) : BUILT_IN_KIND_REGISTRY;
    const found = input.asOf
      ? await asOfCandidates(db, ctx, p, input, scopes, registry, options)
      : await currentCandidates(db, ctx, p, input, scopes, registry, options, now);
    const exactIds = new Set(found.exact.map((n) => n.id));
    const { kept, omitted } = resolveConflicts([...found.exact, ...found.relevant], {
      now: input.asOf ? new Date(input.asOf) : now,
      chain: ctx.defaults,
      includeExpired: input.includeExpired,
      asOf: input.asOf !== undefined,
    });
    const onPage = (id: string) => !found.otherPages?.has(id);
    const exactKept = kept.filter((n) => exactIds.has(n.id) && onPage(n.id));
    const relevantKept = kept.filter((n) => !exactIds.has(n.id)) as Candidates["relevant"];
    const overLimit = [...exactKept.slice(limit), ...relevantKept.slice(limit)].map((n) => ({
      nodeId: n.id,
      reason: "over_limit" as const,
    }));
    // The exact cards were made for this call (toMemoryCard above): extended in place, not copied.
    const exact: SearchHit[] = exactKept.slice(0, limit).map((n) =>
      Object.assign(n, {
        matchedBy: (found.slotIds?.has(n.id)
          ? ["slot"]
          : [p.listAll ? "enumeration" : "exact"]) as SearchHit["matchedBy"],
      }),
    );
    const relevant: SearchHit[] = relevantKept.slice(0, limit);
    const allOmitted = prioritizeOmitted([...omitted.filter((o) => onPage(o.nodeId)), ...overLimit]);
    // A misspelt kind matches nothing; say so first, or "nothing matched" reads as "not stored".
    const unknownKinds = unknownKindsNotice(registry, input.kinds);
    const warnings = unknownKinds ? [unknownKinds, ...found.warnings] : found.warnings;
    result = {
      exact,
      relevant,
      omitted: allOmitted.slice(0, MAX_OMITTED),
      ...(allOmitted.length > MAX_OMITTED ? { omittedCount: allOmitted.length } : {}),
      enumerated: p.listAll,
      ...(found.nextCursor ? { nextCursor: found.nextCursor } : {}),
      ...(found.evidence ? { evidence: found.evidence } : {}),
      message: `${unknownKinds ? `${unknownKinds} ` : ""}${describe(p, exact.length, relevant.length, found.evidence?.length, omitted.filter((o) => HIDDEN_CURRENT.includes(o.reason) && onPage(o.nodeId)).length, found.nextCursor !== undefined)}`,
      ...(warnings.length ? { warnings } : {}),
    };
  }
  if (options.logQuery !== false) {
    const resultCount = result.exact.length + result.relevant.length + (result.evidence?.length ?? 0);
    await recordQuery(db, ctx, { operation: "memory_search", latencyMs: performance.now() - started, resultCount });
  }
  return result;
}
