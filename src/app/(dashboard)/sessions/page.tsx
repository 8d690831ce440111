import Link from "next/link";
import { LocalTime } from "~/components/local-time";
import { PageHeader } from "~/components/page-header";
import { ScopeName } from "~/components/scope-name";
import { cellClass, DataTable, EmptyState, ErrorState, Pager } from "~/components/ui";
import { getI18n } from "~/i18n/server";
import { scopeLabelsFor } from "~/trpc/scope-labels";
import { attempt, serverApi } from "~/trpc/server";
import { pageTitle } from "~/i18n/metadata";

export const generateMetadata = pageTitle("nav.sessions");

export default async function SessionsPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { cursor } = await searchParams;
  const [{ t, number }, api] = await Promise.all([getI18n(), serverApi()]);
  const page = await attempt(() =>
    api.memory.sessions({ cursor: typeof cursor === "string" ? cursor : null, limit: 50 }),
  );
  const labels = await scopeLabelsFor(
    page.ok
      ? page.data.sessions.flatMap((s) => [
          s.userScopeId ? `user:${s.userScopeId}` : null,
          s.workspaceId ? `workspace:${s.workspaceId}` : null,
        ])
      : [],
  );
  return (
    <>
      <PageHeader title={t("sessions.title")} description={t("sessions.description")} />
      {!page.ok ? (
        <ErrorState title={t("sessions.loadError")} message={page.message} />
      ) : page.data.sessions.length === 0 ? (
        <EmptyState title={t("sessions.emptyTitle")} description={t("sessions.emptyHint")} />
      ) : (
        <>
          <DataTable
            label={t("sessions.title")}
            head={[
              t("sessions.session"),
              t("sessions.user"),
              t("sessions.messages"),
              t("sessions.first"),
              t("sessions.last"),
            ]}
          >
            {page.data.sessions.map((s) => (
              <tr key={s.sessionId} className="hover:bg-zinc-50 dark:hover:bg-zinc-800/50">
                <td className={cellClass}>
                  <Link
                    href={`/sessions/${encodeURIComponent(s.sessionId)}`}
                    className="font-mono text-indigo-700 hover:underline dark:text-indigo-300"
                  >
                    {s.sessionId}
                  </Link>
                  {s.workspaceId ? (
                    <span className="mt-1 block text-xs">
                      <ScopeName scope={`workspace:${s.workspaceId}`} label={labels[`workspace:${s.workspaceId}`]} />
                    </span>
                  ) : null}
                </td>
                <td className={`${cellClass} max-w-56`}>
                  {s.userScopeId ? (
                    <ScopeName scope={`user:${s.userScopeId}`} label={labels[`user:${s.userScopeId}`]} />
                  ) : (
                    <span className="text-xs text-zinc-500">{t("sessions.noOwner")}</span>
                  )}
                </td>
                <td className={`${cellClass} tabular-nums`}>{number(s.messageCount)}</td>
                <td className={`${cellClass} text-xs text-zinc-500`}>
                  <LocalTime value={s.firstMessageAt} />
                </td>
                <td className={`${cellClass} text-xs text-zinc-500`}>
                  <LocalTime value={s.lastMessageAt} />
                </td>
              </tr>
            ))}
          </DataTable>
          <Pager
            firstHref={cursor ? "/sessions" : null}
            nextHref={page.data.nextCursor ? `/sessions?cursor=${encodeURIComponent(page.data.nextCursor)}` : null}
            firstLabel={t("common.firstPage")}
            nextLabel={t("common.nextPage")}
            summary={t("common.showing", { n: page.data.sessions.length })}
          />
        </>
      )}
    </>
  );
}
