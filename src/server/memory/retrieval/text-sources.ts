import { SCOPED_SEARCH_VECTOR_IN_QUERY } from "~/db/schema";
import { RANKED_CARD_RECORD_JSON } from "../store/card-records";

/** Where each signal reads: the searchable tables, their weight classes and what a hit returns. */
export type TextSource = {
  table: "memory_nodes" | "memory_messages" | "memory_chunks";
  owner: "node_id" | "message_id" | "chunk_id";
  /**
   * The vector's weight classes and what a match in each counts for BM25 (cards: title A 5,
   * key/entities B 4, tags/value C 3, content D 2, relative to D). Evidence has one class.
   */
  classes: readonly { label: "A" | "B" | "C" | "D" | ""; weight: number }[];
  /** The vector the full-text match tests: exactly the GIN-indexed expression, or the index is not used. */
  matchVector: string;
  /** Document length for BM25's normalization: the segmented text it was indexed from. */
  length: string;
  /** Columns returned with each full-text hit (evidence needs session and order for context). */
  extra: readonly string[];
  /** Evidence: the column holding a row's time (a chunk keeps its message's as `occurred_at`). */
  time?: string;
  /** Columns a trigram candidate must closely match (`%>`); the first is GIN-indexed (gin_trgm_ops). */
  trigramColumns: readonly string[];
  trigramText: string;
  /** The row's record as one JSON value (cards: RANKED_CARD_RECORD_JSON), for full-text calls that ask for records. */
  record?: string;
  /**
   * Rows a full-text match may expect its selecting terms to find (selectingTerms): past it, the
   * commoner terms only score the rows the rarer found. Cards, flagged per term and four weight
   * classes, get half a message's. Measured in docs/retrieval.md ("Signals").
   */
  rowBudget: number;
};

export const CARD_SOURCE: TextSource = {
  table: "memory_nodes",
  owner: "node_id",
  // Scoped: the vector plus a lexeme for the card's tenant and scope (memory_nodes_scoped_search_idx).
  matchVector: SCOPED_SEARCH_VECTOR_IN_QUERY,
  classes: [
    { label: "A", weight: 2.5 },
    { label: "B", weight: 2 },
    { label: "C", weight: 1.5 },
    { label: "D", weight: 1 },
  ],
  length:
    "length(memory_nodes.search_title) + length(memory_nodes.search_keys) + length(memory_nodes.search_values) + length(memory_nodes.search_body)",
  extra: [],
  trigramColumns: ["memory_nodes.search_body", "memory_nodes.search_title"],
  trigramText: `memory_nodes.search_title || ' ' || memory_nodes.search_body`,
  record: RANKED_CARD_RECORD_JSON,
  rowBudget: 250,
};
export const MESSAGE_SOURCE: TextSource = {
  table: "memory_messages",
  owner: "message_id",
  matchVector: "memory_messages.search_vector",
  classes: [{ label: "", weight: 1 }],
  length: "length(memory_messages.search_text)",
  extra: ["session_id", "seq", "role"],
  time: "memory_messages.created_at",
  trigramColumns: ["memory_messages.search_text"],
  trigramText: "memory_messages.search_text",
  rowBudget: 500,
};
export const CHUNK_SOURCE: TextSource = {
  table: "memory_chunks",
  owner: "chunk_id",
  matchVector: "memory_chunks.search_vector",
  classes: [{ label: "", weight: 1 }],
  length: "length(memory_chunks.search_text)",
  extra: ["session_id", "seq", "role"],
  time: "memory_chunks.occurred_at",
  trigramColumns: ["memory_chunks.search_text"],
  trigramText: "memory_chunks.search_text",
  rowBudget: 500,
};
