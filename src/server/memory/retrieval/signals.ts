import { sql, StringChunk, type SQL, type SQLChunk } from "drizzle-orm";
import { PgTransaction } from "drizzle-orm/pg-core";
import { jsonValue, queryRows, textArrayLiteral } from "~/db/raw";
import { startNow } from "~/db/start-now";
import type { DbOrTx } from "~/db/types";
import { cachedCorpusStats, type CorpusStats } from "./corpus-stats";
import { anyTermTsQuery, standsIn, termTsQuery, type QueryTerm } from "./query-terms";
import { selectingTerms, termShare, termShares, type TermShares } from "./term-shares";
import type { TextSource } from "./text-sources";
import { bm25Idf, documentFrequencies, scoreBm25, type MatchedDoc } from "./bm25";
import { withTermsInScope, withTranslationsInScope } from "./translation-presence";

/**
 * The three retrieval signals, each one SQL statement over one searchable table, restricted by the
 * caller's `where` (tenant first, then scopes and filters — built by the caller from the table's
 * own columns, so the table is never aliased here).
 *
 * - fullText: BM25 over the generated `search_vector` (segmented text, `simple` configuration).
 *   The GIN index finds the rows with any query term; BM25 (field-weighted for cards: title 5,
 *   key/entities 4, tags/value 3, content 2) ranks them. ts_rank_cd has no IDF, so a
 *   question full of common words ranked noise first; BM25 does not.
 * - trigram: pg_trgm word_similarity of the segmented query against the segmented text: catches
 *   typos and partial words the full-text lexemes miss.
 * - vector: pgvector cosine over memory_embeddings for one model, exact within the caller's scope.
 */

export type Hit = { id: string; score: number };
/** `record`: the row's record (TextSource.record's JSON), when the call asked for records and the match was small enough. */
export type FullTextHit = Hit & { extra: Record<string, unknown>; record?: unknown[] };

/** Rows read per full-text query; past this the rows with the best plain ts_rank are kept. */
const MAX_FULL_TEXT_ROWS = 3000;

/** Disjoint parts of a search's scope (one scope each), counted and cached one by one. */
export type StatsPart = { key: string; where: SQL };

/**
 * Rows in scope and their mean searchable length (cached briefly when a key is given). With `parts`
 * (disjoint, together exactly `where`) each part is counted and cached on its own and the results
 * summed: a workspace or the global scope is then counted once for every caller that reads it,
 * instead of once per combination of scopes (at 1M cards a first count took ~120 ms). An empty
 * scope is taken from the cache only when nothing was written since it was counted (embedded mode);
 * otherwise a zero total is counted again, so that a search that skips a scope counted empty finds
 * the first row written to it at once.
 */
export async function scopeStats(
  db: DbOrTx,
  source: TextSource,
  where: SQL,
  statsKey?: string,
  parts?: readonly StatsPart[],
): Promise<CorpusStats> {
  const t = sql.raw(source.table);
  const count = (key: string | undefined, scope: SQL, fresh: boolean) =>
    cachedCorpusStats(
      db,
      { table: source.table, key },
      async () => {
        const [row] = await queryRows<{ n: number | string; avglen: number | string | null }>(
          db,
          sql`select count(*) as n, avg(${sql.raw(source.length)}) as avglen from ${t} where ${scope}`,
        );
        return { n: Number(row?.n ?? 0), avglen: Number(row?.avglen ?? 1) };
      },
      fresh,
    );
  const scopeParts: StatsPart[] = parts?.length ? [...parts] : [{ key: statsKey ?? "", where }];
  const keyOf = (part: StatsPart) => (parts?.length ? part.key : statsKey);
  let counted = await Promise.all(scopeParts.map((part) => count(keyOf(part), part.where, false)));
  if (counted.every((c) => c.n === 0) && counted.some((c) => !c.current))
    counted = await Promise.all(
      scopeParts.map((part, i) => (counted[i]!.current ? counted[i]! : count(keyOf(part), part.where, true))),
    );
  const n = counted.reduce((sum, c) => sum + c.n, 0);
  if (!parts?.length) return { n, avglen: counted[0]!.avglen };
  return { n, avglen: n === 0 ? 1 : counted.reduce((sum, c) => sum + c.n * c.avglen, 0) / n };
}

