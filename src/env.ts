import { z } from "zod";
import { defaultDbPoolMax } from "./db/pool-size";

/**
 * The only place that reads process.env. Everything else imports `env`.
 * Parsed once at import; a bad value stops start-up with the variable's name.
 */
const booleanFlag = z
  .enum(["true", "false", "1", "0", ""])
  .optional()
  .transform((v) => v === "true" || v === "1");

const emptyToUndefined = (v: unknown) => (v === "" ? undefined : v);

const schema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  /** Server mode when set (postgres://…); embedded PGlite otherwise. */
  DATABASE_URL: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .regex(/^postgres(ql)?:\/\//, "must start with postgres://")
      .optional(),
  ),
  /**
   * Hot standbys of DATABASE_URL (streaming replication), comma-separated: agents' and the dashboard's
   * read-only work goes there (docs/operations.md, Scaling). Server mode only; empty: everything on DATABASE_URL.
   */
  DATABASE_READ_URL: z
    .string()
    .default("")
    .transform((v) =>
      v
        .split(",")
        .map((u) => u.trim())
        .filter(Boolean),
    )
    .pipe(z.array(z.string().regex(/^postgres(ql)?:\/\//, "each URL must start with postgres://"))),
  /** A replica whose replay is further behind the primary than this takes no reads until it catches up. */
  DATABASE_READ_MAX_LAG_MS: z.coerce.number().int().min(10).max(3_600_000).default(5000),
  /**
   * After a write, the same API key or person reads from a replica only once it has replayed that
   * write, for this long (then any replica within DATABASE_READ_MAX_LAG_MS is good enough).
   */
  DATABASE_READ_YOUR_WRITES_MS: z.coerce.number().int().min(0).max(3_600_000).default(15_000),
  /**
   * A read on a replica may take this long (statement_timeout on replica connections; the client also
   * stops waiting shortly after): then it runs again on the primary, so a stuck standby never holds a request.
   */
  DATABASE_READ_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(30_000),
  /**
   * Bearer token for GET /api/metrics (Prometheus). Unset: /api/metrics answers requests from this
   * machine (loopback, no proxy header, TRUST_PROXY off) only, and only where npm start serves it.
   */
  METRICS_TOKEN: z.preprocess(emptyToUndefined, z.string().min(16, "use at least 16 characters").optional()),
  /** Where embedded mode keeps its database, backups and generated secret. */
  MEMORY_DATA_DIR: z.string().default("./data"),
  /** Connections per process (default: defaultDbPoolMax, twice the cores within 4–10). */
  DB_POOL_MAX: z.coerce.number().int().min(1).max(200).default(defaultDbPoolMax()),
  /**
   * Named prepared statements per connection (server mode). Off only behind a pooler that cannot
   * keep them (PgBouncer in transaction mode before 1.21): then every statement with parameters
   * costs two round trips instead of one.
   */
  DB_PREPARED_STATEMENTS: z
    .enum(["true", "false", "1", "0"])
    .default("true")
    .transform((v) => v === "true" || v === "1"),
  /** next-auth signing secret; embedded installs generate and keep one under MEMORY_DATA_DIR. */
  NEXTAUTH_SECRET: z.preprocess(emptyToUndefined, z.string().min(16).optional()),
  NEXTAUTH_URL: z.preprocess(emptyToUndefined, z.string().url().optional()),
  /** Browser origins besides this server's own that may call /api/mcp (comma-separated; `*` for any). */
  MCP_ALLOWED_ORIGINS: z
    .string()
    .default("")
    .transform((v) =>
      v
        .split(",")
        .map((o) => o.trim().replace(/\/+$/, ""))
        .filter(Boolean),
    ),
  PORT: z.coerce.number().int().default(3000),
  /**
   * Hours a dashboard session lasts without use; each use moves the end forward (sliding). Sign-out, a
   * password reset, removal from an organisation and "sign out everywhere" end sessions at once.
   */
  SESSION_MAX_AGE_HOURS: z.coerce
    .number()
    .int()
    .min(1)
    .max(24 * 90)
    .default(24),
  /**
   * Behind a reverse proxy that sets X-Forwarded-For: take the client's address from its last entry (what
   * the proxy saw) for sign-in throttling. Off: the address the server's socket saw (npm start).
   */
  TRUST_PROXY: booleanFlag,
  /** Anyone may create an account (each gets an own tenant). Off: only the first account, then admins add people. */
  MEMORY_OPEN_SIGNUP: booleanFlag,
  GITHUB_ID: z.preprocess(emptyToUndefined, z.string().optional()),
  GITHUB_SECRET: z.preprocess(emptyToUndefined, z.string().optional()),
  OIDC_ISSUER: z.preprocess(emptyToUndefined, z.string().url().optional()),
  OIDC_CLIENT_ID: z.preprocess(emptyToUndefined, z.string().optional()),
  OIDC_CLIENT_SECRET: z.preprocess(emptyToUndefined, z.string().optional()),
  OIDC_NAME: z.string().default("SSO"),
  /** Optional OpenAI-compatible chat model for deep scoring, extraction and summaries; rules are used without it. */
  LLM_BASE_URL: z.preprocess(emptyToUndefined, z.string().url().optional()),
  LLM_API_KEY: z.preprocess(emptyToUndefined, z.string().optional()),
  LLM_MODEL: z.preprocess(emptyToUndefined, z.string().optional()),
  LLM_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(20_000),
  /** At most this many cards the background extractor writes from one session's messages of any hour (0: none). */
  EXTRACT_MAX_CARDS_PER_SESSION_HOUR: z.coerce.number().int().min(0).max(100_000).default(60),
  /** Run the job worker inside the web server process (default on); `npm run worker` runs more. */
  MEMORY_INLINE_WORKER: z
    .enum(["true", "false", "1", "0"])
    .default("true")
    .transform((v) => v === "true" || v === "1"),
  /** Embedding model name recorded per row; one HNSW index per model is ensured at start-up. */
  EMBEDDING_MODEL: z.string().min(1).default("local-hash-v1"),
  EMBEDDING_DIMENSIONS: z.coerce.number().int().min(1).max(2000).default(256),
  /** `local`: offline hashed features (default); `openai`: any OpenAI-compatible /v1/embeddings endpoint. */
  EMBEDDING_PROVIDER: z.enum(["local", "openai"]).default("local"),
  /** Base URL of the OpenAI-compatible API, up to and including `/v1` (Ollama: http://localhost:11434/v1). */
  EMBEDDING_BASE_URL: z.preprocess(emptyToUndefined, z.string().url().default("https://api.openai.com/v1")),
  EMBEDDING_API_KEY: z.preprocess(emptyToUndefined, z.string().optional()),
  /** Per-request timeout of the embedding endpoint. */
  EMBEDDING_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(15_000),
  /** Send `dimensions` in the request (OpenAI text-embedding-3 can shorten its vectors; many servers reject it). */
  EMBEDDING_REQUEST_DIMENSIONS: booleanFlag,
  /**
   * Tokens of one text sent to the embedding endpoint (counted with o200k; the rest is cut off). The
   * default leaves room for tokenizers that split Chinese finer than o200k under an 8k-token model;
   * set it under a smaller model's context (e.g. 450 for a 512-token model).
   */
  EMBEDDING_MAX_TOKENS: z.coerce.number().int().min(16).max(131_072).default(4096),
  /**
   * Optional re-ranking endpoint applied to a search's best candidates (a cross-encoder such as
   * bge-reranker-v2-m3 behind TEI, Jina, vLLM or a Cohere-compatible server); unset: lexical order.
   */
  RERANK_BASE_URL: z.preprocess(emptyToUndefined, z.string().url().optional()),
  RERANK_MODEL: z.preprocess(emptyToUndefined, z.string().optional()),
  RERANK_API_KEY: z.preprocess(emptyToUndefined, z.string().optional()),
  /** `cohere`: {model, query, documents} → {results}; `tei`: {query, texts} → [{index, score}]. */
  RERANK_FORMAT: z.enum(["cohere", "tei"]).default("cohere"),
  /** A search waits this long for the endpoint, then keeps the lexical order. */
  RERANK_TIMEOUT_MS: z.coerce.number().int().min(50).max(60_000).default(2_000),
  /** Candidates sent to the endpoint per search. */
  RERANK_TOP_N: z.coerce.number().int().min(2).max(200).default(50),
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error"]).default("info"),
  /** Shared rate-limit counters in Redis (redis:// or rediss://); without it they live in Postgres. */
  REDIS_URL: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .regex(/^rediss?:\/\//, "must start with redis:// or rediss://")
      .optional(),
  ),
  /** Agent calls per API key per minute (a key's own rate_limit_per_minute wins); 0 turns the limit off. */
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).max(1_000_000).default(300),
  /** Dashboard calls per signed-in person per minute (a batch counts one per call); 0 turns the limit off. */
  DASHBOARD_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).max(1_000_000).default(600),
  /** Days the search/query log is kept (usage charts); 0 keeps it forever. */
  MEMORY_QUERY_LOG_RETENTION_DAYS: z.coerce.number().int().min(0).max(36_500).default(30),
  /** Days a tool call's idempotency key still replays its first answer; 0 keeps them forever. */
  MEMORY_IDEMPOTENCY_RETENTION_DAYS: z.coerce.number().int().min(0).max(36_500).default(7),
  /** Days succeeded background jobs are kept (dead-lettered ones stay until someone handles them); 0 keeps them. */
  MEMORY_JOB_RETENTION_DAYS: z.coerce.number().int().min(0).max(36_500).default(7),
  /** Embedded mode: copies of the database taken before migrations to keep (newest first); 0 keeps all. */
  MEMORY_BACKUPS_KEEP: z.coerce.number().int().min(0).max(1000).default(3),
});

