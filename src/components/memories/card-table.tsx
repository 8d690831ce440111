import Link from "next/link";
import { categoryPathLabel, matchLabel } from "~/i18n/labels";
import { getI18n } from "~/i18n/server";
import type { CardListItem } from "~/server/dashboard/cards";
import type { SearchHit } from "~/server/memory";
import type { ScopeLabels } from "~/trpc/scope-labels";
import { LocalTime } from "../local-time";
import { ScopeName } from "../scope-name";
import { Badge, DataTable, Meter, STATUS_TONE, stackedCellClass as cellClass, stackedRowClass } from "../ui";

/** A scope as people read it (a person's name, a workspace's name), the id on hover and behind a copy button. */
function ScopeCell({ scope, labels }: { scope: string; labels: ScopeLabels }) {
  return (
    <td className={`${cellClass} text-sm md:max-w-56 md:min-w-32`}>
      <ScopeName scope={scope} label={labels[scope]} />
    </td>
  );
}

/** The memory browser's table (server-rendered); a list of cards on phones. */
export async function CardTable({ cards, labels }: { cards: CardListItem[]; labels: ScopeLabels }) {
  const { t } = await getI18n();
  return (
    <DataTable
      cardsOnPhone
      label={t("memories.table")}
      head={[t("field.title"), t("field.kind"), t("field.scope"), `${t("field.status")} / ${t("field.updatedAt")}`]}
    >
      {cards.map((card) => (
        <tr key={card.id} className={`${stackedRowClass} hover:bg-zinc-50 dark:hover:bg-zinc-800/50`}>
          <td className={`${cellClass} md:max-w-md md:min-w-48`}>
            <Link
              href={`/memories/${card.id}`}
              className="font-medium text-indigo-700 hover:underline dark:text-indigo-300"
            >
              {card.title}
            </Link>
            <p className="mt-0.5 line-clamp-2 text-xs text-zinc-500 dark:text-zinc-400">{card.excerpt}</p>
            {card.tags.length ? (
              <p className="mt-1 flex flex-wrap gap-1">
                {card.tags.map((tag) => (
                  <Badge key={tag}>#{tag}</Badge>
                ))}
              </p>
            ) : null}
          </td>
          <td className={cellClass}>
            <span className="font-mono text-xs">{card.kind}</span>
            <p className="text-xs text-zinc-500">{categoryPathLabel(t, card.categoryPath || card.domain)}</p>
          </td>
          <ScopeCell scope={card.scope} labels={labels} />
          <td className={`${cellClass} md:whitespace-nowrap`}>
            <Badge tone={STATUS_TONE[card.status]}>{t(`status.${card.status as "active"}`)}</Badge>
            <span className="ml-1 text-xs text-zinc-500">r{card.revision}</span>
            <span className="mt-1 block text-xs text-zinc-500">
              <LocalTime value={card.updatedAt} />
            </span>
            {/* In this column, not one of their own: at laptop widths a fifth column scrolled out of view. */}
            <dl className="mt-1 grid grid-cols-[auto_auto] items-center gap-x-2 text-[11px] text-zinc-500">
              <dt>{t("field.confidence")}</dt>
              <dd>
                <Meter value={card.confidence} label={t("field.confidence")} />
              </dd>
              <dt>{t("field.importance")}</dt>
              <dd>
                <Meter value={card.importance} label={t("field.importance")} />
              </dd>
            </dl>
          </td>
        </tr>
      ))}
    </DataTable>
  );
}

/**
 * Ranked hybrid-search answers with the signals that found them. No score column: the fused score is
 * rank-based (the top hit of any search scores 1 before boosts), so every top hit showed the same
 * number (1.667) and the numbers below it differed by about 1/60 per place; the rank says the same
 * honestly, and a card's "why recalled" shows its score components.
 */
export async function SearchResults({ hits, labels }: { hits: SearchHit[]; labels: ScopeLabels }) {
  const { t } = await getI18n();
  return (
    <DataTable
      cardsOnPhone
      label={t("memories.table")}
      head={[t("memories.rank"), t("field.title"), t("field.kind"), t("field.scope"), t("memories.matchedBy")]}
    >
      {hits.map((hit, i) => (
        <tr key={hit.id} className={`${stackedRowClass} hover:bg-zinc-50 dark:hover:bg-zinc-800/50`}>
          <td className={`${cellClass} tabular-nums text-zinc-500`}>{i + 1}</td>
          <td className={`${cellClass} md:max-w-md`}>
            <Link
              href={`/memories/${hit.id}`}
              className="font-medium text-indigo-700 hover:underline dark:text-indigo-300"
            >
              {hit.title}
            </Link>
            <p className="mt-0.5 line-clamp-2 text-xs text-zinc-500 dark:text-zinc-400">{hit.content}</p>
          </td>
          <td className={`${cellClass} font-mono text-xs`}>{hit.kind}</td>
          <ScopeCell scope={hit.scope} labels={labels} />
          <td className={cellClass}>
            <span className="flex flex-wrap gap-1">
              {hit.matchedBy.map((m) => (
                <Badge key={m} tone="indigo">
                  {matchLabel(t, m)}
                </Badge>
              ))}
            </span>
          </td>
        </tr>
      ))}
    </DataTable>
  );
}
