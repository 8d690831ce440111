import { GrantsMatrix } from "~/components/admin/grants";
import { PageHeader } from "~/components/page-header";
import { ErrorState } from "~/components/ui";
import { getI18n } from "~/i18n/server";
import { attempt, serverApi } from "~/trpc/server";

export const metadata = { title: "Scope grants" };

export default async function GrantsPage() {
  const [{ t }, api] = await Promise.all([getI18n(), serverApi()]);
  const [grants, members, keys] = await Promise.all([attempt(() => api.grants.list()), attempt(() => api.admin.members.list()), attempt(() => api.keys.list())]);
  return (
    <>
      <PageHeader title={t("grants.title")} description={t("grants.description")} />
      {!grants.ok || !members.ok ? (
        <ErrorState title={t("common.notAllowed")} message={t("common.adminOnly")} />
      ) : (
        <GrantsMatrix
          grants={grants.data}
          members={members.data.map((m) => ({ userId: m.userId, email: m.email, role: m.role }))}
          keys={keys.ok ? keys.data.filter((k) => k.status === "active").map((k) => ({ id: k.id, name: k.name, ownerEmail: k.ownerEmail })) : []}
        />
      )}
    </>
  );
}
