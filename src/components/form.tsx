import { requiredLabelClass } from "./ui";

/** Small form primitives shared by the auth pages and later dashboard forms. */
export function Field({ label, ...props }: { label: string } & React.InputHTMLAttributes<HTMLInputElement>) {
  return (
    <label className="block">
      <span
        className={`text-sm font-medium text-zinc-700 dark:text-zinc-300${props.required ? ` ${requiredLabelClass}` : ""}`}
      >
        {label}
      </span>
      <input
        {...props}
        className="mt-1 block w-full rounded-lg border border-zinc-300 bg-white px-3 py-2 text-sm shadow-sm outline-none focus:border-indigo-500 focus:ring-2 focus:ring-indigo-500/30 dark:border-zinc-700 dark:bg-zinc-950"
      />
    </label>
  );
}

export function SubmitButton({
  pending,
  pendingLabel = "Please wait…",
  children,
}: {
  pending: boolean;
  pendingLabel?: string;
  children: React.ReactNode;
}) {
  return (
    <button
      type="submit"
      disabled={pending}
      className="w-full rounded-lg bg-indigo-600 px-4 py-2 text-sm font-medium text-white shadow-sm hover:bg-indigo-500 disabled:cursor-wait disabled:opacity-60"
    >
      {pending ? pendingLabel : children}
    </button>
  );
}

export function FormError({ message }: { message: string | null }) {
  if (!message) return null;
  return (
    <p
      role="alert"
      className="rounded-lg bg-red-50 px-3 py-2 text-sm text-red-700 dark:bg-red-950/50 dark:text-red-300"
    >
      {message}
    </p>
  );
}
