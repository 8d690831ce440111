import type { ExtractedOperation } from "../extract-rules";
import { amountOperations, birthdays } from "./amounts";
import { sentencesOf, type Family } from "./common";
import { resolveCorrection } from "./corrections";
import { decisions } from "./decisions";
import { experiences } from "./experiences";
import { identity } from "./identity";
import { places } from "./places";
import { plans } from "./plans";
import { preferences } from "./preferences";
import { relationships } from "./relationships";
import { statements } from "./statements";
import { work } from "./work";

/** The families, in the order their cards are proposed. */
export const FAMILIES: readonly Family[] = [
  identity,
  relationships,
  work,
  places,
  plans,
  decisions,
  preferences,
  birthdays,
  experiences,
];

/** At most this many cards from one message: a long message must not flood memory. */
export const MAX_CARDS_PER_MESSAGE = 6;

/**
 * What the rule families find in a user's message, sentence by sentence (corrections resolved
 * first), de-duplicated by slot (kind + item), at most MAX_CARDS_PER_MESSAGE.
 */
export function familyOperations(text: string, flags: { explicit: boolean; food: boolean }): ExtractedOperation[] {
  const ops: ExtractedOperation[] = [];
  let corrected = false;
  for (const raw of sentencesOf(text)) {
    const { text: sentence, correction } = resolveCorrection(raw);
    corrected ||= correction;
    const said = { text: sentence, explicit: flags.explicit, food: flags.food, correction };
    const found = FAMILIES.flatMap((family) => family(said));
    // What no family names may still be the user telling something about themselves.
    ops.push(...(found.length ? found : statements(said)));
  }
  const resolved = resolveCorrection(text);
  ops.push(...amountOperations(resolved.text, flags.explicit, corrected || resolved.correction));
  const seen = new Set<string>();
  return ops
    .filter((op) => {
      const slot = `${op.kind}:${op.itemKey ?? ""}`;
      return seen.has(slot) ? false : (seen.add(slot), true);
    })
    .slice(0, MAX_CARDS_PER_MESSAGE);
}
