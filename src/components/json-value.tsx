/**
 * A card's valueJson as people read it: text as text, lists as chips, objects as labelled rows,
 * nested as far as needed; the raw JSON stays one click away.
 */
export function JsonValue({ value, rawLabel = "JSON" }: { value: unknown; rawLabel?: string }) {
  return (
    <div className="space-y-2">
      <Readable value={value} depth={0} />
      {value !== null && typeof value === "object" ? (
        <details className="text-xs text-zinc-500">
          <summary className="cursor-pointer select-none">{rawLabel}</summary>
          <pre className="mt-2 overflow-x-auto rounded-lg bg-zinc-50 p-3 text-zinc-800 dark:bg-zinc-950 dark:text-zinc-200">
            {JSON.stringify(value, null, 2)}
          </pre>
        </details>
      ) : null}
    </div>
  );
}

function Readable({ value, depth }: { value: unknown; depth: number }): React.ReactNode {
  if (value === null || value === undefined) return <span className="text-zinc-400">—</span>;
  if (typeof value === "boolean") return <span className="font-mono text-sm">{value ? "true" : "false"}</span>;
  if (typeof value === "number") return <span className="font-mono text-sm tabular-nums">{value}</span>;
  if (typeof value === "string") return <span className="whitespace-pre-wrap">{value}</span>;
  if (Array.isArray(value)) {
    if (value.every((v) => typeof v !== "object" || v === null)) {
      return (
        <span className="flex flex-wrap gap-1">
          {value.map((v, i) => (
            <span key={i} className="rounded-md bg-zinc-100 px-2 py-0.5 text-sm dark:bg-zinc-800">
              {String(v)}
            </span>
          ))}
        </span>
      );
    }
    return (
      <ol className="list-decimal space-y-1 pl-5">
        {value.map((v, i) => (
          <li key={i}>
            <Readable value={v} depth={depth + 1} />
          </li>
        ))}
      </ol>
    );
  }
  const entries = Object.entries(value as Record<string, unknown>);
  return (
    <dl
      className={`grid grid-cols-[max-content_1fr] gap-x-4 gap-y-1 text-sm ${depth ? "border-l border-zinc-200 pl-3 dark:border-zinc-800" : ""}`}
    >
      {entries.map(([k, v]) => (
        <div key={k} className="contents">
          <dt className="font-medium text-zinc-500 dark:text-zinc-400">{k}</dt>
          <dd className="min-w-0 break-words">
            <Readable value={v} depth={depth + 1} />
          </dd>
        </div>
      ))}
    </dl>
  );
}
