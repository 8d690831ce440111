import { fact, itemFrom, type Family } from "./common";

const PLACE = "([A-Z][a-zA-Z]+(?:[ -][A-Z][a-zA-Z]+){0,2})";
const LIVE_EN = new RegExp(
  `\\b(?:I|[Ww]e) (?:live|'ve lived|have lived|am living|'m living|grew up|settled|just moved|moved|'ve moved|have moved|relocated)(?: back)? (?:in|to) ${PLACE}`,
);
const FROM_EN = new RegExp(`\\b(?:I'm|I am|I come|[Ww]e're|[Ww]e are) (?:originally )?from ${PLACE}`);
const VISIT_EN = new RegExp(
  `\\b(?:I|[Ww]e) (?:went|traveled|travelled|flew|drove|go|'m going|am going|are going|'re going|visited|will visit|'ll visit|'m visiting|am visiting|took a trip) (?:back )?(?:to )?${PLACE}`,
);
const NOT_PLACES = new Set([
  "I",
  "The",
  "A",
  "My",
  "It",
  "This",
  "That",
  "School",
  "Church",
  "Work",
  "Home",
  "Bed",
  "Dinner",
  "Lunch",
  "Breakfast",
  "Mom",
  "Dad",
  "Yesterday",
  "Today",
  "Tomorrow",
  "Last",
  "Next",
]);
const CITY_ZH = "([\\u4e00-\\u9fff]{2,4}?)";
const LIVE_ZH = new RegExp(
  `我(?:们)?(?:住在|定居在|生活在|搬到了?|搬去了?|住的(?:地方|城市)?(?:是|在)?)${CITY_ZH}(?=[，。！,.!\\s]|$|了|去|住|市|的)`,
);
const FROM_ZH = new RegExp(`我(?:是|来自)${CITY_ZH}(?:人)(?=[，。！,.!\\s]|$)|我来自${CITY_ZH}(?=[，。！,.!\\s]|$)`);
const TRIP_ZH = new RegExp(`(?:去|到)${CITY_ZH}(?:旅行|旅游|玩|出差|度假)|${CITY_ZH}的(?:旅行|旅游|行程)`);

/** Places: where the user lives or moved, where they are from, where they travel. */
export const places: Family = (s) => {
  const ops = [];
  const zh = /[\u4e00-\u9fff]/.test(s.text);
  const live = s.text.match(zh ? LIVE_ZH : LIVE_EN);
  if (live && !NOT_PLACES.has(live[1]!)) {
    const city = live[1]!;
    ops.push(
      fact(s, "home_location", {
        title: zh ? `住在${city}` : `Lives in ${city}`,
        value: { city },
        entities: [city],
        tags: ["place"],
      }),
    );
  }
  const from = s.text.match(zh ? FROM_ZH : FROM_EN);
  const origin = from ? (from[1] ?? from[2]) : undefined;
  if (origin && !NOT_PLACES.has(origin))
    ops.push(
      fact(s, "custom_fact", {
        itemKey: "hometown",
        title: zh ? `来自${origin}` : `From ${origin}`,
        value: origin,
        entities: [origin],
        tags: ["place"],
      }),
    );
  const trip = s.text.match(zh ? TRIP_ZH : VISIT_EN);
  // "在做北京的旅行计划": the lazy match starts at the verb; the city is what follows it.
  const where = trip ? (trip[1] ?? trip[2])?.replace(/^(?:我们|我|正在|在做|在|做|去|到|的)+/, "") : undefined;
  if (where && where.length >= 2 && !NOT_PLACES.has(where) && where !== live?.[1]) {
    const item = itemFrom("trip", where);
    if (item)
      ops.push(
        fact(s, "custom_fact", {
          itemKey: item,
          title: zh ? `旅行目的地：${where}` : `Trip: ${where}`,
          value: where,
          entities: [where],
          tags: ["place", "travel"],
        }),
      );
  }
  return ops;
};
