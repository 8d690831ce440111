import { GrantsMatrix } from "~/components/admin/grants";
import { scopeChoiceList } from "~/components/scope-choice-list";
import { PageHeader } from "~/components/page-header";
import { ErrorState } from "~/components/ui";
import { getI18n } from "~/i18n/server";
import { scopeLabelsFor } from "~/trpc/scope-labels";
import { attempt, serverApi } from "~/trpc/server";
import { pageTitle } from "~/i18n/metadata";

export const generateMetadata = pageTitle("nav.grants");

export default async function GrantsPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const [{ t }, api, query] = await Promise.all([getI18n(), serverApi(), searchParams]);
  const [grants, members, keys, workspaces, choices] = await Promise.all([
    attempt(() => api.grants.list()),
    attempt(() => api.admin.members.list()),
    attempt(() => api.keys.list()),
    attempt(() => api.admin.workspaces.list()),
    attempt(() => api.memory.scopeChoices()),
  ]);
  // A workspace's "manage access" link names its scope; every workspace has a column anyway.
  const named = typeof query.scope === "string" && query.scope.length <= 220 ? [query.scope] : [];
  const scopes = [...(workspaces.ok ? workspaces.data.map((w) => w.scope) : []), ...named];
  const labels = await scopeLabelsFor([...(grants.ok ? grants.data.map((g) => g.scope) : []), ...scopes]);
  const failed = !grants.ok ? grants : !members.ok ? members : null;
  // Keys and workspaces only add rows and columns: without them the matrix still works, but says so.
  const missing = [keys, workspaces, choices].flatMap((outcome) => (outcome.ok ? [] : [outcome.message]));
  return (
    <>
      <PageHeader title={t("grants.title")} description={t("grants.description")} />
      {!grants.ok || !members.ok ? (
        <ErrorState
          title={failed?.code === "FORBIDDEN" ? t("common.notAllowed") : t("common.error")}
          message={failed?.code === "FORBIDDEN" ? t("common.adminOnly") : (failed?.message ?? "")}
        />
      ) : (
        <>
          {missing.length ? (
            <ErrorState title={t("common.error")} message={t("grants.partial", { what: missing.join(" ") })} />
          ) : null}
          <GrantsMatrix
            grants={grants.data}
            members={members.data.map((m) => ({ userId: m.userId, email: m.email, name: m.name, role: m.role }))}
            keys={
              keys.ok
                ? keys.data
                    .filter((k) => k.status === "active")
                    .map((k) => ({ id: k.id, name: k.name, ownerEmail: k.ownerEmail }))
                : []
            }
            scopes={scopes}
            labels={labels}
            choices={choices.ok ? scopeChoiceList(choices.data) : []}
          />
        </>
      )}
    </>
  );
}
