import Link from "next/link";
import { eventLabel } from "~/i18n/labels";
import { getI18n } from "~/i18n/server";
import type { AuditEntry } from "~/server/dashboard/audit-entries";
import { ActorName } from "../actor-name";
import { LocalTime } from "../local-time";
import { EVENT_TONE } from "../memories/timelines";
import { NameWithId, ScopeName } from "../scope-name";
import { Badge, cellClass } from "../ui";

/** What a row without a card was about: whose grant, which key (and whose), which member. */
async function Subject({ entry }: { entry: AuditEntry }) {
  const { t } = await getI18n();
  const subject = entry.subject;
  if (!subject) return <>—</>;
  const prefix =
    entry.eventType === "grant"
      ? t("audit.grantTo")
      : subject.type === "api_key"
        ? t("audit.apiKey")
        : entry.eventType === "member"
          ? t("audit.member")
          : null;
  return (
    <span className="block">
      {prefix ? <span className="block text-xs text-zinc-500">{prefix}</span> : null}
      <NameWithId name={subject.label} id={subject.id} />
      {subject.owner ? (
        <span className="block text-xs text-zinc-500">{t("audit.ownedBy", { who: subject.owner.label })}</span>
      ) : null}
    </span>
  );
}

/**
 * One audit row. Long ids break inside their cells (names first, ids on hover and copy) so that at a
 * laptop's 1366 px the Reason column stays on screen instead of scrolling out of view.
 */
export async function AuditRow({ entry: e }: { entry: AuditEntry }) {
  const { t } = await getI18n();
  return (
    <tr>
      <td className={`${cellClass} whitespace-nowrap text-xs text-zinc-500`}>
        <LocalTime value={e.createdAt} />
      </td>
      <td className={cellClass}>
        <Badge tone={EVENT_TONE[e.eventType] ?? "zinc"}>{eventLabel(t, e.eventType)}</Badge>
      </td>
      <td className={`${cellClass} min-w-28 max-w-48`}>
        <ActorName actor={e.actor} t={t} />
      </td>
      <td className={`${cellClass} min-w-28 max-w-48`}>
        {e.scope ? <ScopeName scope={e.scope} label={e.scopeLabel} /> : "—"}
      </td>
      <td className={`${cellClass} min-w-28 max-w-48`}>
        {e.nodeId ? (
          <Link
            href={`/memories/${e.nodeId}`}
            title={e.nodeId}
            className="font-mono text-xs break-all text-indigo-600 hover:underline"
          >
            {e.nodeId}
          </Link>
        ) : (
          <Subject entry={e} />
        )}
      </td>
      <td className={`${cellClass} min-w-60 text-zinc-600 wrap-anywhere dark:text-zinc-400`}>
        {e.reason ?? ""}
        {e.toolCallId ? <span className="ml-1 font-mono text-xs break-all">({e.toolCallId})</span> : null}
      </td>
    </tr>
  );
}
