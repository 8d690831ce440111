import { CreateCardForm } from "~/components/memories/create-card-form";
import { PageHeader } from "~/components/page-header";
import { getI18n } from "~/i18n/server";
import { serverApi } from "~/trpc/server";
import { pageTitle } from "~/i18n/metadata";

export const generateMetadata = pageTitle("create.title");

export default async function NewMemoryPage() {
  const api = await serverApi();
  const [kinds, scopes, choices, { t }] = await Promise.all([
    api.memory.kinds(),
    api.memory.scopes(),
    api.memory.scopeChoices(),
    getI18n(),
  ]);
  return (
    <>
      <PageHeader title={t("create.title")} description={t("create.description")} />
      <CreateCardForm kinds={kinds} ownScope={scopes.ownScope} choices={choices} />
    </>
  );
}
