/** 003's HotnessEngine numbers. */
export const HOTNESS = { perMention: 0.05, dailyDecay: 0.95, active: 0.5, archive: 0.1, max: 1 } as const;

export const bumpHotness = (hotness: number, mentions = 1) => Math.min(HOTNESS.max, hotness + HOTNESS.perMention * mentions);
export const decayHotness = (hotness: number, days = 1) => hotness * HOTNESS.dailyDecay ** days;
export function hotnessStatus(hotness: number): "active" | "warm" | "archived" {
  if (hotness >= HOTNESS.active) return "active";
  if (hotness <= HOTNESS.archive) return "archived";
  return "warm";
}
