import { and, eq, isNull, lte, or, sql, type SQL } from "drizzle-orm";
import { memoryChunks, memoryMessages } from "~/db/schema";
import type { DbOrTx } from "~/db/types";
import type { ScopePattern } from "../scope";
import { queryRows } from "~/db/raw";
import { reciprocalRankFusion, round, type SignalHits } from "./fusion";
import { isQueryWord, type QueryTerm } from "./query-terms";
import type { EvidenceHit, ScoreComponents } from "./search-schema";
import { CHUNK_SOURCE, MESSAGE_SOURCE, type TextSource } from "./text-sources";
import { fullTextMatch, scopeStats, trigramHits, vectorHits } from "./signals";
import { anyOf } from "~/db/any-of";
import { ALL_RANKING_FEATURES, type RankingFeatures } from "./ranking-features";
import { reorderBySecondStage, SECOND_STAGE_CANDIDATES, SECOND_STAGE_WEIGHTS, type JoinInput } from "./second-stage";
import { HOP_SEEDS, hopLoans, MAX_HOP_QUESTION_WORDS } from "./second-hop";
import { asksTheDescribedEvent, describesSubject } from "./described-subject";
import { questionAnswerType } from "./answer-type";
import { termShares } from "./term-shares";
import { aliasTerms, boundAlias, holdsOnlyAlias, type BoundAlias } from "./bound-alias";
import { isOneLine, lastSentence } from "./question-focus";
import { firstRareWord, namedWords, withNamedPlaces } from "./named-tail";
import { liftBelowLender } from "./lending";
import { spreadOverSessions, type Scored } from "./context-spread";

/**
 * Evidence search: the message log (and memory-tree chunks, when there are any) ranked with the
 * same hybrid signals as cards. A message is visible when the caller can read its session scope or
 * its owner's user scope; nothing else widens that.
 */

type EvidenceTable = typeof memoryMessages | typeof memoryChunks;

/** Rows of `table` the scopes reach: session:<id>/session:* by session, user:<id> by owner. */
export function evidenceScopeCondition(table: EvidenceTable, scopes: readonly ScopePattern[]): SQL {
  const sessionIds = scopes.filter((p) => p.type === "session" && p.id !== "*").map((p) => p.id);
  const anySession = scopes.some((p) => p.type === "session" && p.id === "*");
  const userIds = scopes.filter((p) => p.type === "user").map((p) => p.id);
  const parts: SQL[] = [];
  if (anySession) parts.push(sql`true`);
  else if (sessionIds.length) parts.push(anyOf(table.sessionId, sessionIds));
  if (userIds.length) parts.push(anyOf(table.userScopeId, userIds));
  if (parts.length === 0) return sql`false`;
  return parts.length === 1 ? parts[0]! : or(...parts)!;
}

export type EvidenceQuery = {
  tenantId: string;
  scopes: readonly ScopePattern[];
  terms: readonly QueryTerm[];
  /** The question as asked: the second stage looks for its exact phrases. */
  queryText: string;
  trigramText: string;
  /** The query's vector and its model, when a provider answered. */
  vector?: { values: readonly number[]; model: string; minSimilarity: number; weight: number };
  limit: number;
  /** Only evidence created up to this moment (asOf reads). */
  before?: Date;
  /** Ranking features (default: all). */
  features?: RankingFeatures;
};

/** Cache key of a scope's corpus statistics (see corpus-stats.ts). */
const statsKeyOf = (query: EvidenceQuery) =>
  JSON.stringify([query.tenantId, query.scopes, query.before?.toISOString() ?? null]);

/** Rank-fusion weights; the vector's is further scaled by the provider's own signalWeight. */
export const EVIDENCE_SIGNAL_WEIGHTS = { fullText: 1, vector: 1, trigram: 0.4 } as const;
/** Full-text hits considered per source before spreading and fusion. */
const FULL_TEXT_CANDIDATES = 200;
/** Trigram similarity says little about sentence-like queries and costs a scan: short ones only, as a fallback. */
const TRIGRAM_MAX_TERMS = 2;
const TRIGRAM_MIN_SIMILARITY = 0.3;

type Ranked = { id: string; fused: number; components: ScoreComponents };

