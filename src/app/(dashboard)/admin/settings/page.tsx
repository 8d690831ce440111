import { CustomKinds, PolicyForm } from "~/components/admin/settings";
import { PageHeader } from "~/components/page-header";
import { ErrorState } from "~/components/ui";
import { organisationLabel } from "~/i18n/labels";
import { getI18n } from "~/i18n/server";
import { attempt, serverApi } from "~/trpc/server";
import { pageTitle } from "~/i18n/metadata";

export const generateMetadata = pageTitle("nav.settings");

export default async function SettingsPage() {
  const [{ t }, api] = await Promise.all([getI18n(), serverApi()]);
  const [org, kinds] = await Promise.all([api.organization.get(), attempt(() => api.admin.kinds.list())]);
  return (
    <>
      <PageHeader
        title={t("settings.title")}
        description={t("settings.description", { name: organisationLabel(t, org.name) })}
      />
      {!kinds.ok ? (
        <ErrorState
          title={t("common.notAllowed")}
          message={kinds.code === "FORBIDDEN" ? t("common.adminOnly") : kinds.message}
        />
      ) : (
        <div className="grid gap-6 xl:grid-cols-2">
          <PolicyForm initial={{ writePolicy: org.writePolicy, sensitivePolicy: org.sensitivePolicy }} />
          <CustomKinds kinds={kinds.data} />
        </div>
      )}
    </>
  );
}
