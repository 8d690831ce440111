import { HOTNESS } from "~/server/memory";

export { HOTNESS };

export const bumpHotness = (hotness: number, mentions = 1) =>
  Math.min(HOTNESS.max, hotness + HOTNESS.perMention * mentions);
export const decayHotness = (hotness: number, days = 1) => hotness * HOTNESS.dailyDecay ** days;
export function hotnessStatus(hotness: number): "active" | "warm" | "archived" {
  if (hotness >= HOTNESS.active) return "active";
  if (hotness <= HOTNESS.archive) return "archived";
  return "warm";
}
