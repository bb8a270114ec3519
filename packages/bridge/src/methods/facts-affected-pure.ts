/**
 * `facts.affected_from_outputs` (stateless: core only, so also in-process under Pyodide and
 * in the test matrix): the affected-targets fact from adapter outputs the host already has
 * (harn-verification.md §1.3, §1.3.1, §1.3.2; docs/design.md §4).
 */
import { importGraphFromData, reduceAffectedTargets } from "@turngate/core";
import * as z from "zod";
import { defineMethod } from "../method.js";
import { AffectedTargetsFactSchema } from "../wire/affected.js";

const AdapterRunSchema = z.strictObject({
  id: z.string(),
  parser_id: z.string(),
  result: z
    .looseObject({
      status: z.string().optional(),
      ok: z.boolean().optional(),
      exit_code: z.number().int().nullable().optional(),
      timed_out: z.boolean().optional(),
      stdout: z.string().nullable().optional(),
    })
    .optional()
    .describe("the command's result; absent with error absent: not_configured"),
  error: z.string().optional().describe("why the command could not run"),
});

export const affectedPureMethods = {
  "facts.affected_from_outputs": defineMethod({
    description:
      "The affected-targets fact from adapter outputs already at hand (harn-verification.md §1.3; docs/design.md §4): each adapter {id, parser_id, result: {status, ok, exit_code, timed_out, stdout}} is parsed (harn.targets_json.v1, harn.targets_lines.v1, cargo.metadata.v1, js.workspace_graph.v1, pnpm.workspace.v1, go.list.v1) and reduced as facts.affected_targets does — reasons, via, global files, lockfiles ({path: {before, after}} texts), unmapped files, run_all — with the fallback over import_graph ({importers: {path: [paths]}, sources: [paths]}). Pure: runs nothing, reads nothing. Errors: invalid_params naming the field.",
    params: z.strictObject({
      changed_paths: z.array(z.string()),
      adapters: z.array(AdapterRunSchema).default([]),
      root: z.string().optional().describe("absolute workspace root, to map absolute tool paths"),
      import_graph: z
        .strictObject({
          importers: z.record(z.string(), z.array(z.string())),
          sources: z.array(z.string()),
        })
        .nullable()
        .default(null),
      fallback: z.boolean().default(true),
      include_fallback: z.boolean().default(false),
      global_files: z.array(z.string()).optional(),
      lockfiles: z
        .record(
          z.string(),
          z.strictObject({ before: z.string().nullable(), after: z.string().nullable() }),
        )
        .optional(),
    }),
    result: AffectedTargetsFactSchema,
    handler: (p) =>
      reduceAffectedTargets({
        changedPaths: p.changed_paths,
        adapters: p.adapters.map((a) => ({
          id: a.id,
          parser_id: a.parser_id,
          ...(a.result !== undefined ? { result: a.result } : {}),
          ...(a.error !== undefined ? { error: a.error } : {}),
        })),
        ...(p.root !== undefined ? { root: p.root } : {}),
        importGraph: p.import_graph === null ? null : importGraphFromData(p.import_graph),
        fallback: p.fallback,
        includeFallback: p.include_fallback,
        ...(p.global_files !== undefined ? { globalFiles: p.global_files } : {}),
        ...(p.lockfiles !== undefined ? { lockfiles: p.lockfiles } : {}),
      }) as z.output<typeof AffectedTargetsFactSchema>,
  }),
};
