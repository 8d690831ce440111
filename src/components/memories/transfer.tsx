"use client";

import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useRef, useState } from "react";
import { useI18n } from "~/i18n/client";
import { errorMessage, useTRPC } from "~/trpc/react";
import type { RouterOutputs } from "~/trpc/types";
import type { ScopeLabels } from "~/trpc/scope-labels";
import { FormError } from "../form";
import { scopeOptionText } from "../scope-picker";
import { Badge, buttonClass, FieldRow, fileInputClass, inputClass, Panel, type Tone } from "../ui";

type LineResult = RouterOutputs["memory"]["import"]["results"][number];
const CHUNK = 100;
const TONE: Record<LineResult["status"], Tone> = {
  created: "green",
  superseded: "indigo",
  noop: "zinc",
  conflict: "amber",
  rejected: "red",
  skipped: "zinc",
};
/** Report order; the first three are always listed (a zero says so), the rest only when they happened. */
const REPORTED: LineResult["status"][] = ["created", "noop", "conflict", "superseded", "rejected", "skipped"];
const ALWAYS = 3;

/** Export: pick scopes and statuses; the download streams from /memories/export. */
export function ExportForm({ scopes, labels = {} }: { scopes: string[]; labels?: ScopeLabels }) {
  const { t } = useI18n();
  const [scope, setScope] = useState("");
  const [withHistory, setWithHistory] = useState(false);
  const [evidence, setEvidence] = useState(false);
  const q = new URLSearchParams();
  if (scope) q.set("scope", scope);
  if (withHistory) for (const s of ["active", "superseded", "expired", "deleted"]) q.append("status", s);
  if (evidence) q.set("evidence", "1");
  return (
    <Panel title={t("transfer.export")} description={t("transfer.exportHint")}>
      <div className="space-y-3 text-sm">
        <FieldRow label={t("field.scope")}>
          <select value={scope} onChange={(e) => setScope(e.target.value)} className={inputClass}>
            <option value="">{t("memories.allScopes")}</option>
            {scopes.map((s) => (
              <option key={s} value={s} title={s}>
                {labels[s] ? scopeOptionText(labels[s], t) : s}
              </option>
            ))}
          </select>
        </FieldRow>
        <label className="flex items-center gap-2">
          <input type="checkbox" checked={withHistory} onChange={(e) => setWithHistory(e.target.checked)} />
          {t("transfer.withHistory")}
        </label>
        <label className="flex items-center gap-2">
          <input type="checkbox" checked={evidence} onChange={(e) => setEvidence(e.target.checked)} />
          {t("transfer.withEvidence")}
        </label>
        <a href={`/memories/export?${q.toString()}`} download className={buttonClass("primary")}>
          {t("transfer.download")}
        </a>
      </div>
    </Panel>
  );
}

/**
 * Import: a JSONL file sent in chunks of 100 lines through memory_write, with a progress bar. A dry
 * run writes nothing: each chunk runs in a transaction that is rolled back, and reports what would happen.
 */
