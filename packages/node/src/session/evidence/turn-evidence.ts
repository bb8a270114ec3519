/**
 * The per-turn evidence state of a `Session` (issue 13): which turn it is, where its reports
 * start in the session's report list, the refused tool reports, and the candidate commands
 * for shell evidence as read when the turn started (A3S §2.13: presets, then goal criteria).
 */
import type { VerificationCommand, VerificationPreset } from "@turngate/core";
import { type RefusedReport, type ToolEvidence, toolEvidence } from "./tool-evidence.js";

/** Candidate commands in A3S's order: every preset's commands, in preset order. */
export function presetCandidates(presets: readonly VerificationPreset[]): VerificationCommand[] {
  return presets.flatMap((preset) => preset.commands);
}

export class TurnEvidence {
  #number = 1;
  #reportsFrom = 0;
  #refused: RefusedReport[] = [];
  #refusedFrom = 0;
  #lastTool: ToolEvidence = { reports: [], refused: [] };
  #candidates: VerificationCommand[];
  readonly #readCandidates: () => VerificationCommand[];

  /**
   * `readCandidates` is called now and at the start of each later turn: the candidates a
   * turn uses are the ones read when it started, so an agent that edits `package.json` or
   * a goal's `ACCEPTANCE.md` changes the ledger, not the turn's evidence rules.
   */
  constructor(readCandidates: () => VerificationCommand[]) {
    this.#readCandidates = readCandidates;
    this.#candidates = readCandidates();
  }

  /** 1-based turn number. */
  get number(): number {
    return this.#number;
  }

  /** Index of the turn's first report in the session's report list. */
  get reportsFrom(): number {
    return this.#reportsFrom;
  }

  /** The candidate commands of this turn (copies). */
  get candidates(): VerificationCommand[] {
    return this.#candidates.map((c) => ({ ...c }));
  }

  /** The evidence of the latest tool result (copies). */
  get lastTool(): ToolEvidence {
    return structuredClone(this.#lastTool);
  }

  /** Every refused tool report of the session (copies). */
  refusedReports(): RefusedReport[] {
    return structuredClone(this.#refused);
  }

  /** The refused tool reports of this turn (copies). */
  turnRefused(): RefusedReport[] {
    return structuredClone(this.#refused.slice(this.#refusedFrom));
  }

  /** Reads the evidence of one tool result (`toolEvidence`) and keeps its refusals. */
  observeTool(tool: string, exitCode: number, metadata: unknown): ToolEvidence {
    const evidence = toolEvidence(tool, exitCode, metadata, this.#candidates);
    this.#refused.push(...evidence.refused);
    this.#lastTool = evidence;
    return evidence;
  }

  /** Starts the next turn: its reports begin at `reportCount`; candidates are re-read. */
  next(reportCount: number): void {
    this.#number += 1;
    this.#reportsFrom = reportCount;
    this.#refusedFrom = this.#refused.length;
    this.#lastTool = { reports: [], refused: [] };
    this.#candidates = this.#readCandidates();
  }
}
