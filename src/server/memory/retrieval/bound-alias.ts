import { sql, type SQL } from "drizzle-orm";
import { queryRows } from "~/db/raw";
import type { DbOrTx } from "~/db/types";
import { normalizeSearchText } from "~/server/text/segment";
import { aliasCandidates, BINDING_CHARS, bindingsIn, boundName } from "./alias-binding";
import { lastSentence } from "./question-focus";
import { isOwnWord, queryTerms, termTsQuery, type QueryTerm } from "./query-terms";
import { ALL_RANKING_FEATURES } from "./ranking-features";
import { RARE_MAX_SHARE } from "./rare-words";
import { termShare, type TermShares } from "./term-shares";
import type { TextSource } from "./text-sources";

/** Bindings tried per question: one subject is asked about, and each costs a statement. */
const MAX_CANDIDATES = 2;
/**
 * Rows read for a relation's bindings. A relation in more rows than this is a common word (同事, 朋友),
 * bound to many people or read as not bound: its alias would find everyone's lines.
 */
const RELATION_ROWS = 200;

/** The index's terms a relation's rows all hold (a relation is Han only): its character pairs, or its one character. */
function indexTerms(relation: string): QueryTerm[] {
  const chars = [...relation];
  const terms = chars.length === 1 ? chars : chars.slice(1).map((c, i) => chars[i]! + c);
  return [...new Set(terms)].map((term) => ({ term, prefix: false, weight: 1 }));
}

/** The scope's rows holding a relation, normalized (normalizeSearchText); none when more than RELATION_ROWS do. */
async function rowsHolding(
  db: DbOrTx,
  source: TextSource,
  where: SQL,
  relation: string,
): Promise<string[] | undefined> {
  const terms = indexTerms(relation);
  const t = sql.raw(source.table);
  const tsquery = terms.map((term) => termTsQuery(term)).join(" & ");
  const [row] = await queryRows<{ texts: string | null }>(
    db,
    sql`select json_agg(hit.content)::text as texts from (
          select left(${t}.content, ${BINDING_CHARS}) as content from ${t}
           where ${where} and ${sql.raw(source.matchVector)} @@ to_tsquery('simple', ${tsquery})
           limit ${RELATION_ROWS + 1}) as hit`,
  );
  const texts = row?.texts ? (JSON.parse(row.texts) as string[]) : [];
  if (texts.length > RELATION_ROWS) return undefined;
  return texts.map(normalizeSearchText).filter((text) => text.includes(relation));
}

/**
 * The alias a question's subject has in the scope (alias-binding.ts): the name its relation is bound to,
 * or the relation its name is, when the scope binds that relation to that name only. `read`: the texts
 * the first stage read (its best rows), where a binding the question holds one side of is looked for.
 */
export async function boundAlias(
  db: DbOrTx,
  params: { source: TextSource; where: SQL; queryText: string; read: Iterable<string> },
): Promise<BoundAlias | undefined> {
  const question = lastSentence(params.queryText).sentence;
  const bindings = [...params.read].flatMap(bindingsIn);
  for (const candidate of aliasCandidates(question, bindings).slice(0, MAX_CANDIDATES)) {
    const texts = await rowsHolding(db, params.source, params.where, candidate.relation);
    if (texts && boundName(candidate.relation, texts) === candidate.name)
      return { alias: candidate.alias, held: candidate.held === "name" ? candidate.name : candidate.relation };
  }
  return undefined;
}

/** The other side of a binding (`alias`) and the side the question holds (`held`). */
export type BoundAlias = { alias: string; held: string };

/** Whether a hit's text names the subject by its alias only (its `alias` flag). */
export const holdsOnlyAlias = (text: string, bound: BoundAlias) => {
  const normalized = normalizeSearchText(text);
  return normalized.includes(bound.alias) && !normalized.includes(bound.held);
};

/** A side's words as the index holds them: its pairs, or the word itself; a single character only when that is all (周 and 强 are in 下周 and 强壮). */
function wordsOf(text: string): QueryTerm[] {
  const words = queryTerms(text, {
    ...ALL_RANKING_FEATURES,
    cjkUnigrams: false,
    crossLanguage: false,
    kinship: false,
    questionFocus: false,
  }).filter(isOwnWord);
  const longer = words.filter((term) => [...term.term].length > 1);
  return longer.length > 0 ? longer : words;
}

/**
 * An alias's words as terms of the question, standing for the side the question holds as a kin term
 * stands for its group word (not the question's own words). Together they weigh one word, as the side they
 * stand for is one: a name's two pairs (孙丹, 丹月) at full weight outweighed the relation and the attribute
 * asked together, and every line naming the person outranked the answer. A row holding the side asked
 * gets nothing for them (bm25.ts): "郑一鸣是我表哥" is no better an answer to "郑一鸣多少岁？" for naming both.
 * Words the query holds already, and words common in the table (a relation such as 家乡 bound to 今天),
 * are left out.
 */
export function aliasTerms(bound: BoundAlias, query: readonly QueryTerm[], shares: TermShares): QueryTerm[] {
  const asked = new Set(query.map((term) => term.term));
  const words = wordsOf(bound.alias).filter(
    (term) => !asked.has(term.term) && termShare(shares, term) <= RARE_MAX_SHARE,
  );
  const standsFor = wordsOf(bound.held)
    .map((term) => term.term)
    .filter((term) => asked.has(term));
  return words.map((term) => ({ ...term, weight: 1 / words.length, standsFor }));
}
