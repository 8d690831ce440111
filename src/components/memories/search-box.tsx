"use client";

import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useState } from "react";
import { useI18n } from "~/i18n/client";
import { buttonClass, inputClass } from "../ui";

/**
 * The memory search box: puts `q` in the URL (dropping the page cursor), so a search is shareable and
 * the back button returns to the previous results.
 */
export function SearchBox({ initial }: { initial: string }) {
  const { t } = useI18n();
  const router = useRouter();
  const pathname = usePathname();
  const params = useSearchParams();
  const [q, setQ] = useState(initial);
  const go = (text: string) => {
    const next = new URLSearchParams(params.toString());
    next.delete("cursor");
    if (text.trim()) next.set("q", text.trim());
    else next.delete("q");
    router.push(`${pathname}?${next.toString()}`);
  };
  return (
    <form
      role="search"
      className="mb-6 flex gap-2"
      onSubmit={(event) => {
        event.preventDefault();
        go(q);
      }}
    >
      <label className="sr-only" htmlFor="memory-search">
        {t("memories.searchLabel")}
      </label>
      <input
        id="memory-search"
        type="search"
        value={q}
        onChange={(e) => setQ(e.target.value)}
        placeholder={t("memories.searchPlaceholder")}
        className={inputClass}
      />
      <button type="submit" className={buttonClass("primary")}>
        {t("memories.searchButton")}
      </button>
      {initial ? (
        <button
          type="button"
          className={buttonClass("ghost")}
          onClick={() => {
            setQ("");
            go("");
          }}
        >
          {t("memories.clearSearch")}
        </button>
      ) : null}
    </form>
  );
}
