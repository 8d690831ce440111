import { PlannedSection } from "~/components/page-header";

export const metadata = { title: "Topics" };

export default function Page() {
  return (
    <PlannedSection
      title={"Topics"}
      description={"The memory tree: topics and entities with hotness, and their sealed summaries."}
      bullets={["Hot topics", "Topic summaries (L1) and daily digests (L2)"]}
    />
  );
}