/**
 * Result rows come back as one JSON array (json_agg): embedded Postgres pays per row and per column
 * returned, so a few hundred candidates as one value cost a fraction of the same as rows.
 */
async function jsonRows<T>(db: DbOrTx, query: SQL): Promise<T[]> {
  const [row] = await queryRows<{ rows: string | T[] | null }>(db, query);
  const rows = row?.rows ?? null;
  if (rows === null) return [];
  return jsonValue(rows);
}

/**
 * Full-text candidates ranked by BM25. The database finds the rows with any selecting query term (GIN
 * index) and reports, per row, which term — the others included — occurs in which weight class as a
 * string of 0/1 flags: a few bytes instead of the text, and no unnesting of vectors inside (embedded)
 * Postgres. In a large scope, common terms ("user", 项目, single characters) would make the database
 * read and flag much of it for words that barely move BM25: the terms select rarest first, within a
 * row budget (selectingTerms), the others score the rows found, unless those are fewer than
 * `minimum`, and their document frequency is estimated from the table's statistics.
 */
export async function fullTextHits(...args: Parameters<typeof fullTextMatch>): Promise<FullTextHit[]> {
  return (await fullTextMatch(...args)).hits;
}

/**
 * `terms`: the query terms matched — the caller's own, with the translations its scope holds when the
 * own words mostly do not occur (matchTerms); `found` and `df` are per term of these. `df`: the rows
 * in scope holding the term (as BM25 counted them); `n`: the rows in scope.
 */
export type FullTextMatch = {
  hits: FullTextHit[];
  terms: readonly QueryTerm[];
  found: boolean[];
  df: number[];
  n: number;
  /** The matched rows' term flags (as BM25 read them) and the scope's mean length: to score other subsets of the terms. */
  docs: MatchedDoc[];
  avglen: number;
  /** The scope holds no row at all: no other signal need look there either. */
  scopeEmpty?: true;
};

/**
 * fullTextHits, and which query terms occur anywhere in the caller's scope (`found`, one flag per
 * term): in a matched row, or — for a common term left out of the match — in the table's statistics.
 */
export async function fullTextMatch(
  db: DbOrTx,
  params: {
    source: TextSource;
    where: SQL;
    terms: readonly QueryTerm[];
    limit: number;
    /** Fewer rows found by the selecting terms than this and every term is matched. Default: `limit`. */
    minimum?: number;
    /** Cache key for the scope's row count and mean length. */
    statsKey?: string;
    /** The scope's disjoint parts, counted and cached one by one (see scopeStats). */
    statsParts?: readonly StatsPart[];
    /**
     * Cards only: a tsquery of the caller's scope lexemes (scopesTsQuery), matched with the terms in one
     * index scan, and `where` written so that no index serves its tenant and scopes, for that match (the
     * index scan already keeps to them; `where` itself still serves the corpus statistics).
     */
    scoped?: ScopedMatch;
    /**
     * Return each hit's record (TextSource.record) when at most this many rows matched: the caller
     * then needs no second statement for the rows of its top hits. Past it, only ids come back
     * (building records for thousands of rows would cost more than the statement saved).
     */
    recordsUpTo?: number;
    /** Rows the selecting terms may be expected to find (selectingTerms); default the source's rowBudget. */
    rowBudget?: number;
    /** Only these of `terms` may select rows; the others only score the rows they find (default: every term). */
    selectFrom?: readonly QueryTerm[];
  },
): Promise<FullTextMatch> {
  const { source } = params;
  const none = (terms: readonly QueryTerm[]) => ({
    hits: [],
    terms,
    found: terms.map(() => false),
    df: terms.map(() => 0),
    n: 0,
    docs: [],
    avglen: 1,
  });
  if (!anyTermTsQuery(params.terms)) return none(params.terms);
  const shares = await termShares(db, source.table);
  let counted: Promise<CorpusStats> | undefined;
  const countScope = () => (counted ??= scopeStats(db, source, params.where, params.statsKey, params.statsParts));
  // Nothing to match in an empty scope (a memory of messages only has no cards): no match, no probe
  // for translations. A cached zero is trusted only while nothing was written to the table
  // (scopeStats), so a row written now is found.
  if ((await countScope()).n === 0) return { ...none(params.terms), scopeEmpty: true };
  const matched = await matchTerms(db, params, shares, countScope);
  const { terms, rows } = matched;
  if (rows.length === 0) return none(terms);
  const stats = await countScope();
  const docs = matched.docs ?? flaggedDocs(source, rows, terms.length);
  // A term that selected rows is counted exactly (every row holding it is a match), unless the row
  // cap cut the match; one that only scored counts at least its share of the table.
  const capped = rows.length >= MAX_FULL_TEXT_ROWS;
  const selected = new Set(matched.selecting);
  const dfAtLeast = estimatedDocumentFrequencies(terms, shares, stats.n, capped ? new Set() : selected);
  const rowOf = new Map(rows.map((row) => [row[0], row]));
  const recordAt = 3 + source.extra.length;
  const df = documentFrequencies(docs, terms.length, dfAtLeast);
  const hits = scoreBm25(docs, terms, stats, df)
    .slice(0, params.limit)
    .map((hit) => {
      const row = rowOf.get(hit.id)!;
      return {
        id: hit.id,
        score: hit.score,
        extra: Object.fromEntries(source.extra.map((c, i) => [c, row[3 + i]])),
        record: (row[recordAt] as unknown[] | null) ?? undefined,
      };
    });
  return {
    hits,
    terms,
    found: df.map((count) => count > 0),
    df,
    n: Math.max(stats.n, docs.length),
    docs,
    avglen: stats.avglen,
  };
}

