import type { IncomingMessage } from "node:http";

/**
 * Request body limits for the HTTP endpoints. Agent requests (bearer key: /api/trpc tool calls and
 * /api/mcp) get a small limit — no tool needs more; dashboard requests a larger one for imports.
 */
export const AGENT_MAX_BODY_BYTES = 256 * 1024;
export const DASHBOARD_MAX_BODY_BYTES = 4 * 1024 * 1024;

export type LimitedBody = { ok: true; bytes: Uint8Array } | { ok: false; maxBytes: number };

/** Reads the whole body, giving up (without buffering the rest) as soon as it passes `maxBytes`. */
export async function readBodyWithin(req: Request, maxBytes: number): Promise<LimitedBody> {
  const declared = Number(req.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > maxBytes) return { ok: false, maxBytes };
  if (!req.body) return { ok: true, bytes: new Uint8Array(0) };
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      return { ok: false, maxBytes };
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return { ok: true, bytes };
}

/**
 * The same for a Node.js request (the agent listener in front of Next.js). Past `maxBytes` it stops
 * listening and answers at once; the caller replies 413 and closes the connection.
 */
export function readNodeBodyWithin(req: IncomingMessage, maxBytes: number): Promise<LimitedBody> {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > maxBytes) return Promise.resolve({ ok: false, maxBytes });
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const stop = () => {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onError);
    };
    const onData = (chunk: Buffer) => {
      total += chunk.length;
      if (total <= maxBytes) return void chunks.push(chunk);
      stop();
      resolve({ ok: false, maxBytes });
    };
    const onEnd = () => {
      stop();
      resolve({ ok: true, bytes: Buffer.concat(chunks, total) });
    };
    const onError = (error: Error) => {
      stop();
      reject(error);
    };
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onError);
  });
}

/** The same request with its body already read (so a handler downstream can read it again). */
export function withBody(req: Request, bytes: Uint8Array): Request {
  return new Request(req.url, {
    method: req.method,
    headers: req.headers,
    body: bytes.byteLength ? (bytes as BodyInit) : null,
    signal: req.signal,
  });
}

export const tooLargeMessage = (maxBytes: number) =>
  `The request body is larger than ${Math.round(maxBytes / 1024)} KB. Send fewer or smaller items per call (split batches).`;

export const INVALID_UTF8 =
  "The request is not valid UTF-8 (bytes that are no character were sent); it would have been stored as \uFFFD. Send UTF-8 text.";
const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/** Whether `bytes` are UTF-8, or a query string's percent-escapes decode as UTF-8. */
export function isUtf8(bytes: Uint8Array | string): boolean {
  try {
    if (typeof bytes === "string") decodeURIComponent(bytes.replace(/\+/g, " "));
    else strictUtf8.decode(bytes);
    return true;
  } catch {
    return false;
  }
}
