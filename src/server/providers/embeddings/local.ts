import { englishStem } from "../../text/english-stem";
import { normalizeVector, type EmbeddingProvider } from "./types";

/**
 * `local` embeddings: deterministic, offline, multilingual hashed features (no model download).
 * - CJK runs: character unigrams and bigrams (Chinese words are 1–2 characters more often than not).
 * - Other scripts: stemmed words plus character trigrams of each word (so "cilantro"/"cilantros",
 *   typos and compounds still overlap).
 * Features are counted, damped (1 + ln tf), signed-hashed into `dimensions` buckets and
 * L2-normalized, so cosine similarity is a fuzzy bag-of-words overlap. It knows no synonyms; it is
 * the vector signal that works with no provider configured. Changing the features changes the model
 * name, since stored vectors and query vectors must come from the same function.
 */
export const LOCAL_EMBEDDING_MODEL = "local-hash-v1";

const CJK_RUN = /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\p{sc=Hangul}\u30FC]+/gu;
const WORD = /[\p{L}\p{M}\p{N}]+/gu;
const APOSTROPHES = /['’‘`]/g;
/** Bounds the work per text; a card or turn is far shorter. */
const MAX_CHARS = 8000;

/** Words too common to say what a text is about (they would make every pair of texts look alike). */
const STOP_WORDS = new Set(
  (
    "a an the of to in on at for and or but is are was were be been being am i me my mine you your yours he him his she her hers it its " +
    "we us our they them their this that these those what which who whom whose when where why how do does did doing done have has had " +
    "having will would shall should can could may might must not no nor so than too very just also then there here with from by as " +
    "into about over after before up down out off if because while all any both each few more most other some such only own same " +
    "again further once s t don dont im ive youre its thats yeah oh hey hi"
  ).split(" "),
);

/**
 * 0: measured on LoCoMo and MADial (docs/retrieval.md), these vectors add nothing next to BM25 over
 * stems and CJK n-grams — at any fusion weight they cost recall or time. They are still stored, so
 * a search can use them (bench: --vector-weight) and the queue is exercised without a remote model.
 */
export const LOCAL_SIGNAL_WEIGHT = 0;

const WEIGHTS = { word: 1, trigram: 0.25, cjkUnigram: 0.35, cjkBigram: 1 } as const;

/** 32-bit FNV-1a over UTF-16 code units: stable across platforms and Node versions. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

function add(features: Map<string, number>, feature: string, weight: number) {
  features.set(feature, (features.get(feature) ?? 0) + weight);
}

/** The weighted feature bag of a text (exported for tests and for explaining a similarity). */
export function localFeatures(text: string): Map<string, number> {
  const features = new Map<string, number>();
  const normalized = text.normalize("NFKC").toLowerCase().slice(0, MAX_CHARS).replace(APOSTROPHES, "");
  for (const [run] of normalized.matchAll(CJK_RUN)) {
    const chars = [...run];
    chars.forEach((c, i) => {
      add(features, `u:${c}`, WEIGHTS.cjkUnigram);
      const next = chars[i + 1];
      if (next) add(features, `b:${c}${next}`, WEIGHTS.cjkBigram);
    });
  }
  const rest = normalized.replace(CJK_RUN, " ");
  for (const [word] of rest.matchAll(WORD)) {
    if (STOP_WORDS.has(word)) continue;
    add(features, `w:${englishStem(word)}`, WEIGHTS.word);
    if (word.length >= 4) {
      const padded = `<${word}>`;
      for (let i = 0; i + 3 <= padded.length; i++) add(features, `t:${padded.slice(i, i + 3)}`, WEIGHTS.trigram);
    }
  }
  return features;
}

export function localEmbedding(text: string, dimensions: number): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  for (const [feature, weight] of localFeatures(text)) {
    const hash = fnv1a(feature);
    const sign = hash & 0x80000000 ? -1 : 1;
    // Damped term frequency: a word said five times is not five times the topic.
    const value = weight >= 1 ? 1 + Math.log(weight) : weight;
    vector[hash % dimensions]! += sign * value;
  }
  return normalizeVector(vector);
}

export function createLocalEmbeddingProvider(options: { model?: string; dimensions: number }): EmbeddingProvider {
  const { dimensions } = options;
  return {
    model: options.model ?? LOCAL_EMBEDDING_MODEL,
    dimensions,
    minSimilarity: 0.12,
    signalWeight: LOCAL_SIGNAL_WEIGHT,
    embed: async (texts) => texts.map((text) => localEmbedding(text, dimensions)),
  };
}
