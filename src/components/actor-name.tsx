import { actorTypeLabel } from "~/i18n/labels";
import type { Translate } from "~/i18n/translate";
import type { ActorLabel } from "~/server/dashboard/actors";
import { NameWithId } from "./scope-name";

/**
 * Who did it: a person's or a key's name with what it is, the id on hover and copy. The system is
 * named once: its name is its type, and "system system" read as a typo.
 */
export function ActorName({
  actor,
  t,
}: {
  actor: Pick<ActorLabel, "type" | "label"> & { id?: string | null };
  t: Translate;
}) {
  if (actor.type === "system") return <span className="font-medium">{t("actor.system")}</span>;
  return <NameWithId name={actor.label} detail={actorTypeLabel(t, actor.type)} id={actor.id ?? null} />;
}
