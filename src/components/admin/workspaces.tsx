"use client";

import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { useI18n } from "~/i18n/client";
import { WORKSPACE_ID_PATTERN, workspaceIdFromName } from "~/server/dashboard/workspace-id";
import { useTRPC } from "~/trpc/react";
import { FormError } from "../form";
import { buttonClass, FieldRow, inputClass, Panel } from "../ui";
import { useAction } from "./use-action";

/** Creates a workspace (a project inside the organisation); the table below lists it once saved. */
export function CreateWorkspaceForm() {
  const { t } = useI18n();
  const trpc = useTRPC();
  const router = useRouter();
  const create = useMutation(trpc.admin.workspaces.create.mutationOptions());
  const { run, error, pending } = useAction();
  const [form, setForm] = useState({ name: "", id: "" });
  const [created, setCreated] = useState<string | null>(null);
  return (
    <Panel title={t("workspaces.create")} description={t("workspaces.createHint")}>
      <form
        className="grid gap-3 text-sm md:grid-cols-5"
        onSubmit={async (e) => {
          e.preventDefault();
          const result = await run(() =>
            create.mutateAsync({ name: form.name, ...(form.id.trim() ? { id: form.id.trim() } : {}) }),
          );
          if (result) {
            setCreated(result.scope);
            setForm({ name: "", id: "" });
            router.refresh();
          }
        }}
      >
        <FieldRow label={t("workspaces.name")} required className="md:col-span-2">
          <input
            required
            maxLength={100}
            value={form.name}
            onChange={(e) => setForm({ ...form, name: e.target.value })}
            className={inputClass}
          />
        </FieldRow>
        <FieldRow label={t("workspaces.id")} className="md:col-span-2">
          <input
            value={form.id}
            maxLength={64}
            pattern={WORKSPACE_ID_PATTERN}
            placeholder={form.name.trim() ? workspaceIdFromName(form.name) : t("workspaces.idHint")}
            onChange={(e) => setForm({ ...form, id: e.target.value })}
            className={`font-mono ${inputClass}`}
          />
        </FieldRow>
        <div className="flex items-end">
          <button type="submit" disabled={pending} className={buttonClass("primary")}>
            {pending ? t("common.working") : t("workspaces.createButton")}
          </button>
        </div>
        <div className="md:col-span-5">
          {created ? (
            <p role="status" className="text-emerald-700">
              {t("workspaces.created", { scope: created })}
            </p>
          ) : null}
          <FormError message={error} />
        </div>
      </form>
    </Panel>
  );
}
