"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { useI18n } from "~/i18n/client";
import { categoryLabel, cardTypeLabel } from "~/i18n/labels";
import type { CardFilter } from "~/server/dashboard/card-filter";
import { cardFilterToSearchParams } from "~/server/dashboard/card-filter-url";
import type { CardFacets, CategoryTreeNode, DomainTree } from "~/server/dashboard/cards";
import type { ScopeLabels } from "~/trpc/scope-labels";
import { scopeOptionText } from "../scope-picker";
import { buttonClass, FieldRow, inputClass } from "../ui";

const STATUSES = ["active", "superseded", "expired", "deleted"] as const;

const splitList = (text: string) =>
  text
    .split(/[,，]/)
    .map((s) => s.trim())
    .filter(Boolean);
const fraction = (text: string) => {
  if (text.trim() === "") return undefined;
  const n = Number(text);
  return Number.isFinite(n) ? Math.max(0, Math.min(1, n)) : undefined;
};

/** How many filters (the search text aside) narrow the list: shown on the collapsed panel's button. */
const filtersSet = (filter: CardFilter) =>
  Object.entries(filter).filter(
    ([name, value]) =>
      name !== "text" &&
      value !== undefined &&
      !(name === "statuses" && Array.isArray(value) && value.length === 1 && value[0] === "active"),
  ).length;

/**
 * Every browser filter, held in the URL: applying pushes a new history entry. Below the lg
 * breakpoint the panel starts collapsed behind a button, so the first memory is on the first screen.
 */
export function FilterPanel({
  filter,
  facets,
  tree,
  types,
  scopeLabels = {},
}: {
  filter: CardFilter;
  facets: CardFacets;
  tree: DomainTree[];
  types: readonly string[];
  scopeLabels?: ScopeLabels;
}) {
  const { t, number } = useI18n();
  const router = useRouter();
  const [open, setOpen] = useState(false);
  const set = filtersSet(filter);
  const [draft, setDraft] = useState({
    statuses: filter.statuses?.length ? filter.statuses : ["active"],
    scope: filter.scopes?.[0] ?? "",
    kind: filter.kinds?.[0] ?? "",
    domain: filter.domain ?? "",
    type: filter.types?.[0] ?? "",
    tags: (filter.tags ?? []).join(", "),
    entities: (filter.entities ?? []).join(", "),
    minConfidence: filter.minConfidence?.toString() ?? "",
    maxConfidence: filter.maxConfidence?.toString() ?? "",
    minImportance: filter.minImportance?.toString() ?? "",
    maxImportance: filter.maxImportance?.toString() ?? "",
  });
  const statusCount = (s: string) => facets.statuses.find((f) => f.status === s)?.count ?? 0;

  const apply = (event: React.FormEvent) => {
    event.preventDefault();
    const next: CardFilter = {
      text: filter.text,
      category: filter.category,
      statuses:
        draft.statuses.length === 1 && draft.statuses[0] === "active"
          ? undefined
          : (draft.statuses as CardFilter["statuses"]),
      scopes: draft.scope ? [draft.scope] : undefined,
      kinds: draft.kind ? [draft.kind] : undefined,
      domain: draft.domain || undefined,
      types: draft.type ? ([draft.type] as CardFilter["types"]) : undefined,
      tags: splitList(draft.tags).length ? splitList(draft.tags) : undefined,
      entities: splitList(draft.entities).length ? splitList(draft.entities) : undefined,
      minConfidence: fraction(draft.minConfidence),
      maxConfidence: fraction(draft.maxConfidence),
      minImportance: fraction(draft.minImportance),
      maxImportance: fraction(draft.maxImportance),
    };
    router.push(`/memories?${cardFilterToSearchParams(next).toString()}`);
  };

  const select = (
    name: keyof typeof draft,
    label: string,
    options: { value: string; label: string }[],
    anyLabel: string,
  ) => (
    <FieldRow muted label={label} className="text-sm">
      <select
        value={draft[name] as string}
        onChange={(e) => setDraft({ ...draft, [name]: e.target.value })}
        className={inputClass}
      >
        <option value="">{anyLabel}</option>
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    </FieldRow>
  );
  const range = (label: string, min: keyof typeof draft, max: keyof typeof draft) => (
    <FieldRow group muted label={label} className="text-sm">
      <div className="flex items-center gap-2">
        {[min, max].map((name, i) => (
          <input
            key={name}
            type="number"
            min={0}
            max={1}
            step={0.05}
            aria-label={`${label} ${i === 0 ? t("common.min") : t("common.max")}`}
            placeholder={i === 0 ? "0" : "1"}
            value={draft[name] as string}
            onChange={(e) => setDraft({ ...draft, [name]: e.target.value })}
            className={inputClass}
          />
        ))}
      </div>
    </FieldRow>
  );

  return (
    <aside aria-label={t("memories.filters")} className="space-y-3 lg:space-y-6">
      <button
        type="button"
        aria-expanded={open}
        aria-controls="memory-filters"
        onClick={() => setOpen(!open)}
        className={`${buttonClass("secondary")} w-full justify-between lg:hidden`}
      >
        <span>
          {open ? t("memories.hideFilters") : t("memories.showFilters")}
          {set ? (
            <span className="ml-2 text-xs text-indigo-600 dark:text-indigo-300">
              {t("memories.filtersSet", { n: set })}
            </span>
          ) : null}
        </span>
        <span aria-hidden>{open ? "▴" : "▾"}</span>
      </button>
      <div id="memory-filters" className={`space-y-6 ${open ? "" : "hidden"} lg:block`}>
        <form
          onSubmit={apply}
          className="space-y-4 rounded-2xl border border-zinc-200 bg-white p-4 shadow-sm dark:border-zinc-800 dark:bg-zinc-900"
        >
          <h2 className="font-semibold">{t("memories.filters")}</h2>
          <FieldRow group muted label={t("field.status")} className="text-sm">
            <div className="space-y-1">
              {STATUSES.map((s) => (
                <label key={s} className="flex items-center justify-between gap-2">
                  <span className="flex items-center gap-2">
                    <input
                      type="checkbox"
                      checked={draft.statuses.includes(s)}
                      onChange={(e) =>
                        setDraft({
                          ...draft,
                          statuses: e.target.checked ? [...draft.statuses, s] : draft.statuses.filter((x) => x !== s),
                        })
                      }
                    />
                    {t(`status.${s}`)}
                  </span>
                  <span className="tabular-nums text-xs text-zinc-500">{number(statusCount(s))}</span>
                </label>
              ))}
            </div>
          </FieldRow>
          {select(
            "scope",
            t("field.scope"),
            facets.scopes.map((s) => ({
              value: s.scope,
              label: `${scopeLabels[s.scope] ? scopeOptionText(scopeLabels[s.scope]!, t) : s.scope} (${s.count})`,
            })),
            t("memories.allScopes"),
          )}
          {select(
            "kind",
            t("field.kind"),
            facets.kinds.map((k) => ({ value: k.kind, label: `${k.kind} (${k.count})` })),
            t("memories.anyKind"),
          )}
          {select(
            "domain",
            t("field.domain"),
            facets.domains.map((d) => ({ value: d.domain, label: `${categoryLabel(t, d.domain)} (${d.count})` })),
            t("memories.anyDomain"),
          )}
          {select(
            "type",
            t("field.type"),
            types.map((ty) => ({ value: ty, label: cardTypeLabel(t, ty) })),
            t("memories.anyType"),
          )}
          {(["tags", "entities"] as const).map((name) => (
            <FieldRow key={name} muted label={t(name === "tags" ? "field.tags" : "field.entities")} className="text-sm">
              <input
                value={draft[name]}
                onChange={(e) => setDraft({ ...draft, [name]: e.target.value })}
                placeholder={t("memories.tagsHint")}
                className={inputClass}
              />
            </FieldRow>
          ))}
          {range(t("field.confidence"), "minConfidence", "maxConfidence")}
          {range(t("field.importance"), "minImportance", "maxImportance")}
          <div className="flex gap-2">
            <button type="submit" className={buttonClass("primary")}>
              {t("common.apply")}
            </button>
            <Link href="/memories" className={buttonClass("ghost")}>
              {t("common.reset")}
            </Link>
          </div>
        </form>
        <CategoryTree tree={tree} filter={filter} />
      </div>
    </aside>
  );
}

