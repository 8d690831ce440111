"use client";

import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import Link from "next/link";
import { useI18n } from "~/i18n/client";
import { errorMessage, useTRPC } from "~/trpc/react";
import { FormError } from "../form";
import { Badge, buttonClass, inputClass, requiredLabelClass } from "../ui";

/** "Try recall": type a question, see the prompt block an agent in this session would get. */
export function TryRecall({ sessionId }: { sessionId?: string }) {
  const { t, number } = useI18n();
  const trpc = useTRPC();
  const recall = useMutation(trpc.memory.tryRecall.mutationOptions());
  const [question, setQuestion] = useState("");
  const [budget, setBudget] = useState("4000");
  const data = recall.data;
  return (
    <div className="space-y-3 text-sm">
      <form
        className="space-y-2"
        onSubmit={(e) => {
          e.preventDefault();
          if (question.trim()) recall.mutate({ sessionId, question: question.trim(), tokenBudget: Number(budget) || undefined });
        }}
      >
        <label className="block">
          <span className={`font-medium ${requiredLabelClass}`}>{t("recall.question")}</span>
          <textarea rows={2} required value={question} onChange={(e) => setQuestion(e.target.value)} placeholder={t("recall.placeholder")} className={`mt-1 ${inputClass}`} />
        </label>
        <div className="flex items-end gap-2">
          <label className="block w-32">
            <span className="font-medium">{t("recall.budget")}</span>
            <input type="number" min={200} max={32000} step={100} value={budget} onChange={(e) => setBudget(e.target.value)} className={`mt-1 ${inputClass}`} />
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
            <Badge tone="indigo">{t("recall.tokens", { used: number(data.promptTokens), budget: number(data.diagnostics.tokenBudget) })}</Badge>
            <Badge>{t("recall.memories", { n: data.usedMemoryIds.length })}</Badge>
            <Badge>{t("recall.recent", { n: data.recentMessageCount })}</Badge>
            {data.hasSummary ? <Badge>{t("recall.withSummary")}</Badge> : null}
            {data.diagnostics.storeStatus !== "ok" ? <Badge tone="red">{data.diagnostics.storeStatus}</Badge> : null}
          </p>
          {data.diagnostics.warnings.map((w) => (
            <p key={w} className="text-amber-700">
              {w}
            </p>
          ))}
          {data.prompt ? (
            <pre aria-label={t("recall.prompt")} className="max-h-96 overflow-auto rounded-lg bg-zinc-950 p-3 text-xs whitespace-pre-wrap text-zinc-100">
              {data.prompt}
            </pre>
          ) : (
            <p className="text-zinc-500">{t("recall.empty")}</p>
          )}
          {data.relevant.length ? (
            <ul className="list-disc pl-5 text-xs">
              {data.relevant.map((n) => (
                <li key={n.id}>
                  <Link href={`/memories/${n.id}`} className="text-indigo-600 hover:underline">
                    {n.title}
                  </Link>
                </li>
              ))}
            </ul>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}
