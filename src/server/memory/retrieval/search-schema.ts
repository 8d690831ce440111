import { z } from "zod";
import { CARD_TYPES } from "~/db/schema";
import type { MemoryCard } from "../store/card-view";
import { strictShape } from "~/server/validation";
import { boundedJson } from "../write/schema";

export const SEARCH_LIMITS = { defaultLimit: 10, maxLimit: 50, queryText: 1000 } as const;

/**
 * MemoryQuery, the `memory_search` input (docs/retrieval.md). Known categories go in `kinds`; open
 * questions in `queryText`; `all` enumerates.
 */
export const memorySearchInputSchema = strictShape(
  "memory_search",
  {
    all: z.boolean().optional(),
    queryText: z.string().trim().max(SEARCH_LIMITS.queryText).optional(),
    kinds: z.array(z.string().min(1).max(64)).max(20).optional(),
    itemKey: z.string().max(200).optional(),
    domain: z.string().max(64).optional(),
    categoryPathPrefix: z.union([z.string().max(300), z.array(z.string().max(64)).max(8)]).optional(),
    types: z.array(z.enum(CARD_TYPES)).max(8).optional(),
    key: z.string().max(300).optional(),
    valueJson: boundedJson.optional(),
    tags: z.array(z.string().min(1).max(64)).max(20).optional(),
    entities: z.array(z.string().min(1).max(64)).max(20).optional(),
    /** Narrow to these scopes (each must be readable); default: every readable scope. */
    scopes: z.array(z.string().max(220)).max(20).optional(),
    includeExpired: z.boolean().optional(),
    /** Answer as memory stood at this moment (ISO time). */
    asOf: z.iso.datetime({ offset: true }).optional(),
    /** Also search the evidence log (messages, and memory-tree chunks when present). */
    includeEvidence: z.boolean().optional(),
    limit: z.number().int().min(1).max(SEARCH_LIMITS.maxLimit).optional(),
    /** An enumeration's next page: the previous answer's nextCursor. */
    cursor: z.string().min(1).max(300).optional(),
  },
  "an open question goes in queryText, a known category in kinds",
);
export type MemorySearchInput = z.input<typeof memorySearchInputSchema>;

export type OmitReason = "expired" | "superseded" | "low_confidence" | "conflict_lost" | "over_limit";

/** Why a card ranked where it did: each signal's contribution, for the dashboard's "why recalled". */
export type ScoreComponents = {
  fullText?: number;
  /** Evidence only: full-text score lent by the neighbouring turns of the same session. */
  context?: number;
  trigram?: number;
  vector?: number;
  fused?: number;
  importance?: number;
  confidence?: number;
  recency?: number;
  hotness?: number;
  explicit?: number;
  /**
   * With a re-ranking endpoint configured, the endpoint's score: it orders evidence as it is; a
   * card's, scaled to 0–1 over the candidates, is boosted as full-text relevance is (rerank.ts).
   */
  rerank?: number;
  /** Evidence only, the second stage's parts (second-stage.ts): the IDF-weighted share of the query's terms the text holds, */
  coverage?: number;
  /** how near each other they stand, */
  proximity?: number;
  /** for a question asking for a kind of value (a time, an age, a number, a place …), 1 when the text holds one (answer-type.ts), */
  answerType?: number;
  /** and the share of the query's terms that a few best candidates sharing a rare word with this text hold and it lacks (entity-join.ts). */
  join?: number;
  /** Evidence only: lent by the best hits that share this row's rare words (second-hop.ts). */
  hop?: number;
  /** Evidence only: 1 when the row holds the other name of the question's subject (a relation the memory binds to the name asked, or the name bound to the relation asked; alias-binding.ts) and not the one asked; a flag, the alias's part is in `fullText`. */
  alias?: number;
  /** Evidence only: 1 when the row was brought into the page's last places as holding what the question names (named-tail.ts); a flag, not a part of `final` (the hit took the score of its place). */
  named?: number;
  final: number;
};

/** `slot`: not matched itself, it overrides a matched card's slot in a more specific scope of the turn (slot-rivals.ts). */
export type SearchHit = MemoryCard & {
  matchedBy: ("exact" | "enumeration" | "full_text" | "trigram" | "vector" | "slot")[];
  score?: ScoreComponents;
};

export type EvidenceHit = {
  kind: "message" | "chunk";
  id: string;
  sessionId: string;
  role: string;
  content: string;
  createdAt: string;
  score: number;
  /** Each signal's raw score and the fused score (same meaning as a card's). */
  components?: ScoreComponents;
};

export type MemorySearchResult = {
  exact: SearchHit[];
  relevant: SearchHit[];
  omitted: { nodeId: string; reason: OmitReason }[];
  /** Present when `omitted` was cut short: how many cards were left out in all. */
  omittedCount?: number;
  /** True only when an enumeration ran: the only case in which an empty answer means "no memories". */
  enumerated: boolean;
  /** An enumeration with more pages: send it back as `cursor` (with the same filters) for the next one. */
  nextCursor?: string;
  evidence?: EvidenceHit[];
  message: string;
  /** Parts of the search that were skipped (e.g. the embedding provider did not answer); results are still valid. */
  warnings?: string[];
};
