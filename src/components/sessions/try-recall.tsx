"use client";

import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import Link from "next/link";
import { useI18n } from "~/i18n/client";
import { errorMessage, useTRPC } from "~/trpc/react";
import type { RouterOutputs } from "~/trpc/types";
import { FormError } from "../form";
import { Badge, buttonClass, inputClass, requiredLabelClass } from "../ui";

type Preview = RouterOutputs["memory"]["tryRecall"];
type Card = Preview["cards"][number];

/** Who a card's scope belongs to, in words: the person of a profile, this session, a workspace, everyone. */
function useOwnerOf() {
  const { t } = useI18n();
  return (card: Pick<Card, "scope" | "ownerLabel">) => {
    if (card.ownerLabel) return card.ownerLabel;
    if (card.scope === "global") return t("recall.ownerGlobal");
    if (card.scope.startsWith("session:")) return t("recall.ownerSession");
    return card.scope;
  };
}

/** Whose agent the preview speaks for: the session's owner (with which key), or the viewer. */
function RecalledAs({ data }: { data: Preview }) {
  const { t } = useI18n();
  const as = data.recalledAs;
  const text =
    as.kind === "viewer"
      ? t("recall.asViewer")
      : as.key
        ? t("recall.asAgentKey", { owner: as.ownerLabel, key: `${as.key.name} (${as.key.prefix}…)` })
        : t("recall.asAgentDefault", { owner: as.ownerLabel });
  return <p className="text-zinc-600 dark:text-zinc-400">{text}</p>;
}

/**
 * The prompt exactly as the agent reads it, one line at a time; a card's line carries its scope's
 * owner beside it (not selectable, so a copied prompt stays the agent's text).
 */
function PromptBlock({ prompt, cards }: { prompt: string; cards: Card[] }) {
  const { t } = useI18n();
  const ownerOf = useOwnerOf();
  const byId = new Map(cards.map((c) => [c.id, c]));
  return (
    <div
      aria-label={t("recall.prompt")}
      role="region"
      className="max-h-96 overflow-auto rounded-lg bg-zinc-950 p-3 font-mono text-xs text-zinc-100"
    >
      {prompt.split("\n").map((line, i) => {
        const card = byId.get(/^- \[([^\]]+)\]/.exec(line)?.[1] ?? "");
        return (
          <p key={i} className="break-words whitespace-pre-wrap">
            {line}
            {card ? (
              <span className="ml-2 rounded bg-indigo-900/70 px-1.5 text-indigo-100 select-none">{ownerOf(card)}</span>
            ) : null}
          </p>
        );
      })}
    </div>
  );
}

/** "Try recall": type a question, see the prompt block this session's own agent would get. */
export function TryRecall({ sessionId }: { sessionId?: string }) {
  const { t, number } = useI18n();
  const trpc = useTRPC();
  const recall = useMutation(trpc.memory.tryRecall.mutationOptions());
  const [question, setQuestion] = useState("");
  const [budget, setBudget] = useState("4000");
  const data = recall.data;
  const ownerOf = useOwnerOf();
  return (
    <div className="space-y-3 text-sm">
      <form
        className="space-y-2"
        onSubmit={(e) => {
          e.preventDefault();
          if (question.trim())
            recall.mutate({ sessionId, question: question.trim(), tokenBudget: Number(budget) || undefined });
        }}
      >
        <label className="block">
          <span className={`font-medium ${requiredLabelClass}`}>{t("recall.question")}</span>
          <textarea
            rows={2}
            required
            value={question}
            onChange={(e) => setQuestion(e.target.value)}
            placeholder={t("recall.placeholder")}
            className={`mt-1 ${inputClass}`}
          />
        </label>
        <div className="flex items-end gap-2">
          <label className="block w-32">
            <span className="font-medium">{t("recall.budget")}</span>
            <input
              type="number"
              min={200}
              max={32000}
              step={100}
              value={budget}
              onChange={(e) => setBudget(e.target.value)}
              className={`mt-1 ${inputClass}`}
            />
          </label>
          <button type="submit" disabled={recall.isPending} className={buttonClass("primary")}>
            {recall.isPending ? t("common.working") : t("recall.run")}
          </button>
        </div>
      </form>
      {recall.isError ? <FormError message={errorMessage(recall.error)} /> : null}
      {data ? (
        <div className="space-y-2" aria-live="polite">
          <p className="flex flex-wrap gap-2">
            <Badge tone="indigo">
              {t("recall.tokens", { used: number(data.promptTokens), budget: number(data.diagnostics.tokenBudget) })}
            </Badge>
            <Badge>{t("recall.memories", { n: data.usedMemoryIds.length })}</Badge>
            <Badge>{t("recall.recent", { n: data.recentMessageCount })}</Badge>
            {data.hasSummary ? <Badge>{t("recall.withSummary")}</Badge> : null}
            {data.diagnostics.storeStatus !== "ok" ? <Badge tone="red">{data.diagnostics.storeStatus}</Badge> : null}
          </p>
          <RecalledAs data={data} />
          {data.hiddenScopes.length ? (
            <p role="note" className="text-amber-700">
              {t("recall.hidden", { scopes: data.hiddenScopes.join(", ") })}
            </p>
          ) : null}
          {data.diagnostics.warnings.map((w) => (
            <p key={w} className="text-amber-700">
              {w}
            </p>
          ))}
          {data.prompt ? (
            <PromptBlock prompt={data.prompt} cards={data.cards} />
          ) : (
            <p className="text-zinc-500">{t("recall.empty")}</p>
          )}
          {data.cards.length ? (
            <ul aria-label={t("recall.cards")} className="space-y-1 text-xs">
              {data.cards.map((card) => (
                <li key={card.id} className="flex flex-wrap items-center gap-x-2">
                  <Link href={`/memories/${card.id}`} className="text-indigo-600 hover:underline">
                    {card.title}
                  </Link>
                  <span className="text-zinc-500">{ownerOf(card)}</span>
                </li>
              ))}
            </ul>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}
