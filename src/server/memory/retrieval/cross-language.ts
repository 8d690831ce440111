import { englishStem } from "~/server/text/english-stem";
import { isCommonCjkCharacter, isQueryStopWord } from "~/server/text/segment";
import { bilingualDictionary } from "./bilingual-dictionary";
import type { QueryTerm } from "./query-terms";

/**
 * A bridge between Chinese and English, so that "我女儿喜欢什么" finds the card "Daughter Mia likes
 * dinosaurs" and "what does my son like to do" finds "儿子小米喜欢踢足球": users of one memory mix both
 * languages, and full text matches words, not meanings. The words come from CC-CEDICT
 * (bilingual-dictionary.ts): the query's Chinese words, found by forward maximum matching over its Han
 * runs, bring the English words of their first glosses; its English words bring the Chinese headwords
 * that translate them. Each added term is marked `translated`, and a search keeps it only where the
 * caller's scope holds it (translation-presence.ts): a monolingual memory pays one probe, not a flag
 * per row and word. General meaning across languages needs a multilingual embedding model
 * (`EMBEDDING_PROVIDER=openai`).
 */

/** A translated word means what the typed one does: it counts as much. */
const TRANSLATED_WEIGHT = 1;
/**
 * Translated terms per query. A pasted dialogue of 250 terms brings ~150; past the cap, its last words
 * (where the question is) are kept. At 32, MADial's cross-language hit@10 fell from 0.81 to 0.70.
 */
const MAX_TRANSLATED = 128;

const HAN_RUN = /\p{sc=Han}+/gu;
const LATIN_TERM = /^[a-z]+$/;

/** Stemming is the bridge's dearest step, and a dictionary's glosses repeat. */
const englishTermCache = new Map<string, readonly QueryTerm[]>();

/**
 * The terms an English word is queried by (query-terms.ts: 4+ letters → stem prefix). A shorter word
 * is matched whole, so its plural comes too: 狗 must find "two dogs".
 */
function englishTerms(word: string): readonly QueryTerm[] {
  let terms = englishTermCache.get(word);
  if (!terms) {
    const stem = englishStem(word);
    terms =
      stem.length >= 4
        ? [{ term: stem, prefix: true, weight: TRANSLATED_WEIGHT }]
        : [word, `${word}s`].map((term) => ({ term, prefix: false, weight: TRANSLATED_WEIGHT }));
    if (englishTermCache.size > 50_000) englishTermCache.clear();
    englishTermCache.set(word, terms);
  }
  return terms;
}

/** A Chinese headword (one or two characters) as the index holds it; a character weighs as the query's own characters do. */
const chineseTerm = (word: string): QueryTerm =>
  word.length === 1
    ? { term: word, prefix: false, weight: TRANSLATED_WEIGHT * 0.5, idfScaled: true }
    : { term: word, prefix: false, weight: TRANSLATED_WEIGHT };

const segmenter = new Intl.Segmenter("zh", { granularity: "word" });

/**
 * The query's Chinese words: ICU's words (its lexicon splits 不吃香菜 as 不吃 / 香菜, where greedy
 * matching takes 吃香 "popular"), and inside a word CC-CEDICT does not have, the longest headword at
 * each position.
 */
function* chineseWords(normalizedText: string): Generator<string> {
  const dictionary = bilingualDictionary();
  for (const [run] of normalizedText.matchAll(HAN_RUN)) {
    for (const { segment } of segmenter.segment(run)) {
      if (dictionary.english(segment) !== undefined) {
        yield segment;
        continue;
      }
      const cs = [...segment];
      for (let i = 0; i < cs.length;) {
        let length = Math.min(dictionary.maxWordLength, cs.length - i);
        while (length > 1 && dictionary.english(cs.slice(i, i + length).join("")) === undefined) length--;
        yield cs.slice(i, i + length).join("");
        i += length;
      }
    }
  }
}

/** The other language's words for the query's text and terms, none of which the query already has. */
export function crossLanguageTerms(normalizedText: string, terms: readonly QueryTerm[]): QueryTerm[] {
  const dictionary = bilingualDictionary();
  const have = new Set(terms.map((t) => t.term));
  const added = new Map<string, QueryTerm>();
  const add = (term: QueryTerm) => {
    if (!have.has(term.term) && !added.has(term.term)) added.set(term.term, { ...term, translated: true });
  };
  for (const word of chineseWords(normalizedText)) {
    // Function words and question words match chit-chat in any language; so do their glosses.
    if (isQueryStopWord(word) || (word.length === 1 && isCommonCjkCharacter(word))) continue;
    for (const english of dictionary.english(word) ?? []) for (const term of englishTerms(english)) add(term);
  }
  for (const term of terms) {
    if (!LATIN_TERM.test(term.term)) continue;
    for (const word of dictionary.chinese(term.term)) add(chineseTerm(word));
  }
  const all = [...added.values()];
  return all.length > MAX_TRANSLATED ? all.slice(all.length - MAX_TRANSLATED) : all;
}