/** A row as an evidence hit shows it. */
type EvidenceRow = { id: string; sessionId: string; role: string; content: string; createdAt: Date };

/**
 * Rows `ids` as a hit shows them, read back within the caller's `where` (tenant first). The rows the
 * second stage reads for their text are kept, so the final hits seldom need a statement of their own.
 */
async function readRows(
  db: DbOrTx,
  source: TextSource,
  where: SQL,
  ids: readonly string[],
): Promise<Map<string, EvidenceRow>> {
  if (ids.length === 0) return new Map();
  const t = sql.raw(source.table);
  const time = sql.raw(source.time ?? `${source.table}.created_at`);
  const [row] = await queryRows<{ rows: string | null }>(
    db,
    sql`select json_agg(json_build_array(${t}.id, ${t}.content, ${t}.session_id, ${t}.role, ${time}))::text as rows
          from ${t} where ${where} and ${anyOf(sql`${t}.id`, ids)}`,
  );
  const rows = row?.rows ? (JSON.parse(row.rows) as [string, string, string, string, string][]) : [];
  return new Map(
    rows.map(([id, content, sessionId, role, at]) => [id, { id, content, sessionId, role, createdAt: new Date(at) }]),
  );
}

/**
 * The lexical list's best candidates reordered by the second stage (second-stage.ts), over their
 * text; the rest follow in their order, their scores on the same scale (relative to the best).
 */
function secondStage(
  query: EvidenceQuery,
  match: { terms: readonly QueryTerm[]; df: number[]; n: number },
  ranked: readonly Scored[],
  text: ReadonlyMap<string, string>,
  features: RankingFeatures,
  asked: QuestionReading,
  join?: JoinInput,
): Scored[] {
  const head = ranked.slice(0, SECOND_STAGE_CANDIDATES);
  if (head.length < 2) return [...ranked];
  const byId = new Map(head.map((h) => [h.id, h]));
  const reordered = reorderBySecondStage(
    query.queryText,
    match.terms,
    match.df,
    match.n,
    head.map((h) => ({ id: h.id, score: h.score, text: text.get(h.id) ?? "" })),
    {
      ...SECOND_STAGE_WEIGHTS,
      // A question describing its subject ("我那个当记者的朋友多大了？") is answered through the line that
      // describes it, which holds no age: lifting every line holding one lifts other people's.
      ...(features.answerType && !(features.describedNoType && asked.describesSubject && !asked.namesTheOccasion)
        ? {}
        : { answerType: 0 }),
      ...(features.entityJoin ? {} : { join: 0 }),
    },
    join,
    { namedFocus: features.namedFocus, leadInEcho: features.leadInEcho },
  );
  const best = Math.max(...head.map((h) => h.score), Number.MIN_VALUE);
  return [
    ...reordered.map((r) => ({ ...byId.get(r.id)!, score: r.score, secondStage: r.features })),
    ...ranked.slice(SECOND_STAGE_CANDIDATES).map((r) => ({ ...r, score: r.score / best })),
  ];
}

/**
 * The second hop (second-hop.ts): the best hits lend to the rows that share their rare words the
 * question lacks; the list is re-sorted by score, a row found only by the hop joining it.
 */
async function secondHop(
  db: DbOrTx,
  source: TextSource,
  where: SQL,
  query: EvidenceQuery,
  match: { terms: readonly QueryTerm[]; df: readonly number[] },
  ranked: readonly Scored[],
  text: ReadonlyMap<string, string>,
  dialogue: ReadonlySet<string>,
): Promise<Scored[]> {
  const seeds = ranked
    .slice(0, HOP_SEEDS)
    .filter((r) => r.score > 0 && text.has(r.id))
    .map((r) => ({ id: r.id, score: r.score, text: text.get(r.id)!, inDialogue: dialogue.has(r.id) }));
  const loans = await hopLoans(db, {
    source,
    where,
    statsKey: statsKeyOf(query),
    question: match.terms,
    questionDf: match.df,
    seeds,
    features: query.features ?? ALL_RANKING_FEATURES,
  });
  if (loans.length === 0) return [...ranked];
  const byId = new Map(ranked.map((r) => [r.id, { ...r }]));
  for (const loan of loans) {
    const entry = byId.get(loan.id) ?? { id: loan.id, score: 0, own: 0, context: 0 };
    // The answer joins its seed: without the ceiling, a repeat of a chit-chat seed (same words, same
    // score) overtook the right answer (madial-zh-noisy-x2 MRR 0.191 → 0.143; with it 0.198).
    const lifted = liftBelowLender(entry.score, loan.hop, loan.ceiling);
    if (!(lifted > entry.score)) continue;
    entry.hop = lifted - entry.score;
    entry.score = lifted;
    byId.set(loan.id, entry);
  }
  return [...byId.values()].sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
}

