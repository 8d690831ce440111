import Link from "next/link";
import { eventLabel, messageRoleLabel } from "~/i18n/labels";
import { getI18n } from "~/i18n/server";
import type { AuditEntry, CardDetail, EvidenceMessage } from "~/server/dashboard/card-detail";
import { ActorName } from "../actor-name";
import { LocalTime } from "../local-time";
import { Badge, STATUS_TONE, type Tone } from "../ui";

export const EVENT_TONE: Record<string, Tone> = {
  create: "green",
  update: "indigo",
  supersede: "indigo",
  expire: "amber",
  delete: "red",
  hard_delete: "red",
  restore: "green",
  rejected: "red",
  noop: "zinc",
};

/** What superseded what: every revision of the chain, newest first, linked both ways. */
export async function RevisionTimeline({
  revisions,
  currentPageId,
}: {
  revisions: CardDetail["revisions"];
  currentPageId: string;
}) {
  const { t } = await getI18n();
  return (
    <ol
      aria-label={t("card.revisions")}
      className="relative space-y-4 border-l border-zinc-200 pl-5 dark:border-zinc-800"
    >
      {[...revisions].reverse().map((r) => (
        <li key={r.id} className="relative">
          <span
            aria-hidden
            className={`absolute top-1.5 -left-[1.6rem] h-2.5 w-2.5 rounded-full ${r.status === "active" ? "bg-emerald-500" : "bg-zinc-300 dark:bg-zinc-600"}`}
          />
          <div className="flex flex-wrap items-center gap-2 text-sm">
            <span className="font-semibold">{t("card.revisionN", { n: r.revision })}</span>
            <Badge tone={STATUS_TONE[r.status]}>{t(`status.${r.status}`)}</Badge>
            {r.id === currentPageId ? (
              <Badge tone="sky">{t("card.thisPage")}</Badge>
            ) : (
              <Link href={`/memories/${r.id}`} className="text-xs text-indigo-600 hover:underline">
                {t("card.open")}
              </Link>
            )}
            <span className="text-xs text-zinc-500">
              <LocalTime value={r.createdAt} /> · {r.createdByLabel}
            </span>
          </div>
          <p className="mt-1 text-sm font-medium">{r.title}</p>
          <p className="text-sm text-zinc-600 dark:text-zinc-400">{r.content}</p>
          <p className="mt-1 text-xs text-zinc-500">
            {r.supersedesId ? t("card.replaced", { id: r.supersedesId }) : t("card.firstRevision")}
            {r.endedAt ? ` · ${t("card.endedAt")} ` : ""}
            {r.endedAt ? <LocalTime value={r.endedAt} /> : null}
            {r.endedAt ? ` · ${r.updatedByLabel}` : ""}
          </p>
        </li>
      ))}
    </ol>
  );
}

/** The card's audit trail: who (user or key), when, why, and what changed. */
export async function AuditTimeline({ events }: { events: AuditEntry[] }) {
  const { t } = await getI18n();
  if (events.length === 0) return <p className="text-sm text-zinc-500">{t("card.noEvents")}</p>;
  return (
    <ol aria-label={t("card.auditTimeline")} className="space-y-3">
      {events.map((e) => (
        <li key={e.id} className="rounded-xl border border-zinc-100 p-3 text-sm dark:border-zinc-800">
          <div className="flex flex-wrap items-center gap-2">
            <Badge tone={EVENT_TONE[e.eventType] ?? "zinc"}>{eventLabel(t, e.eventType)}</Badge>
            <ActorName actor={e.actor} t={t} />
            <span className="text-xs text-zinc-500">
              <LocalTime value={e.createdAt} />
            </span>
            {e.toolCallId ? <span className="font-mono text-xs text-zinc-500">{e.toolCallId}</span> : null}
          </div>
          {e.reason ? <p className="mt-1 text-zinc-600 dark:text-zinc-400">{e.reason}</p> : null}
          {e.before || e.after ? (
            <details className="mt-1 text-xs text-zinc-500">
              <summary className="cursor-pointer select-none">{t("card.changeDetails")}</summary>
              <div className="mt-2 grid gap-2 md:grid-cols-2">
                <pre className="overflow-x-auto rounded-lg bg-zinc-50 p-2 dark:bg-zinc-950">
                  {JSON.stringify(e.before, null, 2)}
                </pre>
                <pre className="overflow-x-auto rounded-lg bg-zinc-50 p-2 dark:bg-zinc-950">
                  {JSON.stringify(e.after, null, 2)}
                </pre>
              </div>
            </details>
          ) : null}
        </li>
      ))}
    </ol>
  );
}

/** Evidence messages, each linked to its place in its session. */
export async function EvidenceList({
  messages,
  missing,
  hidden = 0,
}: {
  messages: EvidenceMessage[];
  missing: string[];
  hidden?: number;
}) {
  const { t } = await getI18n();
  if (messages.length === 0 && missing.length === 0 && hidden === 0)
    return <p className="text-sm text-zinc-500">{t("card.noEvidence")}</p>;
  return (
    <div className="space-y-2">
      <ul className="space-y-2">
        {messages.map((m) => (
          <li key={m.id} className="rounded-xl border border-zinc-100 p-3 text-sm dark:border-zinc-800">
            <div className="flex flex-wrap items-center gap-2 text-xs text-zinc-500">
              <Badge>{messageRoleLabel(t, m.role)}</Badge>
              <Link
                href={`/sessions/${encodeURIComponent(m.sessionId)}?at=${encodeURIComponent(m.id)}#${m.id}`}
                className="font-mono text-indigo-600 hover:underline"
              >
                {m.sessionId}
              </Link>
              <LocalTime value={m.createdAt} />
            </div>
            <p className="mt-1 whitespace-pre-wrap">{m.content}</p>
          </li>
        ))}
      </ul>
      {missing.length ? (
        <p className="text-xs text-zinc-500">{t("card.evidenceErased", { n: missing.length })}</p>
      ) : null}
      {hidden ? <p className="text-xs text-zinc-500">{t("card.evidenceHidden", { n: hidden })}</p> : null}
    </div>
  );
}
