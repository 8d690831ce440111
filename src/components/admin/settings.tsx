"use client";

import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { useI18n } from "~/i18n/client";
import { useTRPC } from "~/trpc/react";
import type { RouterOutputs } from "~/trpc/types";
import { FormError } from "../form";
import { Badge, buttonClass, FieldRow, inputClass, Panel } from "../ui";
import { useAction } from "./use-action";

type Policy = { writePolicy: "any" | "explicit-only"; sensitivePolicy: "reject" | "redact" };
type CustomKind = RouterOutputs["admin"]["kinds"]["list"][number];

/** The organisation's write and sensitive-data policy (organization.updatePolicy, audited). */
export function PolicyForm({ initial }: { initial: Policy }) {
  const { t } = useI18n();
  const trpc = useTRPC();
  const update = useMutation(trpc.organization.updatePolicy.mutationOptions());
  const { run, error, pending } = useAction();
  const [policy, setPolicy] = useState(initial);
  const [saved, setSaved] = useState(false);
  const radio = <K extends keyof Policy>(name: K, value: Policy[K], label: string, hint: string) => (
    <label className="flex gap-2">
      <input
        type="radio"
        name={name}
        checked={policy[name] === value}
        onChange={() => setPolicy({ ...policy, [name]: value })}
        className="mt-1"
      />
      <span>
        <span className="font-medium">{label}</span>
        <span className="block text-xs text-zinc-500">{hint}</span>
      </span>
    </label>
  );
  return (
    <Panel title={t("settings.policy")}>
      <form
        className="space-y-4 text-sm"
        onSubmit={async (e) => {
          e.preventDefault();
          setSaved(false);
          if (await run(() => update.mutateAsync(policy))) setSaved(true);
        }}
      >
        <fieldset className="space-y-2">
          <legend className="mb-1 font-semibold">{t("settings.writePolicy")}</legend>
          {radio("writePolicy", "any", t("settings.writeAny"), t("settings.writeAnyHint"))}
          {radio("writePolicy", "explicit-only", t("settings.writeExplicit"), t("settings.writeExplicitHint"))}
        </fieldset>
        <fieldset className="space-y-2">
          <legend className="mb-1 font-semibold">{t("settings.sensitivePolicy")}</legend>
          {radio("sensitivePolicy", "reject", t("settings.sensitiveReject"), t("settings.sensitiveRejectHint"))}
          {radio("sensitivePolicy", "redact", t("settings.sensitiveRedact"), t("settings.sensitiveRedactHint"))}
        </fieldset>
        <div className="flex items-center gap-3">
          <button type="submit" disabled={pending} className={buttonClass("primary")}>
            {pending ? t("common.working") : t("common.save")}
          </button>
          {saved ? (
            <span role="status" className="text-emerald-700">
              {t("settings.saved")}
            </span>
          ) : null}
        </div>
        <FormError message={error} />
      </form>
    </Panel>
  );
}

const TEMPLATE = JSON.stringify(
  {
    kind: "hobby",
    key: "profile.hobby",
    domain: "profile",
    categoryPath: ["profile", "hobbies"],
    type: "preference",
    itemized: true,
    valueShape: "string",
    defaultScope: "user",
    requiresExplicitIntent: true,
    alwaysRecall: false,
    description: "A hobby the user enjoys, one card per hobby.",
  },
  null,
  2,
);

/** This organisation's own kinds next to the built-in registry: list, add/replace from JSON, delete. */
export function CustomKinds({ kinds }: { kinds: CustomKind[] }) {
  const { t } = useI18n();
  const trpc = useTRPC();
  const save = useMutation(trpc.admin.kinds.save.mutationOptions());
  const remove = useMutation(trpc.admin.kinds.remove.mutationOptions());
  const { run, error, pending, setError } = useAction();
  const [json, setJson] = useState(TEMPLATE);
  return (
    <Panel title={t("settings.kinds")} description={t("settings.kindsHint")}>
      {kinds.length === 0 ? (
        <p className="mb-4 text-sm text-zinc-500">{t("settings.noKinds")}</p>
      ) : (
        <ul className="mb-4 space-y-2 text-sm">
          {kinds.map((k) => (
            <li
              key={k.kind}
              className="flex flex-wrap items-center justify-between gap-2 rounded-xl border border-zinc-100 p-3 dark:border-zinc-800"
            >
              <span>
                <span className="font-mono font-medium">{k.kind}</span>{" "}
                <span className="font-mono text-xs text-zinc-500">{k.key}</span> <Badge>{k.type}</Badge>{" "}
                {k.itemized ? <Badge tone="sky">itemized</Badge> : null}{" "}
                {k.alwaysRecall ? (
                  <Badge tone="indigo" title={t("settings.alwaysRecallHint")}>
                    {t("settings.alwaysRecall")}
                  </Badge>
                ) : null}
                <span className="block text-xs text-zinc-500">{k.description}</span>
              </span>
              <span className="flex gap-2">
                <button
                  type="button"
                  className={buttonClass("ghost", "sm")}
                  onClick={() => setJson(JSON.stringify(k, null, 2))}
                >
                  {t("card.edit")}
                </button>
                <button
                  type="button"
                  disabled={pending}
                  className={buttonClass("ghost", "sm")}
                  onClick={() => void run(() => remove.mutateAsync({ kind: k.kind }))}
                >
                  {t("members.remove")}
                </button>
              </span>
            </li>
          ))}
        </ul>
      )}
      <form
        className="space-y-2 text-sm"
        onSubmit={async (e) => {
          e.preventDefault();
          let definition: Record<string, unknown>;
          try {
            definition = JSON.parse(json) as Record<string, unknown>;
          } catch {
            setError(t("settings.invalidJson"));
            return;
          }
          await run(() => save.mutateAsync({ definition }));
        }}
      >
        <FieldRow label={t("settings.kindJson")} required>
          <textarea
            required
            rows={12}
            value={json}
            onChange={(e) => setJson(e.target.value)}
            spellCheck={false}
            className={`font-mono text-xs ${inputClass}`}
          />
        </FieldRow>
        <FormError message={error} />
        <button type="submit" disabled={pending} className={buttonClass("primary")}>
          {t("settings.saveKind")}
        </button>
      </form>
    </Panel>
  );
}
