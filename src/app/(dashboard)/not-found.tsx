import { EmptyState, LinkButton } from "~/components/ui";
import { getI18n } from "~/i18n/server";

export default async function NotFound() {
  const { t } = await getI18n();
  return (
    <EmptyState
      title={t("common.notFound")}
      description={t("common.notFoundHint")}
      action={<LinkButton href="/">{t("nav.overview")}</LinkButton>}
    />
  );
}
