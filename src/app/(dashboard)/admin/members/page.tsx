import { AddMemberForm, MembersTable } from "~/components/admin/members";
import { PageHeader } from "~/components/page-header";
import { ErrorState } from "~/components/ui";
import { getI18n } from "~/i18n/server";
import { attempt, serverApi } from "~/trpc/server";
import { pageTitle } from "~/i18n/metadata";

export const generateMetadata = pageTitle("nav.members");

export default async function MembersPage() {
  const [{ t }, api] = await Promise.all([getI18n(), serverApi()]);
  const [members, me] = await Promise.all([attempt(() => api.admin.members.list()), api.me.get()]);
  return (
    <>
      <PageHeader title={t("members.title")} description={t("members.description")} />
      {!members.ok ? (
        <ErrorState
          title={t("common.notAllowed")}
          message={members.code === "FORBIDDEN" ? t("common.adminOnly") : members.message}
        />
      ) : (
        <div className="space-y-6">
          <AddMemberForm />
          <MembersTable members={members.data} selfId={me.user.id} />
        </div>
      )}
    </>
  );
}
