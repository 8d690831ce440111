import { PlannedSection } from "~/components/page-header";

export const metadata = { title: "Stats" };

export default function Page() {
  return (
    <PlannedSection
      title={"Stats"}
      description={"How memory grows and how fast it answers."}
      bullets={["Cards by kind, scope and status over time", "Writes and searches per day", "Search latency percentiles"]}
    />
  );
}
