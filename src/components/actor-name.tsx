import type { Translate } from "~/i18n/translate";
import type { ActorLabel } from "~/server/dashboard/actors";

/**
 * Who did it: a person's or a key's name with what it is. The system is named once: its name is
 * its type, and "system system" read as a typo.
 */
export function ActorName({ actor, t }: { actor: Pick<ActorLabel, "type" | "label">; t: Translate }) {
  if (actor.type === "system") return <span className="font-medium">{t("actor.system")}</span>;
  return (
    <span>
      <span className="font-medium">{actor.label}</span>
      <span className="ml-1 text-xs text-zinc-500">{t(actor.type === "api_key" ? "actor.apiKey" : "actor.person")}</span>
    </span>
  );
}