/** Per term, at least its share of the table times the scope's rows; 0 for a term counted exactly. */
function estimatedDocumentFrequencies(
  terms: readonly QueryTerm[],
  shares: TermShares,
  scopeRows: number,
  exact: ReadonlySet<QueryTerm>,
): number[] {
  return terms.map((term) => (exact.has(term) ? 0 : Math.round(termShare(shares, term) * scopeRows)));
}

/**
 * Below this IDF-weighted share of the question's own terms occurring in the scope, the question is
 * taken to be about text in the other language, and its translations join the match.
 */
const OWN_WORDS_COVERAGE = 0.5;

/**
 * The rows to score, the terms they are flagged for, and those that selected them. The rows holding
 * a selecting term (selectingTerms) come first; fewer than `minimum`, and the rows holding any term
 * are matched. Translations (cross-language.ts) take part only when the question's own words mostly
 * do not occur in the matched rows: a Chinese question over English turns, found by a name or not at
 * all, is ranked by its translations. A question whose own words occur is answered in its own
 * language: in a memory kept in both languages its translations would otherwise be probed and
 * flagged on every row for nothing (docs/retrieval.md, "The bridge").
 */
async function matchTerms(
  db: DbOrTx,
  params: Parameters<typeof fullTextMatch>[1],
  shares: TermShares,
  countScope: () => Promise<CorpusStats>,
): Promise<{ rows: FlagRow[]; terms: readonly QueryTerm[]; selecting: readonly QueryTerm[]; docs?: MatchedDoc[] }> {
  const stats = await countScope();
  const scopeKey = params.statsKey ?? (params.statsParts && JSON.stringify(params.statsParts.map((part) => part.key)));
  // Kin terms a group word covers (kinship.ts): only those the scope holds are matched and flagged
  // (a query without any is returned as it is, unprobed).
  const asked = await withTermsInScope(
    db,
    { source: params.source, where: params.where, terms: params.terms, scoped: params.scoped, scopeKey },
    (term) => term.kin === true,
  );
  const own = asked.filter((term) => !term.translated);
  const { selectFrom } = params;
  const selectable = selectFrom && new Set(selectFrom.map((term) => termTsQuery(term)));
  const candidates = selectable ? own.filter((term) => selectable.has(termTsQuery(term))) : own;
  const selecting = selectingTerms(candidates, shares, stats.n, params.rowBudget ?? params.source.rowBudget);
  const first = selecting.length > 0 ? await matchRows(db, { ...params, terms: own }, selecting) : [];
  // The own words' flags, read once: for the coverage, and for BM25 when these rows are the answer.
  const docs = own.length < asked.length ? flaggedDocs(params.source, first, own.length) : undefined;
  const enough = selecting.length > 0 && first.length >= (params.minimum ?? params.limit);
  const translate = docs !== undefined && ownCoverage(docs, own, selecting, shares, stats) < OWN_WORDS_COVERAGE;
  const terms = translate
    ? await withTranslationsInScope(db, {
        source: params.source,
        where: params.where,
        terms: asked,
        scoped: params.scoped,
        scopeKey,
      })
    : own;
  const sameTerms = terms.length === own.length;
  if (enough) {
    if (sameTerms) return { rows: first, terms, selecting, docs };
    // The same rows: only the translations' flags are new, read by the rows' ids.
    const translations = terms.filter((term) => term.translated);
    const rows = await withFlagsById(db, params, translations, first);
    return { rows, terms: [...own, ...translations], selecting };
  }
  if (sameTerms && selecting.length === own.length) return { rows: first, terms, selecting, docs };
  const rows = anyTermTsQuery(terms) ? await matchRows(db, { ...params, terms }, terms) : [];
  return { rows, terms, selecting: terms };
}

