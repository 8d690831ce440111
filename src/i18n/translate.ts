import { intlLocale, type Locale } from "./config";
import { en, type MessageKey } from "./messages/en";
import { zh } from "./messages/zh";

export type { MessageKey } from "./messages/en";
export type TranslationValues = Record<string, string | number>;
export type Translate = (key: MessageKey, values?: TranslationValues) => string;

const DICTIONARIES: Record<Locale, Record<MessageKey, string>> = { en, zh };

/** `t("memories.count", { n: 3 })`: the locale's sentence with `{n}` filled in; English when a key is missing. */
export function createTranslator(locale: Locale): Translate {
  const dictionary = DICTIONARIES[locale];
  return (key, values) => {
    const template = dictionary[key] ?? en[key] ?? key;
    if (!values) return template;
    return template.replace(/\{(\w+)\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole));
  };
}

/** Dates as the viewer reads them: their language, their time zone. */
export function formatDateTime(
  value: string | Date | null | undefined,
  locale: Locale,
  timeZone: string,
  style: "datetime" | "date" = "datetime",
): string {
  if (!value) return "—";
  const date = typeof value === "string" ? new Date(value) : value;
  if (Number.isNaN(date.getTime())) return "—";
  const options: Intl.DateTimeFormatOptions =
    style === "date" ? { dateStyle: "medium", timeZone } : { dateStyle: "medium", timeStyle: "short", timeZone };
  return new Intl.DateTimeFormat(intlLocale(locale), options).format(date);
}

export function formatNumber(value: number, locale: Locale, options?: Intl.NumberFormatOptions): string {
  return new Intl.NumberFormat(intlLocale(locale), options).format(value);
}
