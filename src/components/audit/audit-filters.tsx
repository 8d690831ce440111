"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { useI18n } from "~/i18n/client";
import { actorTypeLabel, eventLabel } from "~/i18n/labels";
import { buttonClass, FieldRow, inputClass } from "../ui";

export type AuditFilterValues = {
  events: string[];
  actorType: string;
  actorId: string;
  node: string;
  scope: string;
  from: string;
  to: string;
};

/** The audit log's filters, written to the URL (the export links reuse the same query). */
export function AuditFilters({
  initial,
  eventTypes,
  actorTypes,
}: {
  initial: AuditFilterValues;
  eventTypes: readonly string[];
  actorTypes: readonly string[];
}) {
  const { t } = useI18n();
  const router = useRouter();
  const [v, setV] = useState(initial);
  const field = (
    name: Exclude<keyof AuditFilterValues, "events">,
    label: string,
    type = "text",
    placeholder?: string,
  ) => (
    <FieldRow label={label} className="text-sm">
      <input
        type={type}
        value={v[name]}
        placeholder={placeholder}
        onChange={(e) => setV({ ...v, [name]: e.target.value })}
        className={inputClass}
      />
    </FieldRow>
  );
  return (
    <form
      aria-label={t("audit.filters")}
      onSubmit={(e) => {
        e.preventDefault();
        const q = new URLSearchParams();
        for (const ev of v.events) q.append("event", ev);
        for (const name of ["actorType", "actorId", "node", "scope", "from", "to"] as const)
          if (v[name].trim()) q.set(name, v[name].trim());
        router.push(`/audit?${q.toString()}`);
      }}
      className="mb-6 space-y-4 rounded-2xl border border-zinc-200 bg-white p-4 shadow-sm dark:border-zinc-800 dark:bg-zinc-900"
    >
      <FieldRow group label={t("audit.eventTypes")} className="text-sm">
        <div className="flex flex-wrap gap-x-4 gap-y-1">
          {eventTypes.map((ev) => (
            <label key={ev} className="flex items-center gap-1.5">
              <input
                type="checkbox"
                checked={v.events.includes(ev)}
                onChange={(e) =>
                  setV({ ...v, events: e.target.checked ? [...v.events, ev] : v.events.filter((x) => x !== ev) })
                }
              />
              {eventLabel(t, ev)}
            </label>
          ))}
        </div>
      </FieldRow>
      <div className="grid gap-3 sm:grid-cols-3 lg:grid-cols-6">
        <FieldRow label={t("audit.actorType")} className="text-sm">
          <select
            value={v.actorType}
            onChange={(e) => setV({ ...v, actorType: e.target.value })}
            className={inputClass}
          >
            <option value="">{t("common.any")}</option>
            {actorTypes.map((type) => (
              <option key={type} value={type}>
                {actorTypeLabel(t, type)}
              </option>
            ))}
          </select>
        </FieldRow>
        {field("actorId", t("audit.actorId"))}
        {field("node", t("audit.card"), "text", "mem_…")}
        {field("scope", t("field.scope"), "text", "user:…")}
        {field("from", t("audit.from"), "date")}
        {field("to", t("audit.to"), "date")}
      </div>
      <div className="flex gap-2">
        <button type="submit" className={buttonClass("primary")}>
          {t("common.apply")}
        </button>
        <Link href="/audit" className={buttonClass("ghost")}>
          {t("common.reset")}
        </Link>
      </div>
    </form>
  );
}
