import Link from "next/link";

/** Shared dashboard building blocks: cards, badges, empty / error / loading states, pagers. */

export function Panel({
  title,
  description,
  actions,
  children,
  className = "",
  id,
}: {
  title?: React.ReactNode;
  description?: React.ReactNode;
  actions?: React.ReactNode;
  children: React.ReactNode;
  className?: string;
  id?: string;
}) {
  return (
    <section
      id={id}
      aria-label={typeof title === "string" ? title : undefined}
      className={`rounded-2xl border border-zinc-200 bg-white p-5 shadow-sm dark:border-zinc-800 dark:bg-zinc-900 ${className}`}
    >
      {title || actions ? (
        <div className="mb-4 flex flex-wrap items-start justify-between gap-3">
          <div>
            {title ? <h2 className="font-semibold">{title}</h2> : null}
            {description ? <p className="mt-0.5 text-sm text-zinc-500 dark:text-zinc-400">{description}</p> : null}
          </div>
          {actions}
        </div>
      ) : null}
      {children}
    </section>
  );
}

export type Tone = "zinc" | "indigo" | "green" | "amber" | "red" | "sky";
const TONES: Record<Tone, string> = {
  zinc: "bg-zinc-100 text-zinc-700 dark:bg-zinc-800 dark:text-zinc-300",
  indigo: "bg-indigo-50 text-indigo-700 dark:bg-indigo-950 dark:text-indigo-300",
  green: "bg-emerald-50 text-emerald-700 dark:bg-emerald-950 dark:text-emerald-300",
  amber: "bg-amber-50 text-amber-800 dark:bg-amber-950 dark:text-amber-300",
  red: "bg-red-50 text-red-700 dark:bg-red-950 dark:text-red-300",
  sky: "bg-sky-50 text-sky-700 dark:bg-sky-950 dark:text-sky-300",
};

export function Badge({ tone = "zinc", children, title }: { tone?: Tone; children: React.ReactNode; title?: string }) {
  return (
    <span
      title={title}
      className={`inline-flex items-center rounded-full px-2 py-0.5 text-xs font-medium whitespace-nowrap ${TONES[tone]}`}
    >
      {children}
    </span>
  );
}

/** Card status → colour: active green, superseded grey, expired amber, deleted red. */
export const STATUS_TONE: Record<string, Tone> = {
  active: "green",
  superseded: "zinc",
  expired: "amber",
  deleted: "red",
};

export function EmptyState({
  title,
  description,
  action,
}: {
  title: string;
  description?: React.ReactNode;
  action?: React.ReactNode;
}) {
  return (
    <div
      role="status"
      className="rounded-2xl border border-dashed border-zinc-300 bg-white px-6 py-10 text-center dark:border-zinc-700 dark:bg-zinc-900"
    >
      <p className="font-medium">{title}</p>
      {description ? (
        <p className="mx-auto mt-1 max-w-md text-sm text-zinc-500 dark:text-zinc-400">{description}</p>
      ) : null}
      {action ? <div className="mt-4">{action}</div> : null}
    </div>
  );
}

export function ErrorState({ title, message, action }: { title: string; message: string; action?: React.ReactNode }) {
  return (
    <div
      role="alert"
      className="rounded-2xl border border-red-200 bg-red-50 px-6 py-6 text-sm text-red-800 dark:border-red-900 dark:bg-red-950/50 dark:text-red-200"
    >
      <p className="font-semibold">{title}</p>
      <p className="mt-1">{message}</p>
      {action ? <div className="mt-3">{action}</div> : null}
    </div>
  );
}

/** Grey placeholder bars while a page streams in. */
export function Skeleton({ rows = 6, label }: { rows?: number; label: string }) {
  return (
    <div role="status" aria-label={label} aria-busy="true" className="space-y-3">
      {Array.from({ length: rows }, (_, i) => (
        <div key={i} className="h-10 animate-pulse rounded-xl bg-zinc-200/70 dark:bg-zinc-800" />
      ))}
      <span className="sr-only">{label}</span>
    </div>
  );
}

const BUTTONS = {
  primary: "bg-indigo-600 text-white shadow-sm hover:bg-indigo-500",
  secondary:
    "border border-zinc-300 bg-white text-zinc-800 hover:bg-zinc-50 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100 dark:hover:bg-zinc-800",
  danger: "bg-red-600 text-white shadow-sm hover:bg-red-500",
  ghost: "text-zinc-600 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800",
} as const;
export type ButtonVariant = keyof typeof BUTTONS;

