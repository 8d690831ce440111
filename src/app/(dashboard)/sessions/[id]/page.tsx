import Link from "next/link";
import { notFound } from "next/navigation";
import { LocalTime } from "~/components/local-time";
import { EraseSession } from "~/components/sessions/erase-session";
import { ReviewCard } from "~/components/sessions/review-card";
import { TryRecall } from "~/components/sessions/try-recall";
import { Badge, EmptyState, ErrorState, LinkButton, Panel, STATUS_TONE } from "~/components/ui";
import { messageRoleLabel } from "~/i18n/labels";
import { getI18n } from "~/i18n/server";
import { attempt, serverApi } from "~/trpc/server";
import { pageTitle } from "~/i18n/metadata";

export const generateMetadata = pageTitle("title.session");

const LIST_FIELDS = ["constraints", "preferences", "decisions", "completedWork", "pendingWork", "knownIssues"] as const;

export default async function SessionPage({
  params,
  searchParams,
}: {
  params: Promise<{ id: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const [{ id }, query] = await Promise.all([params, searchParams]);
  const sessionId = decodeURIComponent(id);
  const before = typeof query.before === "string" && /^\d+$/.test(query.before) ? Number(query.before) : undefined;
  const at = typeof query.at === "string" ? query.at : undefined;
  const [{ t, number }, api] = await Promise.all([getI18n(), serverApi()]);
  const detail = await attempt(() => api.memory.session({ sessionId, before, aroundMessageId: at }));
  // Unknown or unreadable: 404. Anything else (a malformed cursor…) says what went wrong.
  if (!detail.ok && detail.code === "NOT_FOUND") notFound();
  if (!detail.ok)
    return (
      <ErrorState
        title={t("common.error")}
        message={detail.message}
        action={<LinkButton href="/sessions">{t("sessions.title")}</LinkButton>}
      />
    );
  const s = detail.data;
  const base = `/sessions/${encodeURIComponent(sessionId)}`;

  return (
    <div className="space-y-6">
      <header>
        <p className="text-sm text-zinc-500">
          <Link href="/sessions" className="hover:underline">
            {t("sessions.title")}
          </Link>
        </p>
        <div className="mt-1 flex flex-wrap items-start justify-between gap-4">
          <div className="min-w-0">
            <h1 className="font-mono text-2xl font-semibold tracking-tight break-all">{s.sessionId}</h1>
            <p className="mt-1 text-sm text-zinc-500">{t("sessions.count", { n: number(s.messageCount) })}</p>
          </div>
          {s.erasable ? <EraseSession sessionId={s.sessionId} /> : null}
        </div>
      </header>
      <div className="grid gap-6 xl:grid-cols-[minmax(0,3fr)_minmax(0,2fr)]">
        <Panel
          title={t("sessions.messages")}
          actions={
            <div className="flex gap-2">
              {s.olderBefore ? (
                <LinkButton size="sm" href={`${base}?before=${s.olderBefore}`}>
                  {t("sessions.older")}
                </LinkButton>
              ) : null}
              {s.hasNewer ? (
                <LinkButton size="sm" href={base}>
                  {t("sessions.latest")}
                </LinkButton>
              ) : null}
            </div>
          }
        >
          {s.messages.length === 0 ? (
            <EmptyState title={t("sessions.noMessages")} />
          ) : (
            <ol aria-label={t("sessions.messages")} className="space-y-3">
              {s.messages.map((m) => (
                <li
                  key={m.id}
                  id={m.id}
                  className={`scroll-mt-24 rounded-xl border p-3 text-sm ${m.id === at ? "border-indigo-400 ring-2 ring-indigo-400/40" : "border-zinc-100 dark:border-zinc-800"} ${m.role === "user" ? "bg-zinc-50 dark:bg-zinc-950" : ""}`}
                >
                  <div className="flex flex-wrap items-center gap-2 text-xs text-zinc-500">
                    <Badge tone={m.role === "user" ? "indigo" : "zinc"}>{messageRoleLabel(t, m.role)}</Badge>
                    <LocalTime value={m.createdAt} />
                    <span className="font-mono">{m.id}</span>
                  </div>
                  <p className="mt-1 whitespace-pre-wrap">{m.content}</p>
                  {m.savedAs.length ? (
                    <p className="mt-2 flex flex-wrap items-center gap-1 text-xs text-zinc-500">
                      {t("sessions.savedAs")}
                      {m.savedAs.map((card) => (
                        <Link
                          key={card.id}
                          href={`/memories/${card.id}`}
                          className="rounded-full bg-indigo-50 px-2 py-0.5 break-all text-indigo-700 hover:underline dark:bg-indigo-950 dark:text-indigo-300"
                        >
                          {card.title}
                          {card.extracted ? (
                            <span className="ml-1 text-[10px] tracking-wide text-indigo-500 uppercase">
                              {t("sessions.extracted")}
                            </span>
                          ) : null}
                        </Link>
                      ))}
                    </p>
                  ) : null}
                </li>
              ))}
            </ol>
          )}
        </Panel>
        <div className="space-y-6">
          <Panel title={t("recall.title")} description={t("recall.hint")}>
            <TryRecall sessionId={s.sessionId} />
          </Panel>
          <Panel title={t("sessions.summaries")} description={t("sessions.summariesHint")}>
            {s.summaries.length === 0 ? (
              <p className="text-sm text-zinc-500">{t("sessions.noSummaries")}</p>
            ) : (
              <ol className="space-y-3">
                {s.summaries.map((sum, i) => (
                  <li key={sum.id} className="rounded-xl border border-zinc-100 p-3 text-sm dark:border-zinc-800">
                    <div className="flex flex-wrap items-center gap-2 text-xs text-zinc-500">
                      <Badge tone={i === 0 ? "green" : "zinc"}>#{s.summaries.length - i}</Badge>
                      <LocalTime value={sum.createdAt} />
                      <span>{t("sessions.covers", { n: sum.messageCount })}</span>
                      <span>{sum.generator}</span>
                    </div>
                    <p className="mt-1 whitespace-pre-wrap">{sum.summary}</p>
                    {sum.currentGoal ? (
                      <p className="mt-1 text-xs">
                        <span className="font-medium">{t("sessions.goal")}:</span> {sum.currentGoal}
                      </p>
                    ) : null}
                    {LIST_FIELDS.filter((f) => sum[f].length).map((f) => (
                      <p key={f} className="mt-1 text-xs">
                        <span className="font-medium">{t(`summary.${f}`)}:</span> {sum[f].join("; ")}
                      </p>
                    ))}
                  </li>
                ))}
              </ol>
            )}
          </Panel>
          <Panel
            title={t("sessions.cards")}
            description={
              s.cards.some((c) => c.extracted && !c.explicit && c.status === "active")
                ? t("sessions.reviewHint")
                : undefined
            }
          >
            {s.cards.length === 0 ? (
              <p className="text-sm text-zinc-500">{t("sessions.noCards")}</p>
            ) : (
              <ul className="space-y-3 text-sm">
                {s.cards.map((c) => (
                  <li key={c.id} className="space-y-1">
                    <div className="flex items-center justify-between gap-2">
                      <Link
                        href={`/memories/${c.id}`}
                        className="min-w-0 truncate text-indigo-700 hover:underline dark:text-indigo-300"
                      >
                        {c.title}
                      </Link>
                      <span className="flex shrink-0 gap-1">
                        {c.extracted ? (
                          <Badge tone="zinc">{t(c.explicit ? "sessions.extracted" : "sessions.inferred")}</Badge>
                        ) : null}
                        <Badge tone={STATUS_TONE[c.status]}>{t(`status.${c.status as "active"}`)}</Badge>
                      </span>
                    </div>
                    {c.extracted && c.sourceMessageIds[0] ? (
                      <p className="text-xs text-zinc-500">
                        <Link
                          href={`${base}?at=${encodeURIComponent(c.sourceMessageIds[0])}#${encodeURIComponent(c.sourceMessageIds[0])}`}
                          className="hover:underline"
                        >
                          {t("sessions.fromTurn")} <span className="font-mono break-all">{c.sourceMessageIds[0]}</span>
                        </Link>
                      </p>
                    ) : null}
                    {c.extracted && !c.explicit && c.status === "active" ? (
                      <ReviewCard id={c.id} revision={c.revision} title={c.title} />
                    ) : null}
                  </li>
                ))}
              </ul>
            )}
          </Panel>
        </div>
      </div>
    </div>
  );
}
