/** A hook payload read from stdin, or why it could not be read. */
export type PayloadResult =
  | { ok: true; payload: Record<string, unknown> }
  | { ok: false; error: string };

/** Most bytes of stdin a hook reads (a payload is a few KiB; a transcript is never inlined). */
export const PAYLOAD_MAX_BYTES = 8 * 1024 * 1024;

/**
 * Parse a harness's event payload (issue 19 item 1): a UTF-8 BOM is tolerated, unknown
 * fields are kept (and ignored by the adapters), and anything but one JSON object —
 * empty input, malformed JSON, an array, a string, more than {@link PAYLOAD_MAX_BYTES} —
 * is an error the caller turns into an answer the harness shows (a block at a stop).
 * Input: the bytes read from stdin. Output: the payload or the error text. Never throws.
 */
export function parsePayload(bytes: Uint8Array): PayloadResult {
  if (bytes.length > PAYLOAD_MAX_BYTES) {
    return { ok: false, error: `the payload is larger than ${PAYLOAD_MAX_BYTES} bytes` };
  }
  let source = new TextDecoder("utf-8", { fatal: false }).decode(bytes);
  if (source.charCodeAt(0) === 0xfeff) source = source.slice(1);
  if (source.trim() === "") return { ok: false, error: "the payload on stdin is empty" };
  let value: unknown;
  try {
    value = JSON.parse(source);
  } catch (error) {
    return { ok: false, error: `the payload on stdin is not JSON (${(error as Error).message})` };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { ok: false, error: "the payload on stdin is not a JSON object" };
  }
  return { ok: true, payload: value as Record<string, unknown> };
}

/** Read all of `stream` (at most PAYLOAD_MAX_BYTES + 1 bytes are kept). */
export async function readAll(stream: NodeJS.ReadableStream): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const buffer = typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer);
    if (size <= PAYLOAD_MAX_BYTES) chunks.push(buffer);
    size += buffer.length;
  }
  return Buffer.concat(chunks);
}