/**
 * The IDF-weighted share of `terms` flagged in the matched rows (none, no share). The table's
 * statistics weigh a term but cannot say it is in this scope: a table shared by tenants holds
 * English for one whose memory is Chinese.
 */
function ownCoverage(
  docs: readonly MatchedDoc[],
  terms: readonly QueryTerm[],
  selecting: readonly QueryTerm[],
  shares: TermShares,
  stats: CorpusStats,
): number {
  const inRows = documentFrequencies(docs, terms.length, []);
  const df = documentFrequencies(
    docs,
    terms.length,
    estimatedDocumentFrequencies(terms, shares, stats.n, new Set(selecting)),
  );
  const n = Math.max(stats.n, docs.length, ...df);
  let total = 0;
  let present = 0;
  terms.forEach((term, i) => {
    // A kin term stands for the group word the question holds (kinship.ts), which counts itself.
    if (standsIn(term)) return;
    const weight = term.weight * bm25Idf(n, df[i]!);
    total += weight;
    if (inRows[i]! > 0) present += weight;
  });
  return total === 0 ? 0 : present / total;
}

/** Each row's term frequencies: per term, the summed weight of the classes its flags say it occurs in. */
function flaggedDocs(source: TextSource, rows: readonly FlagRow[], termCount: number): MatchedDoc[] {
  const classes = source.classes.length;
  return rows.map(([id, length, flagText]) => ({
    id,
    length: Number(length),
    tf: Array.from({ length: termCount }, (_, i) =>
      source.classes.reduce((sum, c, j) => sum + (flagText[i * classes + j] === "1" ? c.weight : 0), 0),
    ),
  }));
}

/** The scope lexemes' tsquery, and `where` written so that no index serves its tenant and scopes (cardWhere's `indexable: false`). */
export type ScopedMatch = { query: string; where: SQL };

/** [id, length, flags, ...extra, record?] */
type FlagRow = [string, number, string, ...unknown[]];