/** How the question a query ends with reads; the same for every source, so read once per search. */
type QuestionReading = {
  /** The query ends with a question (what the entity join reads). */
  question: boolean;
  /** The query is one line and ends with a question (what namedTail and namedNoHop read). */
  oneLineQuestion: boolean;
  /** The question describes its subject rather than naming it (described-subject.ts). */
  describesSubject: boolean;
  /** It describes an occasion and asks which event it was: the describing line holds the answer type. */
  namesTheOccasion: boolean;
};

function readQuestion(queryText: string): QuestionReading {
  const { sentence, question } = lastSentence(queryText);
  const describes = describesSubject(sentence);
  return {
    question,
    oneLineQuestion: isOneLine(queryText) && question,
    describesSubject: describes,
    // The kind asked is read only for a describing question (the second stage reads it for its own use).
    namesTheOccasion: describes && asksTheDescribedEvent(sentence, questionAnswerType(queryText)),
  };
}

/** A source's ranked candidates, and the rows read on the way (the second stage's head). */
async function rankSource(
  db: DbOrTx,
  source: TextSource,
  where: SQL,
  query: EvidenceQuery,
  candidates: number,
  asked: QuestionReading,
): Promise<{ ranked: Ranked[]; rows: Map<string, EvidenceRow>; named: string[] }> {
  const match = await fullTextMatch(db, {
    source,
    where,
    terms: query.terms,
    limit: FULL_TEXT_CANDIDATES,
    minimum: query.limit,
    statsKey: statsKeyOf(query),
  });
  const fullText = match.hits;
  const features = query.features ?? ALL_RANKING_FEATURES;
  const {
    scored: spreadHits,
    dialogue,
    referredTo,
  } = await spreadOverSessions(db, {
    source,
    where,
    lenders: features.contextSpread ? fullText : [],
    hits: fullText,
    log: !features.spreadAcrossRoles ? "full" : features.logSpread ? "supplied" : "none",
    match,
    refersBack: features.pronounReference,
    repliesAnswer: features.replyToQuestion,
  });
  const staged = features.secondStage && query.queryText;
  const readCount = Math.max(staged ? SECOND_STAGE_CANDIDATES : 0, features.secondHop ? HOP_SEEDS : 0);
  const rows = await readRows(
    db,
    source,
    where,
    spreadHits.slice(0, readCount).map((h) => h.id),
  );
  const text = new Map([...rows.values()].map((row) => [row.id, row.content]));
  // The join resolves what a question describes: not for a remark (a line of chat, whose best rows share
  // words by chance) or a pasted dialogue (as the second hop).
  const joins =
    staged && features.entityJoin && asked.question && match.terms.filter(isQueryWord).length <= MAX_HOP_QUESTION_WORDS;
  // A dialogue's turns share words by its flow, and its speakers' names by their labels: they tie nothing.
  const join = joins ? { shares: await termShares(db, source.table), unlinked: dialogue } : undefined;
  const restaged = staged
    ? secondStage(query, match, spreadHits, withReferents(text, referredTo), features, asked, join)
    : spreadHits;
  // What a one-line question names (named-tail.ts), read from this source's first-stage statistics.
  const named =
    (features.namedTail || features.namedNoHop) && asked.oneLineQuestion
      ? namedWords(query.queryText, match.terms, match.df, features.namedSubject ? match : undefined)
      : [];
  // A question that names its subject has it already: hopping from its best lines drifts to other
  // people sharing their values and phrasings (docs/retrieval.md, "Second hop").
  const hops = features.secondHop && !(features.namedNoHop && named.length > 0 && !asked.describesSubject);
  const spread = hops ? await secondHop(db, source, where, query, match, restaged, text, dialogue) : restaged;
  const lexical = new Map(spread.map((s) => [s.id, s]));
  const lists: SignalHits[] = [
    { signal: "fullText", weight: EVIDENCE_SIGNAL_WEIGHTS.fullText, hits: spread.slice(0, candidates) },
  ];
  // A scope with no row at all (counted by the full-text match) has nothing for the other signals.
  if (query.vector && query.vector.weight > 0 && !match.scopeEmpty) {
    const hits = await vectorHits(db, {
      source,
      where,
      vector: query.vector.values,
      model: query.vector.model,
      limit: candidates,
      minSimilarity: query.vector.minSimilarity,
    });
    lists.push({ signal: "vector", weight: EVIDENCE_SIGNAL_WEIGHTS.vector * query.vector.weight, hits });
  }
  // Trigrams rescue a short lookup full text missed (a typo, a partial word); they cost a scan.
  if (
    features.trigramFallback &&
    !match.scopeEmpty &&
    fullText.length < query.limit &&
    match.terms.filter(isQueryWord).length <= TRIGRAM_MAX_TERMS
  ) {
    const hits = await trigramHits(db, {
      source,
      where,
      text: query.trigramText,
      limit: candidates,
      minSimilarity: TRIGRAM_MIN_SIMILARITY,
    });
    lists.push({ signal: "trigram", weight: EVIDENCE_SIGNAL_WEIGHTS.trigram, hits });
  }
  const ranked = reciprocalRankFusion(lists).map((f) => {
    const lex = lexical.get(f.id);
    const components: ScoreComponents = {
      ...f.components,
      ...(lex ? { fullText: round(lex.own), context: round(lex.context) } : {}),
      ...(lex?.secondStage
        ? {
            coverage: round(lex.secondStage.coverage),
            proximity: round(lex.secondStage.proximity),
            ...(lex.secondStage.answerType ? { answerType: lex.secondStage.answerType } : {}),
            ...(lex.secondStage.join ? { join: round(lex.secondStage.join) } : {}),
          }
        : {}),
      ...(lex?.hop ? { hop: round(lex.hop) } : {}),
      fused: round(f.fused),
      final: round(f.fused),
    };
    return { id: f.id, fused: f.fused, components };
  });
  // A question naming nothing so few rows hold gives the page's last places to its first rare word's lines.
  const tailed =
    features.namedTail && features.subjectTail && asked.oneLineQuestion && named.length === 0
      ? firstRareWord(query.queryText, match.terms, match.df, match)
      : named;
  return { ranked, rows, named: features.namedTail ? tailed : [] };
}

