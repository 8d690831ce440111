/**
 * When a word is rare: what the second hop bridges by, the entity join links by, and a question names
 * (second-hop.ts, entity-join.ts, second-stage.ts). One rule, so that the three agree on it.
 */

/** A word in more than this share of the rows says little about one story (a speaker's name, 今天). */
export const RARE_MAX_SHARE = 0.02;
/** …or in more rows than this, in a small scope: a bridge is in two rows at least (the seed and the answer). */
const RARE_MAX_ROWS_FLOOR = 3;

/** A row's rare words taken (the second hop's bridge, the join's links), the rarest first. */
export const RARE_WORDS_PER_ROW = 6;

/** A word in `df` of a scope's `n` rows is rare there: in at most RARE_MAX_SHARE of them, or the floor's few. */
export const rareInScope = (df: number, n: number) => df <= Math.max(RARE_MAX_ROWS_FLOOR, RARE_MAX_SHARE * n);
