import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAgentServer, type AgentServer } from "../support/agent-server";
import { TEST_BACKEND } from "../support/db";
import { startFakeChatServer } from "../support/fake-chat-server";
import { TURNS } from "../support/scripted-agent";

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, "../..");

/**
 * examples/ run as a user runs them, against a started endpoint and a scripted OpenAI-compatible
 * chat server in place of a hosted model: the TypeScript and the Python agent loops over three
 * turns (remember, recall later, forget when asked), and the MCP desktop configuration.
 */
describe(`examples/ (${TEST_BACKEND})`, () => {
  let server: AgentServer;
  let chat: Awaited<ReturnType<typeof startFakeChatServer>>;
  beforeAll(async () => {
    [server, chat] = await Promise.all([startAgentServer(), startFakeChatServer()]);
  });
  afterAll(async () => {
    await Promise.all([server?.close(), chat?.close()]);
  });

  const env = (session: string) => ({
    ...process.env,
    MEMORY_URL: server.baseUrl,
    MEMORY_KEY: server.secret,
    MEMORY_SESSION: session,
    LLM_URL: chat.baseURL,
    LLM_KEY: "not-a-real-key",
    LLM_MODEL: "scripted",
  });
  const expectThreeTurns = async (say: (text: string) => Promise<string>) => {
    expect(await say(TURNS.remember)).toBe("Saved: I will remember your peanut allergy.");
    expect(await say(TURNS.recall)).toBe("Recalled: Peanut allergy. Memory block in my instructions: yes.");
    // The user asked to forget: the loop sets forgetIntent, so the forget goes through.
    expect(await say(TURNS.forget)).toBe("Forget answered done=true reason=undefined");
  };

  it("examples/agent-loop.ts: the TypeScript loop remembers, recalls in a later turn and forgets when asked", async () => {
    await expectThreeTurns(async (text) =>
      (
        await run(process.execPath, ["--import", "tsx", "examples/agent-loop.ts", text], {
          cwd: root,
          env: env("ts-example"),
        })
      ).stdout.trim(),
    );
    expect(chat.requests.at(-1)?.tools?.length).toBe(6);
  });

  it("examples/python/agent_loop.py: the Python loop does the same", async () => {
    await expectThreeTurns(async (text) =>
      (
        await run("python3", ["examples/python/agent_loop.py", text], { cwd: root, env: env("py-example") })
      ).stdout.trim(),
    );
  });

  it("examples/mcp/mcp.json: an MCP client configured by it lists and calls the tools", async () => {
    const config = JSON.parse(await readFile(path.join(root, "examples/mcp/mcp.json"), "utf8")) as {
      mcpServers: { memory: { type: string; url: string; headers: Record<string, string> } };
    };
    const entry = config.mcpServers.memory;
    expect(entry.type).toBe("http");
    const url = new URL(entry.url);
    expect(url.pathname).toBe("/api/mcp");
    const headers = Object.fromEntries(
      Object.entries(entry.headers).map(([name, value]) => [name, value.replace(/mem_live_\w+/, server.secret)]),
    );
    const client = new Client({ name: "examples-test", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url.pathname, server.baseUrl), { requestInit: { headers } }),
    );
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual([
        "memory_search",
        "memory_get",
        "memory_write",
        "memory_forget",
        "memory_context",
        "message_append",
      ]);
      const appended = await client.callTool({
        name: "message_append",
        arguments: { messages: [{ role: "user", content: "Hello from the desktop." }] },
      });
      expect(appended.structuredContent).toMatchObject({ sessionId: "desktop" });
      const listed = await client.callTool({ name: "memory_search", arguments: { all: true } });
      expect(listed.isError).toBeFalsy();
      expect(listed.structuredContent).toMatchObject({ enumerated: true });
    } finally {
      await client.close();
    }
  });
});
