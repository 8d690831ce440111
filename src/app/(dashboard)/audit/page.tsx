import { PlannedSection } from "~/components/page-header";

export const metadata = { title: "Audit log" };

export default function Page() {
  return (
    <PlannedSection
      title={"Audit log"}
      description={"Every change to memory, grants and keys, with who did it and why."}
      bullets={["Filter by actor, event and scope", "Export"]}
    />
  );
}