/** Rows in `where` matching any of `matched`, flagged for every query term; past the cap, the best by ts_rank. */
async function matchRows(
  db: DbOrTx,
  params: { source: TextSource; where: SQL; terms: readonly QueryTerm[]; scoped?: ScopedMatch; recordsUpTo?: number },
  matched: readonly QueryTerm[],
): Promise<FlagRow[]> {
  const { source, terms } = params;
  const tsquery = anyTermTsQuery(matched);
  const t = sql.raw(source.table);
  const vector = sql.raw(`${source.table}.search_vector`);
  // `hit.vector` is the row's vector decompressed once (`|| ''` builds it in memory): testing the
  // stored one per flag would decompress it again for every term × class (4× the buffers measured).
  const flags = termFlags(source, terms);
  const extra = sql.raw(source.extra.map((c) => `, hit.${c}`).join(""));
  const extraColumns = sql.raw(source.extra.map((c) => `, ${source.table}.${c}`).join(""));
  // Records only under the cap: the matches are counted after the limit (which stops the scan early),
  // and each record is read back by its tuple id — the version this statement matched, same snapshot.
  const { recordsUpTo } = params;
  const recordJson = recordsUpTo ? source.record : undefined;
  const record = recordJson
    ? sql`, case when hit.total <= ${recordsUpTo} then (select ${sql.raw(recordJson)} from ${t} where ${t}.ctid = hit.tid) end`
    : sql``;
  const termQuery = sql`to_tsquery('simple', ${tsquery})`;
  const { scoped } = params;
  const match = scoped
    ? sql`${scoped.where} and ${sql.raw(source.matchVector)} @@ (${termQuery} && ${scoped.query}::tsquery)`
    : sql`${params.where} and ${sql.raw(source.matchVector)} @@ ${termQuery}`;
  const select = (ordered: boolean) => {
    const hits = sql`select ${t}.id, ${sql.raw(source.length)} as length, ${vector} || ''::tsvector as vector${extraColumns}${recordJson ? sql`, ${t}.ctid as tid` : sql``}
                    from ${t} where ${match}
                  ${ordered ? sql`order by ts_rank(${vector}, to_tsquery('simple', ${tsquery})) desc` : sql``}
                  limit ${MAX_FULL_TEXT_ROWS + (ordered ? 0 : 1)}`;
    const counted = recordJson ? sql`select m.*, count(*) over () as total from (${hits}) as m` : hits;
    return jsonRows<FlagRow>(
      db,
      sql`select json_agg(json_build_array(hit.id, hit.length, array_to_string(array[${flags}], '')${extra}${record}))::text as rows from (${counted}) as hit`,
    );
  };
  const rows = await select(false);
  // Rare (a term in thousands of rows): keep the rows plain ts_rank likes best, then rank by BM25.
  return rows.length > MAX_FULL_TEXT_ROWS ? select(true) : rows;
}

/**
 * One 0/1 flag per term and weight class, tested on the row's vector as `hit.vector`, each tsquery a
 * bound value. Built as one flat list of text and values: a fragment per flag, joined, took drizzle
 * ~4× as long to turn into a statement (~160 against ~40 µs for 40 flags), on every search.
 */
function termFlags(source: TextSource, terms: readonly QueryTerm[]): SQL {
  const chunks: SQLChunk[] = [];
  for (const term of terms)
    for (const c of source.classes)
      chunks.push(
        new StringChunk(chunks.length === 0 ? "(hit.vector @@ " : ", (hit.vector @@ "),
        // A plain value in the list is bound as a parameter, as a value in the sql`` template is.
        termTsQuery(term, c.label) as unknown as SQLChunk,
        new StringChunk("::tsquery)::int"),
      );
  return sql.fromList(chunks);
}

/** The rows with the flags of `terms` after their own, read by id (a row gone meanwhile: none set). */
async function withFlagsById(
  db: DbOrTx,
  params: { source: TextSource; where: SQL },
  terms: readonly QueryTerm[],
  rows: readonly FlagRow[],
): Promise<FlagRow[]> {
  const { source } = params;
  if (rows.length === 0) return [];
  const t = sql.raw(source.table);
  const flagged = await jsonRows<[string, string]>(
    db,
    sql`select json_agg(json_build_array(hit.id, array_to_string(array[${termFlags(source, terms)}], '')))::text as rows
          from (select ${t}.id, ${t}.search_vector || ''::tsvector as vector
                  from ${t} where ${params.where} and ${t}.id = any(${textArrayLiteral(rows.map((row) => row[0]))}::text[])) as hit`,
  );
  const byId = new Map(flagged);
  const none = "0".repeat(terms.length * source.classes.length);
  return rows.map(([id, length, flags, ...rest]) => [id, length, flags + (byId.get(id) ?? none), ...rest]);
}

/**
 * Rows whose trigram columns hold a close match of the query (`%>`: word similarity above
 * pg_trgm.word_similarity_threshold), scored by word_similarity against the text. The close rows
 * are looked up first, one GIN-indexed column at a time, and only then restricted to `where` (one
 * primary-key probe each — `offset 0` keeps the planner from turning that back into a scan of the
 * scope — so similarity is computed for close rows only):
 * testing `%>` on every row of a large scope instead costs a scan (46 ms for 3,000 cards, 14 ms
 * through the indexes at 100k).
 */
