"use client";

import { useI18n } from "~/i18n/client";

/** A timestamp in the viewer's language and time zone (machine-readable in `dateTime`). */
export function LocalTime({
  value,
  style = "datetime",
}: {
  value: string | null | undefined;
  style?: "datetime" | "date";
}) {
  const { date } = useI18n();
  if (!value) return <span>—</span>;
  return (
    <time dateTime={value} title={value} suppressHydrationWarning>
      {date(value, style)}
    </time>
  );
}
