"use client";

import { createContext, useContext, useEffect, useMemo, useSyncExternalStore } from "react";
import { LOCALE_COOKIE, TIME_ZONE_COOKIE, type Locale } from "./config";
import { createTranslator, formatDateTime, formatNumber, type Translate } from "./translate";

type ClientI18n = {
  locale: Locale;
  timeZone: string;
  t: Translate;
  date: (value: string | Date | null | undefined, style?: "datetime" | "date") => string;
  number: (value: number, options?: Intl.NumberFormatOptions) => string;
};

const I18nContext = createContext<ClientI18n | null>(null);

const ONE_YEAR = 60 * 60 * 24 * 365;
const noSubscription = () => () => {};
const browserTimeZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone;
export const setPreferenceCookie = (name: string, value: string) => {
  document.cookie = `${name}=${encodeURIComponent(value)}; path=/; max-age=${ONE_YEAR}; samesite=lax`;
};

/**
 * Language and time zone for client components. The first render uses what the server used (cookie or
 * UTC), so hydration matches; then the browser's own zone takes over and is stored in a cookie, so
 * server-rendered dates follow the viewer's clock from the next page on.
 */
export function I18nProvider({
  locale,
  timeZone: serverTimeZone,
  children,
}: {
  locale: Locale;
  timeZone: string;
  children: React.ReactNode;
}) {
  // Hydrates with the server's zone, then switches to the browser's.
  const timeZone = useSyncExternalStore(noSubscription, browserTimeZone, () => serverTimeZone) || serverTimeZone;
  useEffect(() => {
    if (timeZone !== serverTimeZone) setPreferenceCookie(TIME_ZONE_COOKIE, timeZone);
  }, [timeZone, serverTimeZone]);
  const value = useMemo<ClientI18n>(
    () => ({
      locale,
      timeZone,
      t: createTranslator(locale),
      date: (v, style) => formatDateTime(v, locale, timeZone, style),
      number: (v, options) => formatNumber(v, locale, options),
    }),
    [locale, timeZone],
  );
  return <I18nContext.Provider value={value}>{children}</I18nContext.Provider>;
}

export function useI18n(): ClientI18n {
  const value = useContext(I18nContext);
  if (!value) throw new Error("useI18n needs an <I18nProvider> above it (the dashboard layout provides one).");
  return value;
}

/** Switches the UI language (cookie) and reloads so server components render in it. */
export function switchLocale(locale: Locale) {
  setPreferenceCookie(LOCALE_COOKIE, locale);
  window.location.reload();
}

/** For shared components that also render outside the dashboard: null when no provider is above. */
export function useOptionalI18n(): ClientI18n | null {
  return useContext(I18nContext);
}