export async function trigramHits(
  db: DbOrTx,
  params: { source: TextSource; where: SQL; text: string; limit: number; minSimilarity: number },
): Promise<Hit[]> {
  if (!params.text.trim()) return [];
  const t = sql.raw(params.source.table);
  // No tenant predicate here on purpose: with one, the planner can (and at ~10k rows does) read the
  // tenant's whole index range and test `%>` on every row. These are only candidate ids; the rows
  // returned are the ones `where` (tenant first) admits in the join below.
  const close = sql.join(
    params.source.trigramColumns.map((c) => sql`select ${t}.id from ${t} where ${sql.raw(c)} %> ${params.text}`),
    sql` union `,
  );
  const text = sql.raw(params.source.trigramText);
  const query = sql`with close_rows as materialized (${close})
        select json_agg(json_build_array(id, score) order by score desc, id)::text as rows from (
          select id, score from (
            select scoped.id, scoped.score from close_rows cross join lateral (
              select ${t}.id, word_similarity(${params.text}, ${text})::float8 as score from ${t}
               where ${params.where} and ${t}.id = close_rows.id
              offset 0
            ) scoped
          ) s
          where score >= ${params.minSimilarity}
          order by score desc, id
          limit ${params.limit}) top`;
  const rows = await withIndexScans(db, (tx) => jsonRows<[string, number]>(tx, query));
  return rows.map(([id, score]) => ({ id, score: Number(score) }));
}

/**
 * Runs `read` with sequential scans off and a generic plan. The planner overprices the trigram GIN
 * scan, so on tables of some thousands of rows it reads the whole table instead, computing word
 * similarity for every row (100 ms at 10k cards for "invoice process", 8.6 ms through the trigram
 * indexes). A custom plan estimates `%>` by running word similarity over the column's statistics
 * samples: 4–6.5 ms of planning per call at 100k cards, against 0.2 ms for the generic plan, which
 * takes the same index path. JIT off: at 1M cards the statement's estimated cost passed
 * jit_above_cost, and compiling it took 13.7 ms of a 57 ms call (EXPLAIN ANALYZE; JIT code is not
 * kept from one call to the next). Inside a caller's transaction the statement runs as is, so the
 * settings cannot leak into it.
 */
async function withIndexScans<T>(db: DbOrTx, read: (tx: DbOrTx) => Promise<T>): Promise<T> {
  if (db instanceof PgTransaction) return read(db);
  return db.transaction(async (tx) => {
    // Sent with the read, not awaited first: one round trip fewer, and the settings still come first.
    const settings = startNow(
      tx.execute(
        sql`select set_config('enable_seqscan', 'off', true), set_config('plan_cache_mode', 'force_generic_plan', true), set_config('jit', 'off', true)`,
      ),
    );
    const [, rows] = await Promise.all([settings, read(tx)]);
    return rows;
  });
}

export async function vectorHits(
  db: DbOrTx,
  params: {
    source: TextSource;
    where: SQL;
    vector: readonly number[];
    model: string;
    limit: number;
    minSimilarity: number;
  },
): Promise<Hit[]> {
  const dimensions = params.vector.length;
  if (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > 16_000) return [];
  const t = sql.raw(params.source.table);
  const owner = sql.raw(`e.${params.source.owner}`);
  const cast = sql.raw(`::vector(${dimensions})`);
  const literal = `[${params.vector.join(",")}]`;
  // Each scoped owner's vector is fetched by the (tenant, owner, model) unique index in a correlated
  // subquery: the one plan that stays sound before the table has statistics (embedded Postgres has
  // no autovacuum to gather them). It is an exact scan of the caller's scope, not an HNSW probe.
  const rows = await jsonRows<[string, number]>(
    db,
    sql`select json_agg(json_build_array(id, score) order by score desc, id)::text as rows from (
          select id, score from (
            select ${t}.id,
                   (select (1 - (e.embedding${cast} <=> ${literal}${cast}))::float8
                      from memory_embeddings e
                     where e.tenant_id = ${t}.tenant_id and ${owner} = ${t}.id and e.model = ${params.model} and e.dimensions = ${dimensions}) as score
              from ${t}
             where ${params.where}
          ) v
          where score >= ${params.minSimilarity}
          order by score desc, id
          limit ${params.limit}) top`,
  );
  return rows.map(([id, score]) => ({ id, score: Number(score) }));
}
