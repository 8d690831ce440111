"use client";

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useI18n } from "~/i18n/client";
import { matchLabel, omitReasonLabel, scoreLabel } from "~/i18n/labels";
import { errorMessage, useTRPC } from "~/trpc/react";
import { FormError } from "../form";
import { Badge, buttonClass, inputClass } from "../ui";

const COMPONENTS = [
  "fullText",
  "trigram",
  "vector",
  "fused",
  "rerank",
  "importance",
  "confidence",
  "recency",
  "hotness",
  "explicit",
] as const;

/**
 * "Why recalled": the hybrid search for a question (the card's title unless the person types
 * another), where this card ranked, and each signal's share of its score.
 */
export function WhyRecalled({ id, title }: { id: string; title: string }) {
  const { t } = useI18n();
  const trpc = useTRPC();
  const [question, setQuestion] = useState(title);
  const [asked, setAsked] = useState(title);
  const query = useQuery(trpc.memory.whyRecalled.queryOptions({ id, query: asked }));
  const data = query.data;
  const parts = data?.score
    ? COMPONENTS.filter((c) => typeof data.score?.[c] === "number").map((c) => ({ name: c, value: data.score![c]! }))
    : [];
  const max = Math.max(...parts.map((p) => Math.abs(p.value)), 1e-9);
  return (
    <div className="space-y-3 text-sm">
      <form
        className="flex gap-2"
        onSubmit={(e) => {
          e.preventDefault();
          setAsked(question.trim() || title);
        }}
      >
        <label className="sr-only" htmlFor="why-question">
          {t("why.question")}
        </label>
        <input
          id="why-question"
          value={question}
          onChange={(e) => setQuestion(e.target.value)}
          className={inputClass}
        />
        <button type="submit" className={buttonClass("secondary")}>
          {t("why.ask")}
        </button>
      </form>
      {query.isPending ? (
        <p role="status" aria-busy="true" className="text-zinc-500">
          {t("common.loading")}
        </p>
      ) : query.isError ? (
        <FormError message={errorMessage(query.error)} />
      ) : data ? (
        <div className="space-y-2" aria-live="polite">
          {data.rank ? (
            <p>
              {t("why.ranked", { rank: data.rank, total: data.total, query: data.query })}{" "}
              {data.matchedBy.map((m) => (
                <Badge key={m} tone="indigo">
                  {matchLabel(t, m)}
                </Badge>
              ))}
            </p>
          ) : (
            <p>
              {data.omittedBecause
                ? t("why.omitted", { query: data.query, reason: omitReasonLabel(t, data.omittedBecause) })
                : t("why.notFound", { query: data.query, total: data.total })}
            </p>
          )}
          {parts.length ? (
            <>
              <table aria-label={t("why.components")} className="w-full text-xs">
                <tbody>
                  {parts.map((p) => (
                    <tr key={p.name}>
                      <th scope="row" className="w-28 py-0.5 text-left font-medium text-zinc-500">
                        {scoreLabel(t, p.name)}
                      </th>
                      <td className="py-0.5">
                        <span
                          className="block h-2 rounded-full bg-indigo-500/80"
                          style={{ width: `${Math.max(2, (Math.abs(p.value) / max) * 100)}%` }}
                        />
                      </td>
                      <td className="w-16 py-0.5 text-right tabular-nums">{p.value.toFixed(3)}</td>
                    </tr>
                  ))}
                  <tr>
                    <th scope="row" className="py-0.5 text-left font-semibold">
                      {scoreLabel(t, "final")}
                    </th>
                    <td />
                    <td className="py-0.5 text-right font-semibold tabular-nums">{data.score!.final.toFixed(3)}</td>
                  </tr>
                </tbody>
              </table>
              <p className="text-xs text-zinc-500">{t("why.scoresHint")}</p>
            </>
          ) : data.rank ? (
            <p className="text-xs text-zinc-500">{t("why.noComponents")}</p>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}