export async function searchEvidence(db: DbOrTx, query: EvidenceQuery): Promise<EvidenceHit[]> {
  const candidates = Math.max(query.limit * 3, 30);
  const messageWhere = and(
    eq(memoryMessages.tenantId, query.tenantId),
    evidenceScopeCondition(memoryMessages, query.scopes),
    query.before ? lte(memoryMessages.createdAt, query.before) : undefined,
  )!;
  const asked = readQuestion(query.queryText);
  const first = await rankSource(db, MESSAGE_SOURCE, messageWhere, query, candidates, asked);
  // A subject the log speaks of by another name (alias-binding.ts): searched again with that name too.
  const aliased = await withBoundAlias(db, messageWhere, query, asked, first.rows);
  const searched = aliased?.query ?? query;
  const messages = aliased ? await rankSource(db, MESSAGE_SOURCE, messageWhere, searched, candidates, asked) : first;

  // Chunks cut from a message would only repeat it; the ones with no message (imports, other
  // sources) are searched too. A scope without any costs one count that finds nothing, or none
  // while nothing was written to the table since (scopeStats): a chunk imported now is found at once.
  const chunkWhere = and(
    eq(memoryChunks.tenantId, query.tenantId),
    isNull(memoryChunks.messageId),
    evidenceScopeCondition(memoryChunks, query.scopes),
    query.before ? lte(memoryChunks.occurredAt, query.before) : undefined,
  )!;
  const chunkStats = await scopeStats(db, CHUNK_SOURCE, chunkWhere, statsKeyOf(query));
  const chunks =
    chunkStats.n > 0
      ? await rankSource(db, CHUNK_SOURCE, chunkWhere, searched, candidates, asked)
      : { ranked: [], rows: new Map<string, EvidenceRow>(), named: [] };

  const merged = [
    ...messages.ranked.map((r) => ({ ...r, kind: "message" as const })),
    ...chunks.ranked.map((r) => ({ ...r, kind: "chunk" as const })),
  ].sort((a, b) => b.fused - a.fused || (a.id < b.id ? -1 : 1));
  // Only the page's hits not read on the way (found by the hop or by another signal past the head) are
  // read now, before its last places are given (a hit's text says whether it holds the named word).
  const page = merged.slice(0, query.limit);
  const unread = (kind: "message" | "chunk", known: Map<string, EvidenceRow>) =>
    page.filter((r) => r.kind === kind && !known.has(r.id)).map((r) => r.id);
  const [lateMessages, lateChunks] = await Promise.all([
    readRows(db, MESSAGE_SOURCE, messageWhere, unread("message", messages.rows)),
    readRows(db, CHUNK_SOURCE, chunkWhere, unread("chunk", chunks.rows)),
  ]);
  const messageRows = new Map([...messages.rows, ...lateMessages]);
  const chunkRows = new Map([...chunks.rows, ...lateChunks]);
  const top = withNamedPlaces(
    merged,
    query.limit,
    messages.named.length > 0 ? messages.named : chunks.named,
    (r) => (r.kind === "message" ? messageRows : chunkRows).get(r.id)?.content,
  );
  const rows = new Map<string, EvidenceRow>([
    ...[...messageRows].map(([id, row]): [string, EvidenceRow] => [`message:${id}`, row]),
    ...[...chunkRows].map(([id, row]): [string, EvidenceRow] => [`chunk:${id}`, row]),
  ]);
  const hits: EvidenceHit[] = [];
  for (const r of top) {
    const row = rows.get(`${r.kind}:${r.id}`);
    if (row)
      hits.push({
        kind: r.kind,
        id: row.id,
        sessionId: row.sessionId,
        role: row.role,
        content: row.content,
        createdAt: row.createdAt.toISOString(),
        score: round(r.fused),
        components:
          aliased && holdsOnlyAlias(row.content, aliased.bound) ? { ...r.components, alias: 1 } : r.components,
      });
  }
  return hits;
}

