"use client";

import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useId, useMemo, useState } from "react";
import { useI18n } from "~/i18n/client";
import { errorMessage, useTRPC } from "~/trpc/react";
import type { KindOption } from "~/trpc/types";
import { FormError } from "../form";
import type { ScopeChoices } from "~/server/dashboard/scope-choices";
import type { ScopeLabel } from "~/server/dashboard/scope-labels";
import { scopeChoiceList } from "../scope-choice-list";
import { ScopePicker } from "../scope-picker";
import { buttonClass, hintId, inputClass, Labeled, Panel } from "../ui";
import { emptyDraft, nodeFromDraft, type CardDraft } from "./card-draft";
import { CardFields } from "./card-fields";

/** The scope a new card of `kind` lands in by default: the kind's default when it is offered, else the first offered. */
function defaultScope(kind: KindOption | undefined, ownScope: string, offered: ScopeLabel[]): string {
  const wanted = !kind || kind.defaultScope === "user" ? ownScope : kind.defaultScope === "global" ? "global" : "";
  return offered.find((s) => s.scope === wanted)?.scope ?? offered[0]?.scope ?? "";
}

/** The picker's options for a kind: only scope types the kind allows. */
const offeredFor = (kind: KindOption | undefined, choices: ScopeChoices): ScopeLabel[] =>
  scopeChoiceList(choices).filter((s) => !kind || (s.type !== null && kind.allowedScopes.includes(s.type as KindOption["defaultScope"])));

/** Create a card by hand: pick a kind from the registry, a scope, and the fields. */
export function CreateCardForm({ kinds, ownScope, choices }: { kinds: KindOption[]; ownScope: string; choices: ScopeChoices }) {
  const { t } = useI18n();
  const trpc = useTRPC();
  const router = useRouter();
  const write = useMutation(trpc.memory.write.mutationOptions());
  const base = useId();
  const [kindName, setKindName] = useState("custom_fact");
  const kind = kinds.find((k) => k.kind === kindName);
  const [itemKey, setItemKey] = useState("");
  const offered = offeredFor(kind, choices);
  const [scope, setScope] = useState(() => defaultScope(kind, ownScope, offered));
  const [draft, setDraft] = useState<CardDraft>(emptyDraft);
  const [error, setError] = useState<string | null>(null);
  const byDomain = useMemo(() => {
    const groups = new Map<string, KindOption[]>();
    for (const k of kinds) groups.set(k.domain, [...(groups.get(k.domain) ?? []), k]);
    return [...groups.entries()];
  }, [kinds]);

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
          <Labeled id={`${base}-kind`} label={t("field.kind")} hint={kind?.description}>
            <select
              id={`${base}-kind`}
              aria-describedby={hintId(`${base}-kind`)}
              value={kindName}
              onChange={(e) => {
                const next = kinds.find((k) => k.kind === e.target.value);
                setKindName(e.target.value);
                setScope(defaultScope(next, ownScope, offeredFor(next, choices)));
              }}
              className={inputClass}
            >
              {byDomain.map(([domain, group]) => (
                <optgroup key={domain} label={domain}>
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
          <Labeled id={`${base}-scope`} label={t("field.scope")} hint={offered.length ? t("scope.pickHint", { scope: scope || "—" }) : t("scope.noneForKind")}>
            <ScopePicker id={`${base}-scope`} value={scope} onChange={setScope} choices={offered} />
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
