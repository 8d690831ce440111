import MiniSearch from "minisearch";

/**
 * The lexical baseline run side by side: MiniSearch (BM25+ scoring) over exactly the texts the
 * service ingested. Words come from Intl.Segmenter (for English the same as splitting on spaces and
 * punctuation; for Chinese the dictionary words a default tokenizer would miss), lower-cased.
 */
const segmenter = new Intl.Segmenter("zh", { granularity: "word" });

export const baselineTokenize = (text: string): string[] =>
  [...segmenter.segment(text.normalize("NFKC").toLowerCase())].filter((s) => s.isWordLike).map((s) => s.segment);

export function buildBaseline(docs: readonly { id: string; text: string }[]) {
  const index = new MiniSearch<{ id: string; text: string }>({
    fields: ["text"],
    idField: "id",
    tokenize: baselineTokenize,
  });
  index.addAll(docs);
  return {
    search(query: string, k: number): string[] {
      return index
        .search(query, { combineWith: "OR" })
        .slice(0, k)
        .map((r) => String(r.id));
    },
  };
}
