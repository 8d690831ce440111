import "server-only";
import { TRPCError } from "@trpc/server";
import { getHTTPStatusCodeFromError } from "@trpc/server/http";

/**
 * A streamed file download fed page by page: the first page is read before the response starts, so
 * an authorization error is a proper 401/403 instead of a broken file.
 */
export async function streamPages<P>(params: {
  filename: string;
  contentType: string;
  header?: string;
  firstPage: () => Promise<P>;
  nextPage: (previous: P) => Promise<P> | null;
  lines: (page: P) => string[];
}): Promise<Response> {
  let first: P;
  try {
    first = await params.firstPage();
  } catch (error) {
    if (error instanceof TRPCError)
      return new Response(`${error.message}\n`, {
        status: getHTTPStatusCodeFromError(error),
        headers: { "content-type": "text/plain; charset=utf-8" },
      });
    throw error;
  }
  const encoder = new TextEncoder();
  let page: P | null = first;
  let started = false;
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!started && params.header) controller.enqueue(encoder.encode(params.header));
      if (!started) started = true;
      if (!page) {
        controller.close();
        return;
      }
      const current: P = page;
      controller.enqueue(encoder.encode(params.lines(current).join("")));
      const next = params.nextPage(current);
      page = next ? await next : null;
    },
  });
  return new Response(stream, {
    headers: {
      "content-type": params.contentType,
      "content-disposition": `attachment; filename="${params.filename}"`,
      "cache-control": "no-store",
    },
  });
}
