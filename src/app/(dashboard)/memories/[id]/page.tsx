import Link from "next/link";
import { notFound } from "next/navigation";
import { JsonValue } from "~/components/json-value";
import { LocalTime } from "~/components/local-time";
import { CardActions } from "~/components/memories/card-actions";
import { EraseCard } from "~/components/memories/erase-card";
import { RestoreCard } from "~/components/memories/restore-card";
import { AuditTimeline, EvidenceList, RevisionTimeline } from "~/components/memories/timelines";
import { WhyRecalled } from "~/components/memories/why-recalled";
import { Badge, ErrorState, Fields, LinkButton, Meter, Panel, STATUS_TONE } from "~/components/ui";
import { categoryLabel, cardTypeLabel } from "~/i18n/labels";
import { getI18n } from "~/i18n/server";
import { MIN_CONFIDENCE } from "~/server/memory";
import { ScopeName } from "~/components/scope-name";
import { scopeLabelsFor } from "~/trpc/scope-labels";
import { attempt, serverApi } from "~/trpc/server";
import { pageTitle } from "~/i18n/metadata";

export const generateMetadata = pageTitle("title.memory");

export default async function MemoryCardPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const api = await serverApi();
  const [detail, kinds, i18n] = await Promise.all([
    attempt(() => api.memory.card({ id: decodeURIComponent(id) })),
    api.memory.kinds(),
    getI18n(),
  ]);
  const { t, number } = i18n;
  // Unknown or unreadable: 404. Anything else (a malformed id…) says what went wrong.
  if (!detail.ok && detail.code === "NOT_FOUND") notFound();
  if (!detail.ok)
    return (
      <ErrorState
        title={t("common.error")}
        message={detail.message}
        action={<LinkButton href="/memories">{t("memories.title")}</LinkButton>}
      />
    );
  const { card, revisions, events, evidence, missingEvidenceIds, hiddenEvidenceCount, currentId, writable, usage } =
    detail.data;
  const scopeLabels = await scopeLabelsFor([card.scope]);
  const isCurrent = card.status === "active";
  // A forgotten or expired card that nothing followed (its chain's last revision) can be brought
  // back, or erased for good as it is.
  const chainEnded =
    writable && !currentId && !card.supersededById && (card.status === "deleted" || card.status === "expired");

  return (
    <div className="space-y-6">
      <header className="flex flex-wrap items-start justify-between gap-4">
        <div className="min-w-0">
          <p className="text-sm text-zinc-500">
            <Link href="/memories" className="hover:underline">
              {t("memories.title")}
            </Link>{" "}
            / <span className="font-mono">{card.key}</span>
          </p>
          <h1 className="mt-1 text-2xl font-semibold tracking-tight">{card.title}</h1>
          <p className="mt-2 flex flex-wrap items-center gap-2 text-sm">
            <Badge tone={STATUS_TONE[card.status]}>{t(`status.${card.status}`)}</Badge>
            <span>{t("card.revisionN", { n: card.revision })}</span>
            <span className="font-mono text-xs text-zinc-500">{card.kind}</span>
            <span className="text-xs text-zinc-500" title={card.scope}>
              {scopeLabels[card.scope]?.name ?? card.scope}
            </span>
          </p>
        </div>
        {isCurrent && writable ? <CardActions key={`${card.id}:${card.revision}`} card={card} kinds={kinds} /> : null}
        {chainEnded ? (
          <div className="flex flex-wrap gap-2">
            <RestoreCard card={card} />
            <EraseCard card={card} />
          </div>
        ) : null}
      </header>

      {!isCurrent ? (
        <p
          role="note"
          className="rounded-xl border border-amber-200 bg-amber-50 px-4 py-3 text-sm text-amber-900 dark:border-amber-900 dark:bg-amber-950/40 dark:text-amber-200"
        >
          {currentId ? (
            <>
              {t("card.notCurrent", { status: t(`status.${card.status}`) })}{" "}
              <Link href={`/memories/${currentId}`} className="font-medium underline">
                {t("card.viewCurrent")}
              </Link>
            </>
          ) : (
            t("card.chainEnded", { status: t(`status.${card.status}`) })
          )}
        </p>
      ) : !writable ? (
        <p role="note" className="text-sm text-zinc-500">
          {t("card.readOnly")}
        </p>
      ) : null}
      {isCurrent && card.confidence < MIN_CONFIDENCE ? (
        // Search and memory_context leave such a card out; without this the page gives no hint why.
        <p
          role="note"
          className="rounded-xl border border-amber-200 bg-amber-50 px-4 py-3 text-sm text-amber-900 dark:border-amber-900 dark:bg-amber-950/40 dark:text-amber-200"
        >
          {t("card.unrecalled", { confidence: number(card.confidence), threshold: number(MIN_CONFIDENCE) })}
        </p>
      ) : null}

      <div className="grid gap-6 xl:grid-cols-[minmax(0,2fr)_minmax(0,1fr)]">
        <div className="space-y-6">
          <Panel title={t("card.what")}>
            <p className="whitespace-pre-wrap">{card.content}</p>
            <div className="mt-4 border-t border-zinc-100 pt-4 dark:border-zinc-800">
              <p className="mb-1 text-xs font-medium tracking-wide text-zinc-500 uppercase">{t("field.value")}</p>
              <JsonValue value={card.valueJson} />
            </div>
          </Panel>
          <Panel title={t("card.fields")}>
            <Fields
              items={[
                { label: t("field.id"), value: <span className="font-mono text-xs">{card.id}</span> },
                { label: t("field.key"), value: <span className="font-mono text-xs">{card.key}</span> },
                { label: t("field.itemKey"), value: card.itemKey ?? "—" },
                { label: t("field.kind"), value: card.kind },
                { label: t("field.scope"), value: <ScopeName scope={card.scope} label={scopeLabels[card.scope]} /> },
                { label: t("field.domain"), value: categoryLabel(t, card.domain) },
                {
                  label: t("field.category"),
                  value: card.categoryPath.length ? (
                    <Link
                      className="text-indigo-600 hover:underline"
                      href={`/memories?category=${encodeURIComponent(card.categoryPath.join("/"))}`}
                    >
                      {card.categoryPath.map((segment) => categoryLabel(t, segment)).join(" / ")}
                    </Link>
                  ) : (
                    "—"
                  ),
                },
                { label: t("field.type"), value: cardTypeLabel(t, card.type) },
                {
                  label: t("field.confidence"),
                  value: <Meter value={card.confidence} label={t("field.confidence")} />,
                },
                {
                  label: t("field.importance"),
                  value: <Meter value={card.importance} label={t("field.importance")} />,
                },
                {
                  label: t("field.tags"),
                  value: card.tags.length ? card.tags.map((tag) => <Badge key={tag}>#{tag}</Badge>) : "—",
                },
                { label: t("field.entities"), value: card.entities.length ? card.entities.join(", ") : "—" },
                { label: t("field.explicit"), value: card.explicitUserIntent ? t("common.yes") : t("common.no") },
                { label: t("field.redacted"), value: card.redacted ? t("common.yes") : t("common.no") },
                { label: t("field.createdAt"), value: <LocalTime value={card.createdAt} /> },
                { label: t("field.updatedAt"), value: <LocalTime value={card.updatedAt} /> },
                { label: t("field.expiresAt"), value: <LocalTime value={card.expiresAt} /> },
                { label: t("card.sources"), value: number(card.sourceMessageIds.length) },
                {
                  label: t("card.recalls"),
                  value:
                    usage.chainRecallCount > usage.recallCount
                      ? t("card.recallsChain", { n: number(usage.recallCount), total: number(usage.chainRecallCount) })
                      : number(usage.recallCount),
                },
                { label: t("card.lastRecalled"), value: <LocalTime value={usage.lastRecalledAt} /> },
                { label: t("card.hotness"), value: <Meter value={usage.hotness} label={t("card.hotness")} /> },
              ]}
            />
          </Panel>
          <Panel title={t("card.provenance")} description={t("card.provenanceHint")}>
            <EvidenceList messages={evidence} missing={missingEvidenceIds} hidden={hiddenEvidenceCount} />
          </Panel>
          <Panel title={t("card.auditTimeline")}>
            <AuditTimeline events={events} />
          </Panel>
        </div>
        <div className="space-y-6">
          <Panel title={t("card.revisions")} description={t("card.revisionsHint")}>
            <RevisionTimeline revisions={revisions} currentPageId={card.id} />
          </Panel>
          {isCurrent ? (
            <Panel title={t("card.whyRecalled")} description={t("card.whyHint")}>
              <WhyRecalled id={card.id} title={card.title} />
            </Panel>
          ) : null}
        </div>
      </div>
    </div>
  );
}
