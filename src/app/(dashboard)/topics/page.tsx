import { LocalTime } from "~/components/local-time";
import { CategoryList } from "~/components/memories/category-list";
import { PageHeader } from "~/components/page-header";
import { Badge, cellClass, DataTable, EmptyState, ErrorState, Meter, Panel } from "~/components/ui";
import { getI18n } from "~/i18n/server";
import { attempt, serverApi } from "~/trpc/server";
import { pageTitle } from "~/i18n/metadata";

export const generateMetadata = pageTitle("nav.topics");

export default async function TopicsPage() {
  const [{ t, number }, api] = await Promise.all([getI18n(), serverApi()]);
  // Each half shows its own error: the categories do not need the topics, nor the other way round.
  const [tree, topics] = await Promise.all([
    attempt(() => api.memory.categoryTree({})),
    attempt(() => api.memory.topics({ limit: 200 })),
  ]);
  return (
    <>
      <PageHeader title={t("topics.title")} description={t("topics.description")} />
      <div className="grid gap-6 xl:grid-cols-[minmax(0,1fr)_minmax(0,2fr)]">
        <Panel title={t("topics.categories")} description={t("topics.categoriesHint")}>
          {!tree.ok ? (
            <ErrorState title={t("common.error")} message={tree.message} />
          ) : tree.data.length === 0 ? (
            <p className="text-sm text-zinc-500">{t("topics.noCategories")}</p>
          ) : (
            <CategoryList tree={tree.data} label={t("topics.categories")} t={t} />
          )}
        </Panel>
        <div>
          <h2 className="mb-3 font-semibold">{t("topics.topics")}</h2>
          {!topics.ok ? (
            <ErrorState title={t("common.error")} message={topics.message} />
          ) : !topics.data.visible ? (
            <EmptyState title={t("common.notAllowed")} description={t("topics.needsSessions")} />
          ) : topics.data.topics.length === 0 ? (
            <EmptyState title={t("topics.emptyTitle")} description={t("topics.emptyHint")} />
          ) : (
            <DataTable
              label={t("topics.topics")}
              head={[
                t("topics.name"),
                t("topics.hotness"),
                t("topics.mentions"),
                t("topics.lastMentioned"),
                t("topics.summary"),
              ]}
            >
              {topics.data.topics.map((topic) => (
                <tr key={topic.id}>
                  <td className={cellClass}>
                    <span className="font-medium">{topic.name}</span>
                    <span className="ml-2">
                      <Badge>{topic.topicType}</Badge>{" "}
                      {topic.status !== "active" ? <Badge tone="amber">{topic.status}</Badge> : null}
                    </span>
                  </td>
                  <td className={cellClass}>
                    <Meter value={topic.hotness} label={t("topics.hotness")} />
                  </td>
                  <td className={`${cellClass} tabular-nums`}>{number(topic.mentionCount)}</td>
                  <td className={`${cellClass} text-xs text-zinc-500`}>
                    <LocalTime value={topic.lastMentionedAt} />
                  </td>
                  <td className={`${cellClass} max-w-md text-zinc-600 dark:text-zinc-400`}>{topic.summary ?? "—"}</td>
                </tr>
              ))}
            </DataTable>
          )}
        </div>
      </div>
    </>
  );
}
