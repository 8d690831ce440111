"use client";

import { useId } from "react";
import { useI18n } from "~/i18n/client";
import type { KindOption } from "~/trpc/types";
import { inputClass, Labeled } from "../ui";
import type { CardDraft } from "./card-draft";
import { ValueField } from "./value-field";

/** The title / content / value / tags / scores / expiry inputs shared by create, edit and supersede. */
export function CardFields({
  draft,
  onChange,
  kind,
  withReason = true,
}: {
  draft: CardDraft;
  onChange: (draft: CardDraft) => void;
  kind?: KindOption;
  withReason?: boolean;
}) {
  const { t } = useI18n();
  const base = useId();
  const id = (name: keyof CardDraft) => `${base}-${name}`;
  const set = (name: keyof CardDraft) => (event: React.ChangeEvent<HTMLInputElement | HTMLTextAreaElement>) =>
    onChange({ ...draft, [name]: event.target.value });
  const score = (name: "confidence" | "importance") => (
    <Labeled id={id(name)} label={t(`field.${name}`)}>
      <input
        id={id(name)}
        type="number"
        min={0}
        max={1}
        step={0.01}
        value={draft[name]}
        onChange={set(name)}
        className={inputClass}
      />
    </Labeled>
  );
  return (
    <div className="space-y-3 text-sm">
      <Labeled id={id("title")} label={t("field.title")} required>
        <input
          id={id("title")}
          required
          maxLength={300}
          value={draft.title}
          onChange={set("title")}
          className={inputClass}
        />
      </Labeled>
      <Labeled id={id("content")} label={t("field.content")} required>
        <textarea
          id={id("content")}
          required
          maxLength={4000}
          rows={3}
          value={draft.content}
          onChange={set("content")}
          className={inputClass}
        />
      </Labeled>
      <ValueField id={id("value")} draft={draft} onChange={onChange} kind={kind} />
      <div className="grid gap-3 sm:grid-cols-2">
        <Labeled id={id("tags")} label={t("field.tags")}>
          <input
            id={id("tags")}
            value={draft.tags}
            onChange={set("tags")}
            placeholder={t("memories.tagsHint")}
            className={inputClass}
          />
        </Labeled>
        <Labeled id={id("entities")} label={t("field.entities")}>
          <input
            id={id("entities")}
            value={draft.entities}
            onChange={set("entities")}
            placeholder={t("memories.tagsHint")}
            className={inputClass}
          />
        </Labeled>
        {score("confidence")}
        {score("importance")}
        <Labeled id={id("expiresAt")} label={t("field.expiresAt")}>
          <input
            id={id("expiresAt")}
            type="datetime-local"
            value={draft.expiresAt}
            onChange={set("expiresAt")}
            className={inputClass}
          />
        </Labeled>
        {withReason ? (
          <Labeled id={id("reason")} label={t("field.reason")}>
            <input
              id={id("reason")}
              maxLength={500}
              value={draft.reason}
              onChange={set("reason")}
              placeholder={t("card.reasonHint")}
              className={inputClass}
            />
          </Labeled>
        ) : null}
      </div>
    </div>
  );
}
