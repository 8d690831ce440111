import { PageHeader } from "~/components/page-header";
import { CardTable, SearchResults } from "~/components/memories/card-table";
import { FilterPanel } from "~/components/memories/filter-panel";
import { SearchBox } from "~/components/memories/search-box";
import { EmptyState, ErrorState, LinkButton, Pager } from "~/components/ui";
import { CARD_TYPES } from "~/db/schema";
import { getI18n } from "~/i18n/server";
import { cardFilterFromSearchParams, cardFilterToSearchParams, type CardFilter } from "~/server/dashboard/card-filter";
import type { CardFacets } from "~/server/dashboard/cards";
import { scopeLabelsFor } from "~/trpc/scope-labels";
import { attempt, serverApi } from "~/trpc/server";
import { pageTitle } from "~/i18n/metadata";

export const generateMetadata = pageTitle("nav.memories");

type SearchParams = Record<string, string | string[] | undefined>;

const NO_FACETS: CardFacets = { statuses: [], kinds: [], domains: [], scopes: [] };

const onlyActive = (filter: CardFilter) =>
  !filter.statuses?.length || (filter.statuses.length === 1 && filter.statuses[0] === "active");
const hasFilters = (filter: CardFilter) => Object.keys(filter).length > 0;

export default async function MemoriesPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const params = await searchParams;
  const filter = cardFilterFromSearchParams(params);
  const cursor = typeof params.cursor === "string" ? params.cursor : null;
  const { t, number } = await getI18n();
  const api = await serverApi();
  // A question over active memory runs the agents' hybrid search; over history it is a text filter.
  const searching = Boolean(filter.text) && onlyActive(filter);

  const [facets, tree, result] = await Promise.all([
    attempt(() => api.memory.facets()),
    attempt(() => api.memory.categoryTree({ statuses: filter.statuses })),
    searching
      ? attempt(() => api.memory.search({ queryText: filter.text!, filter }))
      : attempt(() => api.memory.browse({ filter, cursor })),
  ]);

  // One lookup names every scope on the page: the rows' and the filter menu's.
  const labels = await scopeLabelsFor([
    ...(facets.ok ? facets.data.scopes.map((s) => s.scope) : []),
    ...(result.ok
      ? "hits" in result.data
        ? result.data.hits.map((h) => h.scope)
        : result.data.cards.map((c) => c.scope)
      : []),
  ]);

  let body: React.ReactNode;
  if (!result.ok) {
    body = (
      <ErrorState
        title={t("memories.loadError")}
        message={result.message}
        action={<LinkButton href="/memories">{t("common.reset")}</LinkButton>}
      />
    );
  } else if ("hits" in result.data) {
    const { hits, omitted } = result.data;
    body = (
      <>
        <h2 className="mb-1 text-lg font-semibold">{t("memories.resultsFor", { q: filter.text! })}</h2>
        <p className="mb-4 text-sm text-zinc-500 dark:text-zinc-400">
          {t("memories.searchNote")}
          {omitted.length ? ` ${t("memories.omitted", { n: omitted.length })}` : ""}
        </p>
        {hits.length ? (
          <SearchResults hits={hits} labels={labels} />
        ) : (
          <EmptyState title={t("memories.emptyTitle")} description={t("memories.noResults", { q: filter.text! })} />
        )}
      </>
    );
  } else {
    const { cards, nextCursor } = result.data;
    const first = cursor ? `/memories?${cardFilterToSearchParams(filter).toString()}` : null;
    const next = nextCursor ? `/memories?${cardFilterToSearchParams(filter, { cursor: nextCursor }).toString()}` : null;
    body = cards.length ? (
      <>
        <CardTable cards={cards} labels={labels} />
        <Pager
          firstHref={first}
          nextHref={next}
          firstLabel={t("common.firstPage")}
          nextLabel={t("common.nextPage")}
          summary={t("common.showing", { n: number(cards.length) })}
        />
      </>
    ) : (
      <EmptyState
        title={t("memories.emptyTitle")}
        description={hasFilters(filter) ? t("memories.emptyFiltered") : t("memories.emptyAll")}
        action={
          hasFilters(filter) ? (
            <LinkButton href="/memories">{t("common.reset")}</LinkButton>
          ) : (
            <LinkButton href="/memories/new" variant="primary">
              {t("memories.new")}
            </LinkButton>
          )
        }
      />
    );
  }

  return (
    <>
      <PageHeader
        title={t("memories.title")}
        description={t("memories.description")}
        actions={
          <div className="flex gap-2">
            <LinkButton href="/memories/transfer">{t("memories.transfer")}</LinkButton>
            <LinkButton href="/memories/new" variant="primary">
              {t("memories.new")}
            </LinkButton>
          </div>
        }
      />
      <SearchBox initial={filter.text ?? ""} />
      <div className="grid gap-6 lg:grid-cols-[16rem_minmax(0,1fr)]">
        {/* The filter menus' counts are a help, not the page: without them the cards still show. */}
        <div className="min-w-0 space-y-3">
          {facets.ok && tree.ok ? null : (
            <ErrorState
              title={t("memories.filtersError")}
              message={[facets, tree].flatMap((o) => (o.ok ? [] : [o.message])).join(" ")}
            />
          )}
          <FilterPanel
            key={JSON.stringify(filter)}
            filter={filter}
            facets={facets.ok ? facets.data : NO_FACETS}
            tree={tree.ok ? tree.data : []}
            types={CARD_TYPES}
            scopeLabels={labels}
          />
        </div>
        <div className="min-w-0">{body}</div>
      </div>
    </>
  );
}
