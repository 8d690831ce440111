import { PlannedSection } from "~/components/page-header";

export const metadata = { title: "Scope grants" };

export default function Page() {
  return (
    <PlannedSection
      title={"Scope grants"}
      description={"Which person may read or write which scope."}
      bullets={["A matrix of scopes × read/write per person"]}
    />
  );
}
