import { fact, itemFrom, type Family } from "./common";

// The user telling something about themselves: a first-person subject, or none as people chat
// ("Been discussing collaborations…"), with a verb of having, doing or being.
const SELF_EN =
  /^(?:(?:so|and|but|also|well|yeah|oh|wow|actually|honestly|lately|recently|today|yesterday|last \w+|this \w+)[,!]?\s+)*(?:I|I'm|I've|I'd|I'll|we|we're|we've|my|our|been|just|got|had|have|started|finished)\b/i;
const ABOUT_YOU = /\byou(?:r|'re|'ve|'ll|'d)?\b/gi;
const FEELING_ONLY =
  /^(?:I'm|I am|I was|I feel|I felt|I'm so|I'm really|I'm just)\s+(?:so |really |very |super |just |totally |definitely )*(?:glad|happy|sorry|proud|thankful|grateful|excited|stoked|thrilled|touched|sure|not sure|good|fine|okay|ok|here|in|down|all ears|curious|impressed|amazed)\b/i;
const CONTENT_WORDS = /\b[a-z][a-z'-]{3,}\b/gi;

/**
 * Statements about oneself that no other family names: "My kids and I are into hiking lately",
 * "Been discussing collaborations for a fan project". Only when the sentence carries enough words,
 * is no question, and talks about the user more than about "you".
 */
export const statements: Family = (s) => {
  if (/[\u4e00-\u9fff]/.test(s.text) || /\?\s*$/.test(s.text)) return [];
  if (!SELF_EN.test(s.text) || FEELING_ONLY.test(s.text)) return [];
  const you = s.text.match(ABOUT_YOU)?.length ?? 0;
  const words = s.text.match(CONTENT_WORDS)?.length ?? 0;
  if (you > 1 || (you === 1 && words < 9) || words < 5) return [];
  const item = itemFrom("said", s.text.replace(SELF_EN, ""));
  if (!item) return [];
  const title = s.text.length > 80 ? `${s.text.slice(0, 79)}…` : s.text;
  return [fact(s, "custom_fact", { itemKey: item, title, value: s.text, tags: ["statement"] })];
};
