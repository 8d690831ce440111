import { PlannedSection } from "~/components/page-header";

export const metadata = { title: "Members" };

export default function Page() {
  return (
    <PlannedSection
      title={"Members"}
      description={"People in this organisation and their roles."}
      bullets={["Add people, change roles, remove"]}
    />
  );
}
