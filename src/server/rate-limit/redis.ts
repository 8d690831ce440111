import net from "node:net";
import tls from "node:tls";

/**
 * Just enough Redis (RESP2 over node:net) for shared rate-limit counters: one connection, pipelined
 * commands answered in order, reconnect on the next command after a failure. No package needed.
 */

type Reply = string | number | null | Reply[];
type Pending = { resolve: (reply: Reply) => void; reject: (error: Error) => void };

export class RedisReplyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RedisReplyError";
  }
}

const encode = (args: readonly (string | number)[]) =>
  `*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(String(a))}\r\n${a}\r\n`).join("")}`;

/** Parses one reply at `offset`; null when the buffer does not hold all of it yet. */
function parseReply(buf: Buffer, offset: number): { reply: Reply | RedisReplyError; next: number } | null {
  const end = buf.indexOf("\r\n", offset);
  if (end < 0) return null;
  const type = String.fromCharCode(buf[offset]!);
  const line = buf.toString("utf8", offset + 1, end);
  const after = end + 2;
  switch (type) {
    case "+":
      return { reply: line, next: after };
    case "-":
      return { reply: new RedisReplyError(line), next: after };
    case ":":
      return { reply: Number(line), next: after };
    case "$": {
      const length = Number(line);
      if (length < 0) return { reply: null, next: after };
      if (buf.length < after + length + 2) return null;
      return { reply: buf.toString("utf8", after, after + length), next: after + length + 2 };
    }
    case "*": {
      const count = Number(line);
      if (count < 0) return { reply: null, next: after };
      const items: Reply[] = [];
      let next = after;
      for (let i = 0; i < count; i++) {
        const item = parseReply(buf, next);
        if (!item) return null;
        if (item.reply instanceof RedisReplyError) return { reply: item.reply, next: item.next };
        items.push(item.reply);
        next = item.next;
      }
      return { reply: items, next };
    }
    default:
      throw new Error(`unexpected Redis reply type ${JSON.stringify(type)}`);
  }
}

export class RedisClient {
  private socket: net.Socket | null = null;
  private ready: Promise<void> | null = null;
  private pending: Pending[] = [];
  private buffer: Buffer = Buffer.alloc(0);
  private readonly url: URL;

  constructor(
    url: string,
    private readonly timeoutMs = 2000,
  ) {
    this.url = new URL(url);
  }

  private fail(error: Error) {
    const pending = this.pending;
    this.pending = [];
    this.buffer = Buffer.alloc(0);
    this.socket?.destroy();
    this.socket = null;
    this.ready = null;
    for (const p of pending) p.reject(error);
  }

  private onData(chunk: Buffer) {
    this.buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : chunk;
    let offset = 0;
    try {
      for (;;) {
        if (offset >= this.buffer.length) break;
        const parsed = parseReply(this.buffer, offset);
        if (!parsed) break;
        offset = parsed.next;
        const waiter = this.pending.shift();
        if (!waiter) continue;
        if (parsed.reply instanceof RedisReplyError) waiter.reject(parsed.reply);
        else waiter.resolve(parsed.reply);
      }
    } catch (error) {
      this.fail(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    this.buffer = this.buffer.subarray(offset);
  }

  private connect(): Promise<void> {
    if (this.ready) return this.ready;
    const { hostname, port, protocol, username, password, pathname } = this.url;
    const opened = new Promise<void>((resolve, reject) => {
      const options = { host: hostname || "127.0.0.1", port: Number(port || 6379) };
      const socket =
        protocol === "rediss:" ? tls.connect({ ...options, servername: options.host }) : net.connect(options);
      this.socket = socket;
      socket.setNoDelay(true);
      socket.setTimeout(this.timeoutMs, () => socket.destroy(new Error("Redis connect timed out")));
      socket.on("data", (chunk: Buffer) => this.onData(chunk));
      socket.on("error", (error) => {
        reject(error);
        this.fail(error);
      });
      socket.on("close", () => {
        reject(new Error("Redis connection closed"));
        if (this.socket === socket) this.fail(new Error("Redis connection closed"));
      });
      socket.once(protocol === "rediss:" ? "secureConnect" : "connect", () => {
        socket.setTimeout(0);
        resolve();
      });
    });
    const ready = (async () => {
      await opened;
      if (password)
        await this.send(
          username
            ? ["AUTH", decodeURIComponent(username), decodeURIComponent(password)]
            : ["AUTH", decodeURIComponent(password)],
        );
      const db = Number(pathname.replace(/^\//, "") || 0);
      if (db) await this.send(["SELECT", db]);
    })();
    // A failed connect must not be remembered: the next command tries again.
    this.ready = ready.catch((error: unknown) => {
      this.fail(error instanceof Error ? error : new Error(String(error)));
      throw error;
    });
    return this.ready;
  }

  private send(args: readonly (string | number)[]): Promise<Reply> {
    return new Promise<Reply>((resolve, reject) => {
      if (!this.socket) return reject(new Error("Redis is not connected"));
      const timer = setTimeout(() => this.fail(new Error("Redis did not answer in time")), this.timeoutMs);
      this.pending.push({
        resolve: (reply) => (clearTimeout(timer), resolve(reply)),
        reject: (error) => (clearTimeout(timer), reject(error)),
      });
      this.socket.write(encode(args));
    });
  }

  async command(args: readonly (string | number)[]): Promise<Reply> {
    await this.connect();
    return this.send(args);
  }

  close() {
    this.socket?.end();
    this.socket = null;
    this.ready = null;
  }
}