export const buttonClass = (variant: ButtonVariant = "secondary", size: "sm" | "md" = "md") =>
  `inline-flex items-center justify-center gap-1.5 rounded-lg font-medium whitespace-nowrap disabled:cursor-not-allowed disabled:opacity-50 ${size === "sm" ? "px-2.5 py-1 text-xs" : "px-3.5 py-2 text-sm"} ${BUTTONS[variant]}`;

export const inputClass =
  "block w-full rounded-lg border border-zinc-300 bg-white px-3 py-2 text-sm shadow-sm outline-none focus:border-indigo-500 focus:ring-2 focus:ring-indigo-500/30 dark:border-zinc-700 dark:bg-zinc-950";

/** A file picker that looks like a control: a bordered field whose "choose file" part is a button. */
export const fileInputClass =
  "block w-full cursor-pointer rounded-lg border border-zinc-300 bg-white text-sm text-zinc-700 shadow-sm focus:border-indigo-500 focus:ring-2 focus:ring-indigo-500/30 focus:outline-none dark:border-zinc-700 dark:bg-zinc-950 dark:text-zinc-300 file:mr-3 file:cursor-pointer file:border-0 file:border-r file:border-zinc-300 file:bg-zinc-100 file:px-3.5 file:py-2 file:text-sm file:font-medium file:text-zinc-800 hover:file:bg-zinc-200 dark:file:border-zinc-700 dark:file:bg-zinc-800 dark:file:text-zinc-100 dark:hover:file:bg-zinc-700";

export function LinkButton({
  href,
  variant = "secondary",
  size = "md",
  children,
  ...rest
}: { href: string; variant?: ButtonVariant; size?: "sm" | "md"; children: React.ReactNode } & Omit<
  React.AnchorHTMLAttributes<HTMLAnchorElement>,
  "href" | "className"
>) {
  return (
    <Link href={href} className={buttonClass(variant, size)} {...rest}>
      {children}
    </Link>
  );
}

/** Keyset pager: "first page" and "next page" links (the browser's back button goes to the previous page). */
export function Pager({
  firstHref,
  nextHref,
  firstLabel,
  nextLabel,
  summary,
}: {
  firstHref?: string | null;
  nextHref?: string | null;
  firstLabel: string;
  nextLabel: string;
  summary?: React.ReactNode;
}) {
  if (!firstHref && !nextHref && !summary) return null;
  return (
    <nav aria-label="Pagination" className="mt-4 flex items-center justify-between gap-3 text-sm">
      <span className="text-zinc-500 dark:text-zinc-400">{summary}</span>
      <span className="flex gap-2">
        {firstHref ? (
          <LinkButton href={firstHref} size="sm">
            {firstLabel}
          </LinkButton>
        ) : null}
        {nextHref ? (
          <LinkButton href={nextHref} size="sm" variant="primary">
            {nextLabel}
          </LinkButton>
        ) : null}
      </span>
    </nav>
  );
}

/** A two-column list of labelled values. */
export function Fields({ items }: { items: { label: string; value: React.ReactNode }[] }) {
  return (
    <dl className="grid grid-cols-1 gap-x-6 gap-y-3 text-sm sm:grid-cols-2 lg:grid-cols-3">
      {items.map((item) => (
        <div key={item.label} className="min-w-0">
          <dt className="text-xs font-medium tracking-wide text-zinc-500 uppercase dark:text-zinc-400">{item.label}</dt>
          <dd className="mt-0.5 break-words">{item.value}</dd>
        </div>
      ))}
    </dl>
  );
}

/**
 * Table chrome shared by every list: scrolls sideways on small screens, zebra-free, compact. With
 * `cardsOnPhone`, below the md breakpoint every row is a card of stacked cells (rows use
 * `stackedRowClass`, cells `stackedCellClass`) and nothing scrolls sideways.
 */