/**
 * The query with the alias of the subject its question names (bound-alias.ts), read from the messages
 * the first search read; none when the scope binds none. A one-line question only: a pasted dialogue
 * or a remark names many people.
 */
async function withBoundAlias(
  db: DbOrTx,
  where: SQL,
  query: EvidenceQuery,
  asked: QuestionReading,
  read: ReadonlyMap<string, EvidenceRow>,
): Promise<{ query: EvidenceQuery; bound: BoundAlias } | undefined> {
  const features = query.features ?? ALL_RANKING_FEATURES;
  if (!features.aliasBinding || !asked.oneLineQuestion || read.size === 0) return undefined;
  // The asker's own lines state whom they mean by "my dentist"; another speaker's (an assistant's "我的名字是…") do not.
  const texts = [...read.values()].filter((row) => row.role === "user").map((row) => row.content);
  const bound = await boundAlias(db, { source: MESSAGE_SOURCE, where, queryText: query.queryText, read: texts });
  if (!bound) return undefined;
  const terms = aliasTerms(bound, query.terms, await termShares(db, MESSAGE_SOURCE.table));
  return terms.length > 0 ? { query: { ...query, terms: [...query.terms, ...terms] }, bound } : undefined;
}

/**
 * The texts the second stage reads: a line pointing back by a pronoun at a line before it (context-spread.ts)
 * is read together with that line ("她爱吃寿司。\n我表姐叫刘洋。"), so the words it holds by reference count for
 * its coverage and proximity as they did for its score. Where that line was not read back, it is read alone.
 */
export function withReferents(
  text: ReadonlyMap<string, string>,
  referredTo: ReadonlyMap<string, string>,
): Map<string, string> {
  const read = new Map(text);
  for (const [id, referent] of referredTo) {
    const own = text.get(id);
    const pointedAt = text.get(referent);
    // Its own text first: the second stage reads a text's beginning only, and the line it points at may be long.
    if (own !== undefined && pointedAt !== undefined) read.set(id, `${own}\n${pointedAt}`);
  }
  return read;
}
