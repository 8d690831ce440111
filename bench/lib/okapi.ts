/**
 * The plain keyword index every memory service should beat: Okapi BM25 (k1 1.2, b 0.75, counted term
 * frequency) over Latin/other words and CJK character bigrams (a CJK run of one character is kept as
 * that character). NFKC and lower case; nothing else — no stemming, stop words, fields or boosts.
 */
const CJK_CLASS = "\\p{sc=Han}\\p{sc=Hiragana}\\p{sc=Katakana}\\p{sc=Hangul}\\u30FC";
/** A CJK run, or a run of other letters, marks and digits (a CJK character ends it: "iphone15手机" → iphone15, 手机). */
const TOKEN = new RegExp(`[${CJK_CLASS}]+|(?:(?![${CJK_CLASS}])[\\p{L}\\p{M}\\p{N}])+`, "gu");
const CJK = new RegExp(`[${CJK_CLASS}]`, "u");

export function okapiTokenize(text: string): string[] {
  const out: string[] = [];
  for (const [run] of text.normalize("NFKC").toLowerCase().matchAll(TOKEN)) {
    if (!CJK.test(run)) {
      out.push(run);
      continue;
    }
    const chars = [...run];
    if (chars.length === 1) out.push(run);
    for (let i = 0; i + 1 < chars.length; i++) out.push(chars[i]! + chars[i + 1]!);
  }
  return out;
}

export function buildOkapiBaseline(docs: readonly { id: string; text: string }[], k1 = 1.2, b = 0.75) {
  const postings = new Map<string, Map<number, number>>();
  const lengths: number[] = [];
  docs.forEach((doc, i) => {
    const tokens = okapiTokenize(doc.text);
    lengths.push(tokens.length);
    for (const token of tokens) {
      const list = postings.get(token) ?? new Map<number, number>();
      list.set(i, (list.get(i) ?? 0) + 1);
      postings.set(token, list);
    }
  });
  const n = docs.length;
  const avglen = lengths.reduce((a, x) => a + x, 0) / Math.max(n, 1) || 1;
  const score = (query: string) => {
    const scores = new Map<number, number>();
    for (const term of new Set(okapiTokenize(query))) {
      const list = postings.get(term);
      if (!list) continue;
      const idf = Math.log(1 + (n - list.size + 0.5) / (list.size + 0.5));
      for (const [doc, tf] of list) {
        const norm = k1 * (1 - b + (b * lengths[doc]!) / avglen);
        scores.set(doc, (scores.get(doc) ?? 0) + (idf * tf * (k1 + 1)) / (tf + norm));
      }
    }
    return scores;
  };
  return {
    /** Each matching document's score, by id. */
    scores: (query: string) => new Map([...score(query)].map(([doc, s]) => [docs[doc]!.id, s])),
    search(query: string, k: number): string[] {
      return [...score(query)]
        .sort((x, y) => y[1] - x[1] || x[0] - y[0])
        .slice(0, k)
        .map(([doc]) => docs[doc]!.id);
    },
  };
}
