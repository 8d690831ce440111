"use client";

import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useId, useMemo, useState } from "react";
import { useI18n } from "~/i18n/client";
import { categoryLabel, kindDescription } from "~/i18n/labels";
import { errorMessage, useTRPC } from "~/trpc/react";
import type { KindOption } from "~/trpc/types";
import { FormError } from "../form";
import { buttonClass, hintId, inputClass, Labeled, Panel } from "../ui";
import { emptyDraft, nodeFromDraft, type CardDraft } from "./card-draft";
import { CardFields } from "./card-fields";

/** Whether a granted pattern (`user:*` for admins, `session:*`, or a concrete scope) covers `scope`. */
const covers = (patterns: string[], scope: string) => patterns.some((p) => p === scope || (p.endsWith(":*") && scope.startsWith(p.slice(0, -1))));

/** The scope a new card of `kind` lands in by default, if the person may write it ("" = let the server pick). */
function defaultScope(kind: KindOption | undefined, ownScope: string, writable: string[]): string {
  const wanted = !kind || kind.defaultScope === "user" ? ownScope : kind.defaultScope === "global" ? "global" : "";
  if (wanted && covers(writable, wanted)) return wanted;
  return writable.find((s) => !s.endsWith(":*") && (!kind || kind.allowedScopes.includes(s.split(":")[0] as KindOption["defaultScope"]))) ?? "";
}

/** Create a card by hand: pick a kind from the registry, a scope, and the fields. */
export function CreateCardForm({ kinds, ownScope, writableScopes }: { kinds: KindOption[]; ownScope: string; writableScopes: string[] }) {
  const { t } = useI18n();
  const trpc = useTRPC();
  const router = useRouter();
  const write = useMutation(trpc.memory.write.mutationOptions());
  const base = useId();
  const [kindName, setKindName] = useState("custom_fact");
  const kind = kinds.find((k) => k.kind === kindName);
  const [itemKey, setItemKey] = useState("");
  const [scope, setScope] = useState(() => defaultScope(kind, ownScope, writableScopes));
  const [draft, setDraft] = useState<CardDraft>(emptyDraft);
  const [error, setError] = useState<string | null>(null);
  const byDomain = useMemo(() => {
    const groups = new Map<string, KindOption[]>();
    for (const k of kinds) groups.set(k.domain, [...(groups.get(k.domain) ?? []), k]);
    return [...groups.entries()];
  }, [kinds]);
  const concreteScopes = [...new Set([ownScope, ...writableScopes.filter((s) => !s.endsWith(":*"))])].filter((s) => covers(writableScopes, s));

  async function submit(event: React.FormEvent) {
    event.preventDefault();
    setError(null);
    try {
      const result = await write.mutateAsync({
        operations: [
          {
            op: "create",
            kind: kindName,
            ...(kind?.itemized && itemKey.trim() ? { itemKey: itemKey.trim() } : {}),
            ...(scope.trim() ? { scope: scope.trim() } : {}),
            node: nodeFromDraft(draft, kind?.valueShape),
            ...(draft.reason.trim() ? { reason: draft.reason.trim() } : {}),
          },
        ],
      });
      const first = result.results[0];
      if (result.done && first?.nodeId) router.push(`/memories/${first.nodeId}`);
      else setError(first?.message ?? result.message);
    } catch (e) {
      setError(errorMessage(e));
    }
  }

  return (
    <form onSubmit={submit} className="space-y-6">
      <Panel title={t("create.kindAndScope")}>
        <div className="grid gap-4 text-sm md:grid-cols-2">
          <Labeled id={`${base}-kind`} label={t("field.kind")} hint={kind ? kindDescription(t, kind) : undefined}>
            <select
              id={`${base}-kind`}
              aria-describedby={hintId(`${base}-kind`)}
              value={kindName}
              onChange={(e) => {
                const next = kinds.find((k) => k.kind === e.target.value);
                setKindName(e.target.value);
                setScope(defaultScope(next, ownScope, writableScopes));
              }}
              className={inputClass}
            >
              {byDomain.map(([domain, group]) => (
                <optgroup key={domain} label={categoryLabel(t, domain)}>
                  {group.map((k) => (
                    <option key={k.kind} value={k.kind}>
                      {k.kind}
                      {k.source === "custom" ? " ★" : ""}
                    </option>
                  ))}
                </optgroup>
              ))}
            </select>
          </Labeled>
          <Labeled id={`${base}-scope`} label={t("field.scope")} hint={kind ? t("create.allowedScopes", { scopes: kind.allowedScopes.join(", ") }) : null}>
            <input
              id={`${base}-scope`}
              aria-describedby={hintId(`${base}-scope`)}
              list={`${base}-scopes`}
              value={scope}
              onChange={(e) => setScope(e.target.value)}
              placeholder="user:… / session:… / workspace:… / global"
              className={`font-mono ${inputClass}`}
            />
            <datalist id={`${base}-scopes`}>
              {concreteScopes.map((s) => (
                <option key={s} value={s} />
              ))}
            </datalist>
          </Labeled>
          {kind?.itemized ? (
            <Labeled id={`${base}-item`} label={t("field.itemKey")} hint={t("create.itemHint")}>
              <input id={`${base}-item`} aria-describedby={hintId(`${base}-item`)} value={itemKey} onChange={(e) => setItemKey(e.target.value)} className={inputClass} />
            </Labeled>
          ) : null}
        </div>
      </Panel>
      <Panel title={t("create.fields")}>
        <CardFields draft={draft} onChange={setDraft} kind={kind} />
      </Panel>
      <FormError message={error} />
      <div className="flex justify-end gap-2">
        <button type="button" onClick={() => router.back()} className={buttonClass("ghost")}>
          {t("common.cancel")}
        </button>
        <button type="submit" disabled={write.isPending} className={buttonClass("primary")}>
          {write.isPending ? t("common.working") : t("create.submit")}
        </button>
      </div>
    </form>
  );
}
