import { PlannedSection } from "~/components/page-header";

export const metadata = { title: "API keys" };

export default function Page() {
  return (
    <PlannedSection
      title={"API keys"}
      description={"Keys agents use to call the tool endpoint."}
      bullets={["Create a key (the secret is shown once)", "Last use, expiry, revoke"]}
    />
  );
}
