import { PlannedSection } from "~/components/page-header";

export const metadata = { title: "Memories" };

export default function Page() {
  return (
    <PlannedSection
      title={"Memories"}
      description={"Browse, filter and search the memory cards your agents keep, in any scope you may read."}
      bullets={["Filters by scope, kind, category tree, status, tags", "Hybrid search (Chinese and English)", "Card pages with revision chain, provenance and audit timeline"]}
    />
  );
}
