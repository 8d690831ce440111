// Every test process wires the memory tree to the core's events, as the server's start-up does
// (src/server/tree/subscribers.ts): captured messages become chunks, erasures rebuild topics.
import { registerTreeSubscribers } from "~/server/tree";

registerTreeSubscribers();
