import { Skeleton } from "~/components/ui";
import { getI18n } from "~/i18n/server";

export default async function Loading() {
  const { t } = await getI18n();
  return <Skeleton rows={8} label={t("common.loading")} />;
}
