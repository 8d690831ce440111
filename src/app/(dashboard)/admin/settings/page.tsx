import { PlannedSection } from "~/components/page-header";

export const metadata = { title: "Settings" };

export default function Page() {
  return (
    <PlannedSection
      title={"Settings"}
      description={"Organisation-wide memory policy."}
      bullets={["Write policy (explicit-only)", "Sensitive-data policy", "Custom kinds"]}
    />
  );
}