export function ImportForm() {
  const { t, number } = useI18n();
  const trpc = useTRPC();
  const router = useRouter();
  const importChunk = useMutation(trpc.memory.import.mutationOptions());
  const fileRef = useRef<HTMLInputElement>(null);
  const [dryRun, setDryRun] = useState(true);
  const [onConflict, setOnConflict] = useState<"skip" | "supersede">("skip");
  const [progress, setProgress] = useState<{ done: number; total: number } | null>(null);
  const [results, setResults] = useState<LineResult[]>([]);
  const [ranDry, setRanDry] = useState(true);
  const [error, setError] = useState<string | null>(null);
  const running = progress !== null && progress.done < progress.total && error === null;

  async function run(event: React.FormEvent) {
    event.preventDefault();
    const file = fileRef.current?.files?.[0];
    if (!file) return;
    setError(null);
    setResults([]);
    setRanDry(dryRun);
    const lines = (await file.text()).split(/\r?\n/);
    while (lines.length && !lines.at(-1)!.trim()) lines.pop();
    setProgress({ done: 0, total: lines.length });
    const all: LineResult[] = [];
    for (let start = 0; start < lines.length; start += CHUNK) {
      try {
        const report = await importChunk.mutateAsync({
          lines: lines.slice(start, start + CHUNK),
          firstLineNumber: start + 1,
          dryRun,
          onConflict,
        });
        all.push(...report.results);
        setResults([...all]);
        setProgress({ done: Math.min(start + CHUNK, lines.length), total: lines.length });
      } catch (e) {
        setError(t("transfer.stoppedAt", { line: start + 1, message: errorMessage(e) }));
        return;
      }
    }
    // A real import changed cards: re-render the server components (scope list, counts).
    if (!dryRun) router.refresh();
  }

  const counts = results.reduce<Partial<Record<LineResult["status"], number>>>(
    (acc, r) => ({ ...acc, [r.status]: (acc[r.status] ?? 0) + 1 }),
    {},
  );
  const problems = results.filter((r) => r.status !== "created" && r.status !== "noop" && r.status !== "superseded");

  return (
    <Panel title={t("transfer.import")} description={t("transfer.importHint")}>
      <form onSubmit={run} className="space-y-3 text-sm">
        <FieldRow label={t("transfer.file")} required>
          <input
            ref={fileRef}
            type="file"
            accept=".jsonl,.ndjson,.txt,application/x-ndjson"
            required
            className={fileInputClass}
          />
        </FieldRow>
        <label className="flex items-center gap-2">
          <input type="checkbox" checked={dryRun} onChange={(e) => setDryRun(e.target.checked)} />
          {t("transfer.dryRun")}
        </label>
        <FieldRow label={t("transfer.onConflict")}>
          <select
            value={onConflict}
            onChange={(e) => setOnConflict(e.target.value as "skip" | "supersede")}
            className={inputClass}
          >
            <option value="skip">{t("transfer.conflictSkip")}</option>
            <option value="supersede">{t("transfer.conflictSupersede")}</option>
          </select>
        </FieldRow>
        <button type="submit" disabled={running} className={buttonClass("primary")}>
          {running ? t("common.working") : dryRun ? t("transfer.runDry") : t("transfer.runImport")}
        </button>
      </form>
      {progress ? (
        <div className="mt-4 space-y-2 text-sm">
          <div
            role="progressbar"
            aria-label={t("transfer.progress")}
            aria-valuemin={0}
            aria-valuemax={progress.total}
            aria-valuenow={progress.done}
            className="h-2 overflow-hidden rounded-full bg-zinc-200 dark:bg-zinc-800"
          >
            <div
              className="h-full bg-indigo-500 transition-all"
              style={{ width: `${progress.total ? (progress.done / progress.total) * 100 : 100}%` }}
            />
          </div>
          <p aria-live="polite">
            {t("transfer.linesDone", { done: number(progress.done), total: number(progress.total) })}{" "}
            {ranDry ? <Badge tone="sky">{t("transfer.dryRunBadge")}</Badge> : null}
          </p>
          {results.length ? (
            <ul aria-label={ranDry ? t("transfer.reportDry") : t("transfer.report")} className="flex flex-wrap gap-2">
              {REPORTED.filter((status, i) => i < ALWAYS || counts[status]).map((status) => (
                <li key={status}>
                  <Badge tone={TONE[status]}>
                    {t(`transfer.status.${status}`)}: {number(counts[status] ?? 0)}
                  </Badge>
                </li>
              ))}
            </ul>
          ) : null}
          <FormError message={error} />
          {problems.length ? (
            <table aria-label={t("transfer.problems")} className="w-full text-xs">
              <tbody>
                {problems.slice(0, 200).map((r) => (
                  <tr key={r.line} className="border-t border-zinc-100 dark:border-zinc-800">
                    <td className="py-1 pr-2 tabular-nums text-zinc-500">{r.line}</td>
                    <td className="py-1 pr-2">
                      <Badge tone={TONE[r.status]}>{t(`transfer.status.${r.status}`)}</Badge>
                    </td>
                    <td className="py-1">{r.message}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : null}
        </div>
      ) : null}
    </Panel>
  );
}
