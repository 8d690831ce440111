import { fact, itemFrom, phrase, type Family } from "./common";

// "I love hiking", "I really enjoy painting landscapes", "I'm into jazz", "my favorite book is Dune".
const LIKE_EN =
  /\b(?:I|we) (?:really |absolutely |just |also |truly |still )?(love|like|enjoy|adore|prefer|am into|'m into|am passionate about|'m passionate about|am a big fan of|'m a big fan of)\s+(?!to be\b|it\b|that\b|this\b|you\b|the idea\b|how\b|what\b|when\b)(.{3,80})/i;
const FAVORITE_EN = /\bmy (?:all-time |absolute )?fav(?:ou?rite)? ([a-z]+(?: [a-z]+)?) (?:is|are|was) (.{2,60})/i;
const DISLIKE_EN =
  /\b(?:I|we) (?:really |absolutely |just |also )?(hate|dislike|can't stand|cannot stand|don't like|do not like|don't enjoy|am not a fan of|'m not a fan of|no longer like|don't like .* anymore)\s+(.{3,60})/i;
const LIKE_ZH =
  /我(?:们)?(?:很|特别|最|非常|超|一直|也|还是)?(喜欢|爱|热爱|偏爱|偏好|迷上了)(?!你)([\u4e00-\u9fffA-Za-z0-9]{1,15})/;
const DISLIKE_ZH =
  /我(?:们)?(?:很|特别|最|非常|也)?(不喜欢|讨厌|受不了|不爱|反感|不再喜欢)([\u4e00-\u9fffA-Za-z0-9]{1,15})/;
const NO_LONGER = /\bno longer\b|\banymore\b|\bany more\b|不再/i;

/**
 * Preferences and avoidances beyond food (the cooking rules own those): what the user likes, loves,
 * prefers, and what they dislike. A later "no longer like …" / "不再喜欢…" replaces the like card.
 */
export const preferences: Family = (s) => {
  if (s.food) return [];
  const ops = [];
  const zh = /[\u4e00-\u9fff]/.test(s.text);
  const favorite = zh ? null : s.text.match(FAVORITE_EN);
  const like = zh ? s.text.match(LIKE_ZH) : s.text.match(LIKE_EN);
  const dislike = zh ? s.text.match(DISLIKE_ZH) : s.text.match(DISLIKE_EN);
  if (dislike) {
    const what = phrase(dislike[2]!.replace(/\s+(?:anymore|any more)\b.*$/i, ""), 60);
    const item = itemFrom("dislikes", what);
    const liked = itemFrom("likes", what);
    if (item && what) {
      const op = fact(s, "custom_fact", {
        itemKey: item,
        title: zh ? `不喜欢${what}` : `Dislikes ${what}`,
        value: what,
        tags: ["preference"],
      });
      // "不再喜欢…" / "no longer like …": the like card of the same thing is replaced, not kept beside.
      ops.push(liked && NO_LONGER.test(s.text) ? { ...op, target: { kind: "custom_fact", itemKey: liked } } : op);
    }
  } else if (favorite) {
    const category = favorite[1]!.toLowerCase();
    const what = phrase(favorite[2]!, 60);
    const item = itemFrom("favorite", category);
    if (item && what)
      ops.push(
        fact(s, "custom_fact", {
          itemKey: item,
          title: `Favorite ${category}: ${what}`,
          value: what,
          tags: ["preference"],
        }),
      );
  } else if (like) {
    const what = phrase(like[2]!, 60);
    const item = itemFrom("likes", what);
    if (item && what.length > 1)
      ops.push(
        fact(s, "custom_fact", {
          itemKey: item,
          title: zh ? `喜欢${what}` : `Likes ${what}`,
          value: what,
          tags: ["preference"],
        }),
      );
  }
  return ops;
};
