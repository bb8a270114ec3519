/**
 * `cache.key` (stateless, pure): the result-cache key of one check (issue 20 item 1,
 * docs/scale-out.md "Many machines"), core's `cacheKey` / `cacheKeyMaterial` over
 * `turngate.cache_key.v1`. The input is validated by core (unknown fields refused); a malformed
 * input is an `invalid_params` error whose path is the wire path of the field (`input.tree`,
 * `input.check.command`, …).
 */
import {
  type CacheKeyInput,
  cacheKey,
  cacheKeyMaterial,
  TurngateValidationError,
} from "@turngate/core";
import * as z from "zod";
import { defineMethod } from "../method.js";

export const cacheMethods = {
  "cache.key": defineMethod({
    description:
      "The result-cache key of one check (turngate.cache_key.v1): input {tree, lockfiles, check {command, shell, cwd, env, expect_exit, results_format, timeout_ms}, toolchain, platform {os, arch}, outside, turngate}. Returns {key: lowercase hex SHA-256 of material, material: the RFC 8785 canonical JSON hashed, schema}.",
    params: z.strictObject({ input: z.unknown() }),
    result: z.strictObject({
      key: z.string().regex(/^[0-9a-f]{64}$/),
      material: z.string(),
      schema: z.literal("turngate.cache_key.v1"),
    }),
    handler: ({ input }) => {
      try {
        const material = cacheKeyMaterial(input as CacheKeyInput);
        return {
          key: cacheKey(input as CacheKeyInput),
          material,
          schema: "turngate.cache_key.v1" as const,
        };
      } catch (error) {
        // Core names the field inside the input; the wire path starts at `input`.
        if (!(error instanceof TurngateValidationError)) throw error;
        throw new TurngateValidationError(
          "cache.key input",
          error.issues.map((issue) => ({
            ...issue,
            path: issue.path === "" ? "input" : `input.${issue.path}`,
          })),
        );
      }
    },
  }),
};