function CategoryTree({ tree, filter }: { tree: DomainTree[]; filter: CardFilter }) {
  const { t, number } = useI18n();
  const href = (patch: Partial<CardFilter>) =>
    `/memories?${cardFilterToSearchParams({ ...filter, ...patch }).toString()}`;
  const branch = (nodes: CategoryTreeNode[], domain: string) => (
    <ul className="ml-3 space-y-0.5 border-l border-zinc-200 pl-2 dark:border-zinc-800">
      {nodes.map((node) => (
        <li key={node.path}>
          <Link
            href={href({ domain, category: node.path })}
            aria-current={filter.category === node.path ? "true" : undefined}
            className="flex justify-between gap-2 rounded px-1 hover:bg-zinc-100 aria-[current=true]:font-semibold aria-[current=true]:text-indigo-700 dark:hover:bg-zinc-800"
          >
            <span className="truncate">{categoryLabel(t, node.name)}</span>
            <span className="tabular-nums text-xs text-zinc-500">{number(node.count)}</span>
          </Link>
          {node.children.length ? branch(node.children, domain) : null}
        </li>
      ))}
    </ul>
  );
  return (
    <nav
      aria-label={t("memories.categoryTree")}
      className="rounded-2xl border border-zinc-200 bg-white p-4 text-sm shadow-sm dark:border-zinc-800 dark:bg-zinc-900"
    >
      <h2 className="mb-2 font-semibold">{t("memories.categoryTree")}</h2>
      {tree.length === 0 ? (
        <p className="text-zinc-500">{t("common.none")}</p>
      ) : (
        <ul className="space-y-1">
          <li>
            <Link href={href({ domain: undefined, category: undefined })} className="text-indigo-600 hover:underline">
              {t("memories.allCategories")}
            </Link>
          </li>
          {tree.map((d) => (
            <li key={d.domain}>
              <Link
                href={href({ domain: d.domain, category: undefined })}
                aria-current={filter.domain === d.domain && !filter.category ? "true" : undefined}
                className="flex justify-between gap-2 rounded px-1 font-medium hover:bg-zinc-100 aria-[current=true]:text-indigo-700 dark:hover:bg-zinc-800"
              >
                <span className="truncate">{categoryLabel(t, d.domain)}</span>
                <span className="tabular-nums text-xs text-zinc-500">{number(d.count)}</span>
              </Link>
              {d.categories.length ? branch(d.categories, d.domain) : null}
            </li>
          ))}
        </ul>
      )}
    </nav>
  );
}
