import { env } from "~/env";

const LEVELS = { debug: 10, info: 20, warn: 30, error: 40 } as const;
type Level = keyof typeof LEVELS;

// Anything shaped like one of our API keys or a bearer token is masked before it reaches a log line.
const SECRET_PATTERN = /(mem_live_[A-Za-z0-9]{4})[A-Za-z0-9]+|(Bearer\s+)\S+/g;
const mask = (text: string) => text.replace(SECRET_PATTERN, (_m, key: string | undefined, bearer: string | undefined) => (key ? `${key}…` : `${bearer}…`));

export function log(level: Level, message: string, fields?: Record<string, unknown>) {
  if (LEVELS[level] < LEVELS[env.LOG_LEVEL]) return;
  const line = fields ? `${message} ${JSON.stringify(fields)}` : message;
  const out = `[memory] ${level.toUpperCase()} ${mask(line)}`;
  if (level === "error" || level === "warn") console.error(out);
  else console.log(out);
}

export function logServerError(where: string, error: unknown) {
  const detail = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  log("error", `${where}: ${detail}`);
}
