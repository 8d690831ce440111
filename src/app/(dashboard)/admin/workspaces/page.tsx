import Link from "next/link";
import { EraseMemoryButton } from "~/components/admin/erase-memory";
import { CreateWorkspaceForm } from "~/components/admin/workspaces";
import { LocalTime } from "~/components/local-time";
import { PageHeader } from "~/components/page-header";
import { Badge, cellClass, DataTable, EmptyState, ErrorState } from "~/components/ui";
import { getI18n } from "~/i18n/server";
import { attempt, serverApi } from "~/trpc/server";
import { pageTitle } from "~/i18n/metadata";

export const generateMetadata = pageTitle("nav.workspaces");

export default async function WorkspacesPage() {
  const [{ t, number }, api] = await Promise.all([getI18n(), serverApi()]);
  const list = await attempt(() => api.admin.workspaces.list());
  return (
    <>
      <PageHeader title={t("workspaces.title")} description={t("workspaces.description")} />
      {!list.ok ? (
        <ErrorState
          title={t("common.notAllowed")}
          message={list.code === "FORBIDDEN" ? t("common.adminOnly") : list.message}
        />
      ) : (
        <div className="space-y-6">
          <CreateWorkspaceForm />
          {list.data.length === 0 ? (
            <EmptyState title={t("workspaces.emptyTitle")} description={t("workspaces.emptyHint")} />
          ) : (
            <DataTable
              label={t("workspaces.title")}
              head={[
                t("workspaces.name"),
                t("field.scope"),
                t("workspaces.cards"),
                t("workspaces.access"),
                t("workspaces.createdAt"),
                "",
              ]}
            >
              {list.data.map((w) => (
                <tr key={w.id}>
                  <td className={cellClass}>
                    <span className="font-medium">{w.name}</span>
                    {w.registered ? null : (
                      <span className="ml-2">
                        <Badge tone="amber">{t("workspaces.unregistered")}</Badge>
                      </span>
                    )}
                  </td>
                  <td className={`${cellClass} font-mono text-xs`}>{w.scope}</td>
                  <td className={`${cellClass} tabular-nums`}>
                    <Link
                      href={`/memories?scope=${encodeURIComponent(w.scope)}`}
                      className="text-indigo-700 hover:underline dark:text-indigo-300"
                    >
                      {number(w.activeCards)}
                    </Link>
                  </td>
                  <td className={cellClass}>
                    <span className="flex flex-wrap items-center gap-1">
                      {w.access.length === 0 ? (
                        <span className="text-zinc-500">{t("workspaces.adminsOnly")}</span>
                      ) : null}
                      {w.access.map((a) => (
                        <Badge key={`${a.principalType}:${a.principalId}`} tone={a.canWrite ? "indigo" : "zinc"}>
                          {a.label ?? a.principalId} · {a.canWrite ? t("grants.accessWrite") : t("grants.accessRead")}
                        </Badge>
                      ))}
                      <Link
                        href={`/admin/grants?scope=${encodeURIComponent(w.scope)}`}
                        className="ml-1 text-xs text-indigo-700 hover:underline dark:text-indigo-300"
                      >
                        {t("workspaces.manageAccess")}
                      </Link>
                    </span>
                  </td>
                  <td className={`${cellClass} text-xs text-zinc-500`}>
                    {w.createdAt ? <LocalTime value={w.createdAt} /> : "—"}
                  </td>
                  <td className={`${cellClass} text-right`}>
                    <EraseMemoryButton scope={w.scope} confirm={w.id} conversations={false} />
                  </td>
                </tr>
              ))}
            </DataTable>
          )}
        </div>
      )}
    </>
  );
}
