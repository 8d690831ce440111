import "server-only";
import { cookies, headers } from "next/headers";
import { cache } from "react";
import { DEFAULT_TIME_ZONE, isTimeZone, LOCALE_COOKIE, pickLocale, TIME_ZONE_COOKIE, type Locale } from "./config";
import { createTranslator, formatDateTime, formatNumber, type Translate } from "./translate";

export type ServerI18n = {
  locale: Locale;
  timeZone: string;
  t: Translate;
  date: (value: string | Date | null | undefined, style?: "datetime" | "date") => string;
  number: (value: number, options?: Intl.NumberFormatOptions) => string;
};

/** The request's language (cookie, else Accept-Language) and time zone (cookie, else UTC); once per request. */
export const getI18n = cache(async (): Promise<ServerI18n> => {
  const [jar, head] = await Promise.all([cookies(), headers()]);
  const locale = pickLocale(jar.get(LOCALE_COOKIE)?.value, head.get("accept-language"));
  const zone = jar.get(TIME_ZONE_COOKIE)?.value;
  const timeZone = isTimeZone(zone) ? zone : DEFAULT_TIME_ZONE;
  return {
    locale,
    timeZone,
    t: createTranslator(locale),
    date: (value, style) => formatDateTime(value, locale, timeZone, style),
    number: (value, options) => formatNumber(value, locale, options),
  };
});
