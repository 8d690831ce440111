"use client";

import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { useI18n } from "~/i18n/client";
import { useTRPC } from "~/trpc/react";
import { API_KEY_PERMISSIONS as PERMISSIONS, DEFAULT_API_KEY_PERMISSIONS } from "~/db/schema/permissions";
import type { RouterOutputs } from "~/trpc/types";
import { ConfirmDialog } from "../dialog";
import { FormError } from "../form";
import { LocalTime } from "../local-time";
import { Badge, buttonClass, cellClass, DataTable, EmptyState, FieldRow, inputClass, Panel } from "../ui";
import { KeySecretDialog, type NewKeySecret } from "./key-secret-dialog";
import { useAction } from "./use-action";

type ApiKey = RouterOutputs["keys"]["list"][number];
const splitList = (text: string) =>
  text
    .split(/[,\s]+/)
    .map((s) => s.trim())
    .filter(Boolean);

/** Create a key; the secret is shown once, with a copy button, and never again. */
export function CreateKeyForm({
  members,
  selfId,
}: {
  members: { userId: string; email: string }[] | null;
  selfId: string;
}) {
  const { t } = useI18n();
  const trpc = useTRPC();
  const create = useMutation(trpc.keys.create.mutationOptions());
  const { run, error, pending } = useAction();
  const [form, setForm] = useState({
    name: "",
    owner: selfId,
    scopes: "",
    permissions: [...DEFAULT_API_KEY_PERMISSIONS],
    expires: "",
  });
  const [secret, setSecret] = useState<NewKeySecret | null>(null);
  return (
    <Panel title={t("keys.create")} description={t("keys.createHint")}>
      <form
        className="grid gap-3 text-sm md:grid-cols-2"
        onSubmit={async (e) => {
          e.preventDefault();
          const scopes = splitList(form.scopes);
          const result = await run(() =>
            create.mutateAsync({
              name: form.name,
              permissions: form.permissions,
              ...(form.owner !== selfId ? { ownerUserId: form.owner } : {}),
              ...(scopes.length ? { scopes } : {}),
              ...(form.expires ? { expiresAt: new Date(`${form.expires}T23:59:59`).toISOString() } : {}),
            }),
          );
          if (result) {
            setSecret({ name: result.apiKey.name, value: result.secret, withoutReach: result.scopesWithoutReach });
            setForm({ ...form, name: "", scopes: "", expires: "" });
          }
        }}
      >
        <FieldRow label={t("keys.name")} required>
          <input
            required
            maxLength={100}
            value={form.name}
            onChange={(e) => setForm({ ...form, name: e.target.value })}
            className={inputClass}
          />
        </FieldRow>
        {members ? (
          <FieldRow label={t("keys.owner")}>
            <select
              value={form.owner}
              onChange={(e) => setForm({ ...form, owner: e.target.value })}
              className={inputClass}
            >
              {members.map((m) => (
                <option key={m.userId} value={m.userId}>
                  {m.email}
                </option>
              ))}
            </select>
          </FieldRow>
        ) : null}
        <FieldRow label={t("keys.scopes")}>
          <input
            value={form.scopes}
            onChange={(e) => setForm({ ...form, scopes: e.target.value })}
            placeholder={t("keys.scopesHint")}
            className={`font-mono ${inputClass}`}
          />
        </FieldRow>
        <FieldRow label={t("keys.expires")}>
          <input
            type="date"
            value={form.expires}
            onChange={(e) => setForm({ ...form, expires: e.target.value })}
            className={inputClass}
          />
        </FieldRow>
        <FieldRow group label={t("keys.permissions")} className="md:col-span-2">
          <div className="flex flex-wrap gap-4">
            {PERMISSIONS.map((p) => (
              <label key={p} className="flex items-center gap-1.5 font-mono text-xs">
                <input
                  type="checkbox"
                  checked={form.permissions.includes(p)}
                  onChange={(e) =>
                    setForm({
                      ...form,
                      permissions: e.target.checked
                        ? [...form.permissions, p]
                        : form.permissions.filter((x) => x !== p),
                    })
                  }
                />
                {p}
              </label>
            ))}
          </div>
        </FieldRow>
        <div className="md:col-span-2">
          <FormError message={error} />
          <button
            type="submit"
            disabled={pending || form.permissions.length === 0}
            className={`mt-2 ${buttonClass("primary")}`}
          >
            {pending ? t("common.working") : t("keys.createButton")}
          </button>
        </div>
      </form>
      <KeySecretDialog secret={secret} onClose={() => setSecret(null)} />
    </Panel>
  );
}

const STATUS_TONE = { active: "green", revoked: "red", expired: "amber" } as const;

/** Keys with their limits and last use; revoking asks once. */
export function KeysTable({ keys }: { keys: ApiKey[] }) {
  const { t } = useI18n();
  const trpc = useTRPC();
  const revoke = useMutation(trpc.keys.revoke.mutationOptions());
  const { run, error, pending } = useAction();
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  if (keys.length === 0) return <EmptyState title={t("keys.emptyTitle")} description={t("keys.emptyHint")} />;
  return (
    <>
      <FormError message={error} />
      <DataTable
        label={t("keys.title")}
        head={[
          t("keys.name"),
          t("keys.owner"),
          t("keys.scopes"),
          t("keys.permissions"),
          t("field.status"),
          t("keys.lastUsed"),
          t("keys.expires"),
          "",
        ]}
      >
        {keys.map((k) => (
          <tr key={k.id}>
            <td className={cellClass}>
              <span className="font-medium">{k.name}</span>
              <span className="block font-mono text-xs text-zinc-500">{k.prefix}…</span>
            </td>
            <td className={`${cellClass} text-xs`}>{k.ownerEmail ?? k.ownerUserId}</td>
            <td className={`${cellClass} font-mono text-xs`}>{k.scopes.join(", ") || "—"}</td>
            <td className={`${cellClass} font-mono text-xs`}>{k.permissions.join(", ")}</td>
            <td className={cellClass}>
              <Badge tone={STATUS_TONE[k.status]}>{t(`keys.status.${k.status}`)}</Badge>
            </td>
            <td className={`${cellClass} text-xs text-zinc-500`}>
              <LocalTime value={k.lastUsedAt} />
            </td>
            <td className={`${cellClass} text-xs text-zinc-500`}>
              <LocalTime value={k.expiresAt} />
            </td>
            <td className={`${cellClass} text-right`}>
              {k.status === "active" ? (
                <button type="button" onClick={() => setRevoking(k)} className={buttonClass("ghost", "sm")}>
                  {t("keys.revoke")}
                </button>
              ) : null}
            </td>
          </tr>
        ))}
      </DataTable>
      <ConfirmDialog
        target={revoking}
        onClose={() => setRevoking(null)}
        title={t("keys.revokeTitle")}
        message={(key) => t("keys.revokeHint", { name: key.name })}
        cancelLabel={t("common.cancel")}
        confirmLabel={t("keys.revoke")}
        pending={pending}
        onConfirm={(key) => run(() => revoke.mutateAsync({ keyId: key.id }))}
      />
    </>
  );
}