export function DataTable({
  label,
  head,
  children,
  cardsOnPhone = false,
}: {
  label: string;
  head: React.ReactNode[];
  children: React.ReactNode;
  cardsOnPhone?: boolean;
}) {
  return (
    <div className="overflow-x-auto rounded-2xl border border-zinc-200 bg-white shadow-sm dark:border-zinc-800 dark:bg-zinc-900">
      <table aria-label={label} className={`w-full text-left text-sm ${cardsOnPhone ? "block md:table" : ""}`}>
        <thead
          className={`border-b border-zinc-200 text-xs tracking-wide text-zinc-500 uppercase dark:border-zinc-800 dark:text-zinc-400 ${cardsOnPhone ? "hidden md:table-header-group" : ""}`}
        >
          <tr>
            {head.map((h, i) => (
              <th key={i} scope="col" className="px-4 py-3 font-medium whitespace-nowrap">
                {h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody
          className={`divide-y divide-zinc-100 dark:divide-zinc-800 ${cardsOnPhone ? "block md:table-row-group" : ""}`}
        >
          {children}
        </tbody>
      </table>
    </div>
  );
}

export const cellClass = "px-4 py-3 align-top";
/** A row of a `cardsOnPhone` table: a padded card on phones, a table row from md up. */
export const stackedRowClass = "block px-4 py-3 md:table-row md:p-0";
/** A cell of a `cardsOnPhone` table: one line of the card on phones, a table cell from md up. */
export const stackedCellClass = "block py-0.5 align-top md:table-cell md:px-4 md:py-3";

/** 0.87 → a small bar with the number, for confidence / importance. */
export function Meter({ value, label }: { value: number; label: string }) {
  const pct = Math.round(Math.max(0, Math.min(1, value)) * 100);
  return (
    <span className="inline-flex items-center gap-2" title={`${label}: ${value.toFixed(2)}`}>
      <span aria-hidden className="h-1.5 w-12 overflow-hidden rounded-full bg-zinc-200 dark:bg-zinc-800">
        <span className="block h-full rounded-full bg-indigo-500" style={{ width: `${pct}%` }} />
      </span>
      <span className="tabular-nums text-xs text-zinc-600 dark:text-zinc-400">{value.toFixed(2)}</span>
    </span>
  );
}

export const labelClass = "block text-sm font-medium text-zinc-700 dark:text-zinc-300";

/** The class of a required field's label text: a visible asterisk (globals.css), silent for screen readers. */
export const requiredLabelClass = "label-required";
export const hintId = (id: string) => `${id}-hint`;

/**
 * A label, its control and an optional hint, tied together by id (`htmlFor`, `aria-describedby` on
 * the control via hintId(id)), so the control's accessible name is exactly the label.
 */
export function Labeled({
  id,
  label,
  hint,
  required = false,
  children,
  className = "",
}: {
  id: string;
  label: React.ReactNode;
  hint?: React.ReactNode;
  required?: boolean;
  children: React.ReactNode;
  className?: string;
}) {
  return (
    <div className={className}>
      <label htmlFor={id} className={required ? `${labelClass} ${requiredLabelClass}` : labelClass}>
        {label}
      </label>
      <div className="mt-1">{children}</div>
      {hint ? (
        <p id={hintId(id)} className="mt-1 text-xs text-zinc-500">
          {hint}
        </p>
      ) : null}
    </div>
  );
}

/**
 * One labelled form row: the label's text above its control, both inside one `<label>` (so the
 * control's accessible name is the label and a click on the text focuses it). With `group`, a
 * `<fieldset>` whose `<legend>` names a set of controls (checkboxes, a min / max pair). `muted`
 * greys the label text (filter panels); `className` goes on the row (text size, grid span);
 * `required` shows the required mark (the control itself carries `required`).
 */
export function FieldRow({
  label,
  group = false,
  muted = false,
  required = false,
  className = "",
  children,
}: {
  label: React.ReactNode;
  group?: boolean;
  muted?: boolean;
  required?: boolean;
  className?: string;
  children: React.ReactNode;
}) {
  const text = `${muted ? "font-medium text-zinc-700 dark:text-zinc-300" : "font-medium"}${required ? ` ${requiredLabelClass}` : ""}`;
  if (group) {
    return (
      <fieldset className={className || undefined}>
        <legend className={text}>{label}</legend>
        <div className="mt-1">{children}</div>
      </fieldset>
    );
  }
  return (
    <label className={className ? `block ${className}` : "block"}>
      <span className={text}>{label}</span>
      <span className="mt-1 block">{children}</span>
    </label>
  );
}
