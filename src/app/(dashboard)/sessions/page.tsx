import { PlannedSection } from "~/components/page-header";

export const metadata = { title: "Sessions" };

export default function Page() {
  return (
    <PlannedSection
      title={"Sessions"}
      description={"Conversations your agents captured as evidence, with their summary chains."}
      bullets={["Sessions per scope with their messages", "The chained summaries", "A “try recall” panel showing the context an agent would receive"]}
    />
  );
}
