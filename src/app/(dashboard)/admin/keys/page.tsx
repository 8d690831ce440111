import { CreateKeyForm, KeysTable } from "~/components/admin/keys";
import { PageHeader } from "~/components/page-header";
import { ErrorState } from "~/components/ui";
import { getI18n } from "~/i18n/server";
import { attempt, serverApi } from "~/trpc/server";
import { pageTitle } from "~/i18n/metadata";

export const generateMetadata = pageTitle("nav.keys");

/** Members see and manage their own keys; admins every key, and may create keys owned by another member. */
export default async function KeysPage() {
  const [{ t }, api] = await Promise.all([getI18n(), serverApi()]);
  const [keys, me, tenant] = await Promise.all([attempt(() => api.keys.list()), api.me.get(), api.me.tenant()]);
  const members = tenant.role === "admin" ? await attempt(() => api.admin.members.list()) : null;
  return (
    <>
      <PageHeader
        title={t("keys.title")}
        description={tenant.role === "admin" ? t("keys.descriptionAdmin") : t("keys.descriptionMember")}
      />
      {!keys.ok ? (
        <ErrorState title={t("common.error")} message={keys.message} />
      ) : (
        <div className="space-y-6">
          <CreateKeyForm
            selfId={me.user.id}
            members={members?.ok ? members.data.map((m) => ({ userId: m.userId, email: m.email })) : null}
          />
          <KeysTable keys={keys.data} />
        </div>
      )}
    </>
  );
}
