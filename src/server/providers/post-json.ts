/** A JSON POST to a model server (embeddings, re-ranking), with its bearer key when one is set. */
export function postJson(
  doFetch: typeof fetch,
  url: string,
  options: { apiKey?: string; body: unknown; signal: AbortSignal },
): Promise<Response> {
  return doFetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
    },
    body: JSON.stringify(options.body),
    signal: options.signal,
  });
}
