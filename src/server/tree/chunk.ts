import { createHash } from "node:crypto";
import { countTokens } from "~/server/text/token-count";

export const MAX_CHUNK_TOKENS = 3000;

/** The canonical form (docs/memory-tree.md, hot path): a metadata line, then the text. */
export function canonicalizeMessage(message: {
  role: string;
  source: string;
  createdAt: Date;
  sessionId: string;
  content: string;
}): string {
  const time = message.createdAt.toISOString().slice(0, 16).replace("T", " ");
  return `[role: ${message.role}] [source: ${message.source}] [time: ${time}] [session: ${message.sessionId}]\n\n${message.content.trim()}`;
}

/**
 * Splits text into pieces of at most `maxTokens`, at paragraph, then sentence, then hard boundaries.
 * Almost every chat message is one chunk.
 */
export function splitIntoChunks(text: string, maxTokens = MAX_CHUNK_TOKENS): string[] {
  if (countTokens(text) <= maxTokens) return [text];
  const pieces = text.split(/(?<=\n\n)|(?<=[。！？.!?]\s?)/);
  const chunks: string[] = [];
  let current = "";
  for (const piece of pieces) {
    if (countTokens(current + piece) <= maxTokens) {
      current += piece;
      continue;
    }
    if (current) chunks.push(current);
    current = piece;
    // A single sentence longer than the limit: cut by characters.
    while (countTokens(current) > maxTokens) {
      const cut = Math.floor(current.length * (maxTokens / countTokens(current)) * 0.9);
      chunks.push(current.slice(0, cut));
      current = current.slice(cut);
    }
  }
  if (current.trim()) chunks.push(current);
  return chunks;
}

/** `{session[:12]}-{role[:3]}-{index:03}-{sha256(message id + content)[:16]}`: re-ingesting is a no-op. */
export function chunkId(params: {
  sessionId: string;
  role: string;
  index: number;
  messageId: string;
  content: string;
}): string {
  const hash = createHash("sha256").update(`${params.messageId}\n${params.content}`).digest("hex").slice(0, 16);
  return `${params.sessionId.slice(0, 12)}-${params.role.slice(0, 3)}-${String(params.index).padStart(3, "0")}-${hash}`;
}
