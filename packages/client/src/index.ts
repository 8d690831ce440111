export {
  createMemoryClient,
  type CallOptions,
  type MemoryClient,
  type MemoryClientOptions,
  type RequestOptions,
} from "./client.js";
export { isMemoryApiError, MemoryApiError } from "./errors.js";
export * from "./types.js";
