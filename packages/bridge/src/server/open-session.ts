/**
 * Creates the `@turngate/node` session behind `session.create`.
 */
import type { CompletionWaiver } from "@turngate/core/schemas";
import * as node from "@turngate/node";
import type { HostSession } from "./host-session.js";

/** What `session.create` passes on. */
export interface OpenSessionInput {
  root: string;
  waivers: CompletionWaiver[];
  signal: AbortSignal;
}

/**
 * Opens a host session on `root` (its baseline is taken before this resolves).
 * @throws the node package's typed error when the root cannot be read.
 */
export async function openHostSession(input: OpenSessionInput): Promise<HostSession> {
  // biome-ignore lint/suspicious/noExplicitAny: placeholder until @turngate/node exports Session.
  const { Session } = node as any;
  return Session.open({ root: input.root, waivers: input.waivers });
}
