/** A `/turngate waive` prompt: the digest and reason, or what is wrong with it. */
export type WaivePrompt = { digest: string; reason: string } | { error: string };

/** The usage line the person sees for a malformed `/turngate waive` prompt. */
export const WAIVE_PROMPT_USAGE = "/turngate waive <effect digest: 64 hex characters> <reason>";

/**
 * Read a person's `/turngate waive <digest> <reason>` from a prompt (issue 19 item 5): only
 * a prompt that starts with `/turngate waive` (after blank space) is one; the model cannot
 * produce a prompt, so this is the host's (the person's) waiver. The digest is 64 lowercase
 * hex characters; the reason is the rest, trimmed, and must not be blank.
 * Output: undefined for any other prompt, else the waiver or an error naming the usage.
 */
export function parseWaivePrompt(prompt: string | undefined): WaivePrompt | undefined {
  if (prompt === undefined) return undefined;
  const match = /^\s*\/turngate\s+waive\b([\s\S]*)$/.exec(prompt);
  if (!match) return undefined;
  const rest = (match[1] ?? "").trim();
  const digest = /^([0-9a-fA-F]{64})(?:\s+([\s\S]*))?$/.exec(rest);
  if (!digest) {
    return { error: `a waiver needs the effect digest and a reason: ${WAIVE_PROMPT_USAGE}` };
  }
  const reason = (digest[2] ?? "").trim();
  if (reason === "") return { error: `a waiver needs a reason: ${WAIVE_PROMPT_USAGE}` };
  return { digest: (digest[1] as string).toLowerCase(), reason };
}
