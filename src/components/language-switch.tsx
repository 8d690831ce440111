"use client";

import { useId } from "react";
import { htmlLang, LOCALES, type Locale } from "~/i18n/config";
import { switchLocale, useI18n } from "~/i18n/client";

const LOCALE_NAMES: Record<Locale, string> = { en: "English", zh: "中文" };

/** The language picker of the dashboard menu and the sign-in pages (a cookie, then a reload). */
export function LanguageSwitch({ className = "" }: { className?: string }) {
  const { t, locale } = useI18n();
  const id = useId();
  // The label names the select by id (not by wrapping it), so its accessible name is exactly "Language".
  return (
    <div className={`flex items-center gap-2 text-xs text-zinc-500 ${className}`}>
      <label htmlFor={id}>{t("nav.language")}</label>
      <select
        id={id}
        value={locale}
        onChange={(event) => switchLocale(event.target.value as Locale)}
        className="rounded-md border border-zinc-300 bg-white px-1.5 py-0.5 text-xs dark:border-zinc-700 dark:bg-zinc-950"
      >
        {LOCALES.map((l) => (
          <option key={l} value={l} lang={htmlLang(l)}>
            {LOCALE_NAMES[l]}
          </option>
        ))}
      </select>
    </div>
  );
}
