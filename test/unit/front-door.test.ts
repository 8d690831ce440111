import { afterEach, describe, expect, it } from "vitest";
import { agentFrontDoor, publishAgentListener } from "~/server/http/front-door";

const shared = globalThis as Record<symbol, unknown>;
const keys = [Symbol.for("agent-memory.agentListener"), Symbol.for("agent-memory.agentListenerInFront")];
afterEach(() => keys.forEach((k) => delete shared[k]));

describe("agent front door", () => {
  it("is the listener only when the app published one and the server consults it (scripts/server.mjs spells these names)", () => {
    expect(agentFrontDoor()).toBe("next-routes");
    publishAgentListener(() => false);
    expect(agentFrontDoor()).toBe("next-routes"); // `next start`: published, nobody in front
    shared[Symbol.for("agent-memory.agentListenerInFront")] = true;
    expect(agentFrontDoor()).toBe("listener");
  });

  it("uses the symbol names scripts/server.mjs reads", async () => {
    const fs = await import("node:fs");
    const server = fs.readFileSync(new URL("../../scripts/server.mjs", import.meta.url), "utf8");
    expect(server).toContain('Symbol.for("agent-memory.agentListener")');
    expect(server).toContain('Symbol.for("agent-memory.agentListenerInFront")');
  });
});
