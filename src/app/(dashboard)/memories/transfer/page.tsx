import { ExportForm, ImportForm } from "~/components/memories/transfer";
import { PageHeader } from "~/components/page-header";
import { getI18n } from "~/i18n/server";
import { scopeLabelsFor } from "~/trpc/scope-labels";
import { serverApi } from "~/trpc/server";
import { pageTitle } from "~/i18n/metadata";

export const generateMetadata = pageTitle("transfer.title");

export default async function TransferPage() {
  const [{ t }, api] = await Promise.all([getI18n(), serverApi()]);
  const [scopes, facets] = await Promise.all([api.memory.scopes(), api.memory.facets()]);
  // Scopes that hold cards, plus the concrete scopes the person may read.
  const choices = [
    ...new Set([...facets.scopes.map((s) => s.scope), ...scopes.read.filter((s) => !s.endsWith(":*"))]),
  ].sort();
  const labels = await scopeLabelsFor(choices);
  return (
    <>
      <PageHeader title={t("transfer.title")} description={t("transfer.description")} />
      <div className="grid gap-6 lg:grid-cols-2">
        <ExportForm scopes={choices} labels={labels} />
        <ImportForm />
      </div>
    </>
  );
}
