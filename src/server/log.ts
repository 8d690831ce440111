import { env } from "~/env";

const LEVELS = { debug: 10, info: 20, warn: 30, error: 40 } as const;
type Level = keyof typeof LEVELS;

// Anything shaped like one of our API keys or a bearer token is masked before it reaches a log line.
const SECRET_PATTERN = /(mem_live_[A-Za-z0-9]{4})[A-Za-z0-9]+|(Bearer\s+)\S+/g;
// A failed statement's parameters (Drizzle's "Failed query: …\nparams: …") are the user's memory: card
// text, messages, names. The statement is kept, its values are not, as written or inside JSON fields.
const QUERY_PARAMS = /(\nparams: )[\s\S]*?(?= — caused by: |$)|(\\nparams: )(?:[^"\\]|\\.)*/g;
/** What `log` writes for `text`: secrets masked, query parameters left out. */
export const maskLogText = (text: string) =>
  text
    .replace(
      QUERY_PARAMS,
      (_m, raw: string | undefined, escaped: string | undefined) => `${raw ?? escaped}(not logged)`,
    )
    .replace(SECRET_PATTERN, (_m, key: string | undefined, bearer: string | undefined) =>
      key ? `${key}…` : `${bearer}…`,
    );

// Line breaks and other control characters, wherever they come from (a database error echoing a
// forged cursor, a card's text), would let a caller start a log line of their own.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;
const ESCAPES: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };
/** `text` on one line: control characters written as escapes (\n, \u0000), so one call is one line. */
export const oneLine = (text: string) =>
  text.replace(CONTROL, (c) => ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);

export function log(level: Level, message: string, fields?: Record<string, unknown>) {
  if (LEVELS[level] < LEVELS[env.LOG_LEVEL]) return;
  const line = fields ? `${message} ${JSON.stringify(fields)}` : message;
  const out = `[memory] ${level.toUpperCase()} ${oneLine(maskLogText(line))}`;
  if (level === "error" || level === "warn") console.error(out);
  else console.log(out);
}

/**
 * An error as one line, with its causes: a driver wraps the database's own reason ("deadlock
 * detected", "relation does not exist") in `cause`, and that reason is what an operator needs.
 */
export function describeError(error: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = error, depth = 0; e !== undefined && e !== null && depth < 4; depth++) {
    parts.push(e instanceof Error ? e.message : String(e));
    e = e instanceof Error ? e.cause : undefined;
  }
  return parts.join(" — caused by: ");
}

export function logServerError(where: string, error: unknown) {
  const name = error instanceof Error ? `${error.name}: ` : "";
  log("error", `${where}: ${name}${describeError(error)}`);
}
