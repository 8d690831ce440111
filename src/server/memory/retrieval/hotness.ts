/** Hotness (docs/retrieval.md): cards (recall counts) and memory-tree topics heat and cool by the same rules. */
export const HOTNESS = { perMention: 0.05, dailyDecay: 0.95, active: 0.5, archive: 0.1, max: 1 } as const;
