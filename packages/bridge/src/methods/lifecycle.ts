/**
 * `initialize` and `shutdown` (docs/design.md §5). `initialize` is the handshake: bindings compare
 * `protocol` exactly and check that the methods they call are listed in `methods` (feature
 * detection, not version equality). `shutdown` replies, then the server closes every session
 * (killing running checks) and exits 0.
 */
import * as z from "zod";
import { defineMethod } from "../method.js";
import { BRIDGE_VERSION, PROTOCOL_ID } from "../protocol.js";

export const lifecycleMethods = {
  initialize: defineMethod({
    description:
      "Handshake. Returns the protocol id, the bridge version and the names of every method served (feature detection: check `protocol`, then that the methods you call are listed). `client` is informational.",
    params: z.strictObject({
      client: z
        .strictObject({
          name: z.string().optional(),
          version: z.string().optional(),
          language: z.string().optional(),
        })
        .optional(),
    }),
    result: z.strictObject({
      protocol: z.literal(PROTOCOL_ID),
      version: z.string(),
      methods: z.array(z.string()),
    }),
    handler: (_params, ctx) => ({
      protocol: PROTOCOL_ID as typeof PROTOCOL_ID,
      version: BRIDGE_VERSION,
      methods: [...ctx.methods],
    }),
  }),
  shutdown: defineMethod({
    description:
      "Ends the server: replies {}, stops reading (later lines are not served), closes every session (running checks are killed) and exits 0. Requests in flight are still answered (a running session.verify_commands with session_closed).",
    params: z.strictObject({}),
    result: z.strictObject({}),
    handler: (_params, ctx) => {
      ctx.requestShutdown();
      return {};
    },
  }),
};
