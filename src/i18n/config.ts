/** Locales the dashboard speaks, and how a request picks one (cookie first, then Accept-Language). */
export const LOCALES = ["en", "zh"] as const;
export type Locale = (typeof LOCALES)[number];
export const DEFAULT_LOCALE: Locale = "en";

/** Set by the language switcher; wins over the browser's Accept-Language. */
export const LOCALE_COOKIE = "memory-locale";
/** The viewer's IANA time zone, written by the browser on first load so server-rendered dates match. */
export const TIME_ZONE_COOKIE = "memory-tz";
export const DEFAULT_TIME_ZONE = "UTC";

export const isLocale = (value: unknown): value is Locale =>
  typeof value === "string" && (LOCALES as readonly string[]).includes(value);

/** `zh-CN,zh;q=0.9,en;q=0.8` → the supported locale with the highest weight. */
export function localeFromAcceptLanguage(header: string | null | undefined): Locale | undefined {
  if (!header) return undefined;
  const ranked = header
    .split(",")
    .map((part, index) => {
      const [tag = "", ...params] = part.trim().split(";");
      const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
      return { base: tag.toLowerCase().split("-")[0] ?? "", q: q ? Number(q.slice(2)) || 0 : 1, index };
    })
    .filter((entry) => entry.base && entry.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index);
  return ranked.map((entry) => entry.base).find(isLocale);
}

export function pickLocale(cookie: string | undefined, acceptLanguage: string | null | undefined): Locale {
  if (isLocale(cookie)) return cookie;
  return localeFromAcceptLanguage(acceptLanguage) ?? DEFAULT_LOCALE;
}

export function isTimeZone(value: unknown): value is string {
  if (typeof value !== "string" || value.length === 0 || value.length > 64) return false;
  try {
    new Intl.DateTimeFormat("en", { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

/** BCP 47 tag for Intl formatting. */
export const intlLocale = (locale: Locale) => (locale === "zh" ? "zh-CN" : "en-GB");

/** The `lang` attribute of a page in this locale. */
export const htmlLang = (locale: Locale) => (locale === "zh" ? "zh-CN" : "en");
