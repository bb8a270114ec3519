import * as z from "zod";
import { positiveOrNull, readJsonRoot, unparsedElement } from "./json-util.js";
import {
  type DiagnosticParser,
  type ParsedDiagnostic,
  severityOfWord,
  type UnparsedInput,
} from "./types.js";

const Message = z.looseObject({
  text: z.string().optional(),
  markdown: z.string().optional(),
  id: z.string().optional(),
  arguments: z.array(z.string()).optional(),
});

const ArtifactLocation = z.looseObject({
  uri: z.string().optional(),
  index: z.number().int().optional(),
});

const Location = z.looseObject({
  physicalLocation: z
    .looseObject({
      artifactLocation: ArtifactLocation.optional(),
      region: z
        .looseObject({
          startLine: z.number().int().optional(),
          startColumn: z.number().int().optional(),
        })
        .optional(),
    })
    .optional(),
});

const Level = z.enum(["none", "note", "warning", "error"]);

/** One SARIF 2.1.0 `result` (the fields we read). */
export const SarifResultSchema = z.looseObject({
  ruleId: z.string().optional(),
  ruleIndex: z.number().int().optional(),
  rule: z.looseObject({ id: z.string().optional(), index: z.number().int().optional() }).optional(),
  kind: z.string().optional(),
  level: Level.optional(),
  message: Message,
  locations: z.array(Location).optional(),
  partialFingerprints: z.record(z.string(), z.string()).optional(),
});

const Rule = z.looseObject({
  id: z.string().optional(),
  defaultConfiguration: z.looseObject({ level: Level.optional() }).optional(),
  messageStrings: z.record(z.string(), z.looseObject({ text: z.string().optional() })).optional(),
});

const Run = z.looseObject({
  tool: z.looseObject({
    driver: z.looseObject({
      name: z.string(),
      rules: z.array(Rule).optional(),
      globalMessageStrings: z
        .record(z.string(), z.looseObject({ text: z.string().optional() }))
        .optional(),
    }),
  }),
  artifacts: z.array(z.looseObject({ location: ArtifactLocation.optional() })).optional(),
  results: z.array(z.unknown()).optional(),
});

/** The root of a SARIF 2.1.0 log. */
export const SarifLogSchema = z.looseObject({ version: z.literal("2.1.0"), runs: z.array(Run) });

function fileUri(uri: string): string {
  if (!uri.startsWith("file://")) return uri;
  const rest = uri.slice("file://".length).replace(/^localhost\//, "/");
  try {
    return decodeURIComponent(rest);
  } catch {
    return rest;
  }
}

function fill(template: string, args: readonly string[]): string {
  return template.replace(/\{(\d+)\}/g, (m, i: string) => args[Number(i)] ?? m);
}

/**
 * SARIF 2.1.0 (`version: "2.1.0"`, `runs[].results[]`): one diagnostic per result whose
 * `kind` is absent or `fail` (`pass`, `notApplicable`, `informational`, `review`, `open`
 * are not failures and are skipped). Code = `ruleId` (else `rule.id`, else the rule at
 * `ruleIndex`); level = `level`, else the rule's `defaultConfiguration.level`, else
 * `warning` (SARIF's default): error → error, warning → warning, note/none → info.
 * Message = `message.text`, else the rule's/driver's `messageStrings[id]` with `{n}`
 * arguments filled, else `message.markdown`. Location = the first location's
 * `artifactLocation.uri` (or the run artifact at `index`; `file://` URIs become paths) and
 * `region.startLine/startColumn`. `partialFingerprints` is kept as `fingerprints`. Source
 * = `tool.driver.name`. Results that do not match go to `unparsed` with their pointer.
 */
export const parseSarif: DiagnosticParser = (text) => {
  const log = readJsonRoot("sarif", SarifLogSchema, text);
  const diagnostics: ParsedDiagnostic[] = [];
  const unparsed: UnparsedInput[] = [];
  log.runs.forEach((run, ri) => {
    const rules = run.tool.driver.rules ?? [];
    (run.results ?? []).forEach((raw, i) => {
      const r = SarifResultSchema.safeParse(raw);
      if (!r.success) {
        unparsed.push(unparsedElement(`/runs/${ri}/results/${i}`, raw, r.error));
        return;
      }
      const res = r.data;
      if (res.kind !== undefined && res.kind !== "fail") return;
      const index = res.ruleIndex ?? res.rule?.index;
      const rule =
        index !== undefined
          ? rules[index]
          : rules.find((x) => x.id !== undefined && x.id === (res.ruleId ?? res.rule?.id));
      const code = res.ruleId ?? res.rule?.id ?? rule?.id ?? null;
      const level = res.level ?? rule?.defaultConfiguration?.level ?? "warning";
      let message = res.message.text;
      if (message === undefined && res.message.id !== undefined) {
        const template =
          rule?.messageStrings?.[res.message.id]?.text ??
          run.tool.driver.globalMessageStrings?.[res.message.id]?.text;
        if (template !== undefined) message = fill(template, res.message.arguments ?? []);
      }
      message ??= res.message.markdown ?? "";
      const physical = res.locations?.[0]?.physicalLocation;
      const artifact = physical?.artifactLocation;
      const uri =
        artifact?.uri ??
        (artifact?.index !== undefined
          ? run.artifacts?.[artifact.index]?.location?.uri
          : undefined);
      const d: ParsedDiagnostic = {
        path: uri === undefined ? null : fileUri(uri),
        line: positiveOrNull(physical?.region?.startLine),
        column: positiveOrNull(physical?.region?.startColumn),
        severity: severityOfWord(level),
        code,
        message,
        source: run.tool.driver.name,
      };
      if (res.partialFingerprints !== undefined) d.fingerprints = res.partialFingerprints;
      diagnostics.push(d);
    });
  });
  return { diagnostics, unparsed };
};
