/**
 * The per-turn evidence state of a `Session` (issue 13): which turn it is, where its reports
 * start in the session's report list, the refused tool reports, and the candidate commands
 * for shell evidence as read when the turn started (A3S §2.13: presets, then goal criteria).
 */
import type { VerificationCommand, VerificationPreset, VerificationReport } from "@turngate/core";
import type { GoalCriteria } from "./goal-criteria.js";
import {
  hasToolReport,
  type RefusedReport,
  type ToolEvidence,
  toolEvidence,
} from "./tool-evidence.js";

/** What a turn reads when it starts: the preset commands and the goal criteria. */
export interface TurnSources {
  presets: VerificationCommand[];
  goals: GoalCriteria;
}

/** Candidate commands in A3S's order: every preset's commands, in preset order. */
export function presetCandidates(presets: readonly VerificationPreset[]): VerificationCommand[] {
  return presets.flatMap((preset) => preset.commands);
}

/**
 * The evidence state of a `Session`'s current turn (issue #13; a3s-completion-gate.md §1.7,
 * §2.9, §2.13–2.14): the turn number, where this turn's reports and refused reports start in
 * the session's lists (a report from an earlier turn is never a gate input of a later one),
 * the shell-evidence candidates and goal criteria read at the turn's start, the ledger digest
 * each report was recorded at (existence checks bind only reports recorded at the current
 * digest), and the reports and refusals of the last tool result. In-memory only; throws
 * nothing of its own.
 */
export class TurnEvidence {
  #number = 1;
  #reportsFrom = 0;
  #refused: RefusedReport[] = [];
  #refusedFrom = 0;
  #lastTool: ToolEvidence = { reports: [], refused: [] };
  #sources: TurnSources;
  readonly #readSources: () => TurnSources;
  /** The ledger digest when each report of the session was recorded. */
  readonly #digestAtRecord = new WeakMap<VerificationReport, string>();

  /**
   * `readCandidates` is called now and at the start of each later turn: the candidates a
   * turn uses are the ones read when it started, so an agent that edits `package.json` or
   * a goal's `ACCEPTANCE.md` changes the ledger, not the turn's evidence rules.
   */
  constructor(readSources: () => TurnSources) {
    this.#readSources = readSources;
    this.#sources = readSources();
  }

  /** The goal criteria read when the turn started (copies). */
  get goals(): GoalCriteria {
    return structuredClone(this.#sources.goals);
  }

  /** Notes the ledger digest at the time `reports` were recorded. */
  noteRecorded(reports: readonly VerificationReport[], digest: string): void {
    for (const report of reports) this.#digestAtRecord.set(report, digest);
  }

  /** The ledger digest when `report` was recorded (undefined when not noted). */
  digestAtRecord(report: VerificationReport): string | undefined {
    return this.#digestAtRecord.get(report);
  }

  /** 1-based turn number. */
  get number(): number {
    return this.#number;
  }

  /** Index of the turn's first report in the session's report list. */
  get reportsFrom(): number {
    return this.#reportsFrom;
  }

  /** The candidate commands of this turn: presets, then goal criteria (copies). */
  get candidates(): VerificationCommand[] {
    return [...this.#sources.presets, ...this.#sources.goals.commands].map((c) => ({ ...c }));
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

  /**
   * Reads the evidence of one tool result (`toolEvidence`) and keeps its refusals. Shell
   * evidence is matched against the presets and, apart, against the goal criteria, so one
   * command may yield a preset report and an acceptance report. **Change from A3S**, whose
   * single candidate list let a preset (`cargo test`) shadow a criterion with the same
   * command, so that goal could never be met.
   */
  observeTool(tool: string, exitCode: number, metadata: unknown): ToolEvidence {
    const evidence = toolEvidence(tool, exitCode, metadata, this.#sources.presets);
    if (!hasToolReport(metadata) && this.#sources.goals.commands.length > 0) {
      const goal = toolEvidence(tool, exitCode, metadata, this.#sources.goals.commands);
      evidence.reports.push(...goal.reports);
    }
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
    this.#sources = this.#readSources();
  }
}
