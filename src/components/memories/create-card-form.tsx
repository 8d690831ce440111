"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useId, useMemo, useState } from "react";
import { useI18n } from "~/i18n/client";
import { categoryLabel, kindDescription } from "~/i18n/labels";
import { errorMessage, useTRPC } from "~/trpc/react";
import type { KindOption } from "~/trpc/types";
import { FormError } from "../form";
import type { ScopeChoices } from "~/server/dashboard/scope-choices";
import type { ScopeLabel } from "~/server/dashboard/scope-labels";
import { scopeChoiceList } from "../scope-choice-list";
import { ScopePicker } from "../scope-picker";
import { buttonClass, hintId, inputClass, Labeled, Panel } from "../ui";
import { emptyDraft, cardFromDraft, type CardDraft } from "./card-draft";
import { CardFields } from "./card-fields";
import { ReplaceWarning, type CreatePreview } from "./replace-warning";
import { refusalText } from "./write-refusal";

/** The scope a new card of `kind` lands in by default: the kind's default when it is offered, else the first offered. */
function defaultScope(kind: KindOption | undefined, ownScope: string, offered: ScopeLabel[]): string {
  const wanted = !kind || kind.defaultScope === "user" ? ownScope : kind.defaultScope === "global" ? "global" : "";
  return offered.find((s) => s.scope === wanted)?.scope ?? offered[0]?.scope ?? "";
}

/** The picker's options for a kind: only scope types the kind allows. */
const offeredFor = (kind: KindOption | undefined, choices: ScopeChoices): ScopeLabel[] =>
  scopeChoiceList(choices).filter(
    (s) => !kind || (s.type !== null && kind.allowedScopes.includes(s.type as KindOption["defaultScope"])),
  );

/** The Item field's hint: where the item comes from when it is left empty (the server's rule, per kind). */
const itemHintKey = (kind: KindOption) =>
  kind.itemFrom === "value"
    ? "create.itemFromValue"
    : kind.itemFrom === "title"
      ? "create.itemFromTitle"
      : "create.itemRequired";

/**
 * Create a card by hand: pick a kind from the registry, a scope, and the fields. Before saving, the
 * server says whether the card would replace one (memory.previewCreate); if so the form shows that
 * card with "replace" / "cancel" instead of saving.
 */
export function CreateCardForm({
  kinds,
  ownScope,
  choices,
}: {
  kinds: KindOption[];
  ownScope: string;
  choices: ScopeChoices;
}) {
  const { t } = useI18n();
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const write = useMutation(trpc.memory.write.mutationOptions());
  const base = useId();
  const [kindName, setKindName] = useState("custom_fact");
  const kind = kinds.find((k) => k.kind === kindName);
  const [itemKey, setItemKey] = useState("");
  const offered = offeredFor(kind, choices);
  const [scope, setScope] = useState(() => defaultScope(kind, ownScope, offered));
  const [draft, setDraft] = useState<CardDraft>(emptyDraft);
  const [error, setError] = useState<string | null>(null);
  const [checking, setChecking] = useState(false);
  /** A replacement waiting for "replace" / "cancel", for the operation as it was when asked. */
  const [pending, setPending] = useState<{ signature: string; preview: CreatePreview } | null>(null);
  const byDomain = useMemo(() => {
    const groups = new Map<string, KindOption[]>();
    for (const k of kinds) groups.set(k.domain, [...(groups.get(k.domain) ?? []), k]);
    return [...groups.entries()];
  }, [kinds]);

  const operation = () => ({
    op: "create" as const,
    kind: kindName,
    ...(kind?.itemized && itemKey.trim() ? { itemKey: itemKey.trim() } : {}),
    ...(scope.trim() ? { scope: scope.trim() } : {}),
    node: cardFromDraft(draft),
    ...(draft.reason.trim() ? { reason: draft.reason.trim() } : {}),
  });
  const signatureOf = (op: ReturnType<typeof operation>) => JSON.stringify(op);
  // Any edit after the warning makes it stale: it is shown only for the operation it was asked for.
  const warning =
    pending &&
    (() => {
      try {
        return signatureOf(operation()) === pending.signature ? pending.preview : null;
      } catch {
        return null;
      }
    })();
  const refused = (refusal: { reason?: string; message: string }) =>
    refusalText(t, refusal, { kind, scope: scope.trim() });

  async function save(op: ReturnType<typeof operation>) {
    const result = await write.mutateAsync({ operations: [op] });
    const first = result.results[0];
    if (result.done && first?.nodeId) router.push(`/memories/${first.nodeId}`);
    else setError(first ? refused(first) : result.message);
  }

  async function submit(event: React.FormEvent) {
    event.preventDefault();
    setError(null);
    setPending(null);
    setChecking(true);
    try {
      const op = operation();
      const preview = await queryClient.fetchQuery({
        ...trpc.memory.previewCreate.queryOptions({ operation: op }),
        staleTime: 0,
      });
      if (!preview.ok) setError(refused(preview));
      else if (preview.replaces) setPending({ signature: signatureOf(op), preview });
      else await save(op);
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setChecking(false);
    }
  }

  async function replace() {
    setError(null);
    try {
      await save(operation());
    } catch (e) {
      setError(errorMessage(e));
    }
  }

  return (
    <form onSubmit={submit} className="space-y-6">
      <Panel title={t("create.kindAndScope")}>
        <div className="grid gap-4 text-sm md:grid-cols-2">
          <Labeled
            id={`${base}-kind`}
            label={t("field.kind")}
            hint={
              kind
                ? `${kindDescription(t, kind)} ${kind.itemized ? t("create.perItem") : t("create.singleSlot", { kind: kind.kind })}`
                : null
            }
          >
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
          <Labeled
            id={`${base}-scope`}
            label={t("field.scope")}
            hint={offered.length ? t("scope.pickHint", { scope: scope || "—" }) : t("scope.noneForKind")}
          >
            <ScopePicker id={`${base}-scope`} value={scope} onChange={setScope} choices={offered} />
          </Labeled>
          {kind?.itemized ? (
            <Labeled
              id={`${base}-item`}
              label={t("field.itemKey")}
              required={!kind.itemFrom}
              hint={t(itemHintKey(kind))}
            >
              <input
                id={`${base}-item`}
                aria-describedby={hintId(`${base}-item`)}
                required={!kind.itemFrom}
                value={itemKey}
                onChange={(e) => setItemKey(e.target.value)}
                className={inputClass}
              />
            </Labeled>
          ) : null}
        </div>
      </Panel>
      <Panel title={t("create.fields")}>
        <CardFields draft={draft} onChange={setDraft} kind={kind} />
      </Panel>
      <FormError message={error} />
      {warning ? (
        <ReplaceWarning
          preview={warning}
          busy={write.isPending}
          onReplace={() => void replace()}
          onCancel={() => setPending(null)}
        />
      ) : (
        <div className="flex justify-end gap-2">
          <button type="button" onClick={() => router.back()} className={buttonClass("ghost")}>
            {t("common.cancel")}
          </button>
          <button type="submit" disabled={write.isPending || checking} className={buttonClass("primary")}>
            {checking ? t("create.checking") : write.isPending ? t("common.working") : t("create.submit")}
          </button>
        </div>
      )}
    </form>
  );
}
