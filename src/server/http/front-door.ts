import type { IncomingMessage, ServerResponse } from "node:http";

/**
 * How the app and scripts/server.mjs (which runs outside the app's bundle) meet: the app publishes its
 * agent listener on globalThis at start-up; the server marks that it consults it. Until both hold
 * (e.g. under `next start` or `next dev`), Next.js' own routes answer agent calls, the same way.
 */
export type AgentListener = (req: IncomingMessage, res: ServerResponse) => boolean;

const LISTENER = Symbol.for("agent-memory.agentListener");
const IN_FRONT = Symbol.for("agent-memory.agentListenerInFront");
const shared = globalThis as Record<symbol, unknown>;

export function publishAgentListener(listener: AgentListener) {
  shared[LISTENER] = listener;
}

/** Which front door answers agent calls in this process (reported by /api/health). */
export const agentFrontDoor = (): "listener" | "next-routes" =>
  shared[IN_FRONT] === true && typeof shared[LISTENER] === "function" ? "listener" : "next-routes";