export type Env = z.infer<typeof schema>;

/** How often the replica monitor probes (src/db/replicas.ts default): part of the read-your-writes minimum. */
export const REPLICA_PROBE_MS = 1000;

export function parseEnv(source: Record<string, string | undefined>): Env {
  const parsed = schema
    .refine((e) => e.DATABASE_READ_URL.length === 0 || e.DATABASE_URL !== undefined, {
      path: ["DATABASE_READ_URL"],
      message: "read replicas need server mode: set DATABASE_URL too (embedded mode has no replicas)",
    })
    .superRefine((e, ctx) => {
      // Past the window, any replica within the lag limit takes a principal's reads: one up to the limit
      // behind (plus a probe interval before that is noticed) could still miss the principal's own write.
      const minimum = e.DATABASE_READ_MAX_LAG_MS + REPLICA_PROBE_MS;
      if (e.DATABASE_READ_URL.length > 0 && e.DATABASE_READ_YOUR_WRITES_MS < minimum) {
        ctx.addIssue({
          code: "custom",
          path: ["DATABASE_READ_YOUR_WRITES_MS"],
          message: `is ${e.DATABASE_READ_YOUR_WRITES_MS} but must be at least DATABASE_READ_MAX_LAG_MS (${e.DATABASE_READ_MAX_LAG_MS}) + the ${REPLICA_PROBE_MS} ms probe interval = ${minimum}, else a caller may not see its own write on a lagging replica; raise it to ${minimum} or more, or lower DATABASE_READ_MAX_LAG_MS`,
        });
      }
    })
    .safeParse(source);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
    throw new Error(`Invalid environment configuration:\n${lines.join("\n")}`);
  }
  return parsed.data;
}

export const env: Env = parseEnv(process.env);
