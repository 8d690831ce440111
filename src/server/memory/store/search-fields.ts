import { segmentForSearch } from "~/server/text/segment";

function flattenValue(value: unknown, out: string[] = []): string[] {
  if (value === null || value === undefined) return out;
  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") out.push(String(value));
  else if (Array.isArray(value)) value.forEach((v) => flattenValue(v, out));
  else if (typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      out.push(k);
      flattenValue(v, out);
    }
  }
  return out;
}

/**
 * The segmented text columns behind a card's weighted tsvector (title A, key/entities B,
 * tags/value C, content D). Segmenting here is what makes Chinese searchable with `simple`.
 */
export function buildCardSearchFields(card: {
  title: string;
  content: string;
  key: string;
  itemKey: string | null;
  entities: readonly string[];
  tags: readonly string[];
  valueJson: unknown;
  categoryPath: readonly string[];
}) {
  return {
    searchTitle: segmentForSearch(card.title),
    searchKeys: segmentForSearch([card.key.replace(/[._:]/g, " "), card.itemKey ?? "", ...card.entities].join(" ")),
    searchValues: segmentForSearch([...card.tags, ...flattenValue(card.valueJson), ...card.categoryPath].join(" ")),
    searchBody: segmentForSearch(card.content),
  };
}
