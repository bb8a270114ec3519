/**
 * The HTML page of a turn (`turngate show --html FILE`, `turngate run --html FILE`; issue
 * 21): one self-contained file — inline CSS and JS, no network, works from `file://` —
 * readable on a laptop and a phone, light and dark (`prefers-color-scheme`). The summary is
 * at the top (verdict colour, digest, counts); each check is a `<details>` with its output;
 * each changed file a `<details>` with its diff.
 *
 * Every string from the workspace (paths, check ids, commands, output, diff lines, gate
 * messages, waiver reasons) is attacker-controlled. The page is rendered here, in full, as
 * text: each such string is HTML-escaped (`& < > " '`) and its control and bidi characters
 * are shown as escapes (`\x1b`), never interpreted; no string becomes a URL, an attribute
 * name or markup. The page's Content-Security-Policy (`default-src 'none'`, the one inline
 * style and the one inline script allowed by their SHA-256) stops any script, image, frame,
 * form or request the escaping might ever miss. The script only adds "expand all / collapse
 * all" buttons; it reads no data and writes no HTML.
 */
import { createHash } from "node:crypto";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { TurnView, TurnViewCheck, TurnViewFile } from "@turngate/core";
import { CLI_VERSION } from "../context.js";
import { formatSeconds } from "../duration.js";
import { escapeControls } from "../terminal-text.js";
import { ageText, checkLabel, plainReason, plainTargetReason } from "./plain-words.js";

/** `text` with `& < > " '` replaced by character references: safe in text and quoted attributes. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) =>
    c === "&" ? "&amp;" : c === "<" ? "&lt;" : c === ">" ? "&gt;" : c === '"' ? "&quot;" : "&#39;",
  );
}

/** Outside text for the page: controls and bidi characters shown as escapes, then HTML-escaped. */
function t(text: string): string {
  return escapeHtml(escapeControls(text));
}

const STYLE = `
:root{color-scheme:light dark;--bg:#fff;--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--card:#f6f8fa;
--ok:#1a7f37;--bad:#cf222e;--warn:#9a6700;--info:#0969da;--add-bg:#dafbe1;--del-bg:#ffebe9;--hunk:#0969da}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#9198a1;--line:#3d444d;--card:#151b23;
--ok:#3fb950;--bad:#f85149;--warn:#d29922;--info:#4493f8;--add-bg:#12361f;--del-bg:#4b1519;--hunk:#4493f8}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif}
main{max-width:1100px;margin:0 auto;padding:16px}
header.summary{border:1px solid var(--line);border-left:8px solid var(--info);border-radius:8px;padding:12px 16px;background:var(--card)}
header.summary.ok{border-left-color:var(--ok)}header.summary.bad{border-left-color:var(--bad)}header.summary.warn{border-left-color:var(--warn)}
h1{margin:0;font-size:1.6em;text-transform:uppercase;letter-spacing:.04em}
.ok h1{color:var(--ok)}.bad h1{color:var(--bad)}.warn h1{color:var(--warn)}
h2{font-size:1.15em;margin:24px 0 8px}
code,pre{font:13px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
p code,summary code,li code{overflow-wrap:anywhere;word-break:break-all}
.counts{display:flex;flex-wrap:wrap;gap:8px;list-style:none;padding:0;margin:8px 0 0}
.counts li{border:1px solid var(--line);border-radius:999px;padding:2px 10px;background:var(--bg)}
.muted{color:var(--muted)}
.reason{margin:6px 0 0}
.summary p{overflow-wrap:anywhere}
details{border:1px solid var(--line);border-radius:8px;margin:8px 0;background:var(--bg)}
summary{cursor:pointer;padding:8px 12px;display:flex;flex-wrap:wrap;gap:4px 10px;align-items:baseline}
summary .name{font-weight:600;overflow-wrap:anywhere}
.badge{font-weight:600;border-radius:4px;padding:0 6px}
.passed .badge{color:var(--ok)}.failed .badge{color:var(--bad)}.needs_review .badge,.skipped .badge{color:var(--warn)}
.body{padding:0 12px 12px}
pre{margin:0;padding:8px;overflow-x:auto;background:var(--card);border-radius:6px;white-space:pre}
pre .add{background:var(--add-bg);display:block}pre .del{background:var(--del-bg);display:block}
pre .hunk{color:var(--hunk);display:block}pre .meta{font-weight:600;display:block}
.change{font:600 13px ui-monospace,monospace;border:1px solid var(--line);border-radius:4px;padding:0 5px}
.tools{display:flex;gap:8px;margin:8px 0}
button{font:inherit;border:1px solid var(--line);border-radius:6px;background:var(--card);color:var(--fg);padding:2px 10px;cursor:pointer}
footer{margin:24px 0 8px;font-size:.85em}
@media (max-width:600px){main{padding:8px}body{font-size:14px}h1{font-size:1.3em}}
`;

const SCRIPT = `(function(){
var bar=document.getElementById("tools");if(!bar)return;
function all(open){var d=document.querySelectorAll("details");for(var i=0;i<d.length;i++)d[i].open=open;}
function button(label,open){var b=document.createElement("button");b.type="button";b.textContent=label;b.addEventListener("click",function(){all(open);});bar.appendChild(b);}
button("Expand all",true);button("Collapse all",false);
})();`;

function sha256Base64(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("base64");
}

/**
 * The page's Content-Security-Policy: nothing is allowed by default; the one inline style
 * and the one inline script run because their SHA-256 is listed (any other inline or
 * injected script or style is refused); no images, fonts, frames, forms, requests or base
 * URL.
 */
export const VIEW_HTML_CSP = `default-src 'none'; style-src 'sha256-${sha256Base64(STYLE)}'; script-src 'sha256-${sha256Base64(SCRIPT)}'; img-src 'none'; base-uri 'none'; form-action 'none'`;

const VERDICT_CLASS: Record<TurnView["verdict"], string> = {
  verified: "ok",
  waived: "warn",
  narrative: "ok",
  distinct: "ok",
  incomplete: "bad",
  continue: "bad",
};

const CHANGE_LABEL: Record<TurnViewFile["change"], string> = {
  added: "A",
  modified: "M",
  deleted: "D",
  ignored: "ignored",
  output: "output",
  harness: "harness",
  environment: "user file",
  changed: "changed",
};

function checkHtml(check: TurnViewCheck): string {
  const status = check.failure_class ? `${check.status} (${check.failure_class})` : check.status;
  const took =
    check.duration_ms !== null
      ? `<span class="muted">${formatSeconds(check.duration_ms)}</span>`
      : "";
  const parts: string[] = [];
  const why = check.hint ?? check.residual_risk;
  if (why !== null) parts.push(`<p class="risk">${t(why)}</p>`);
  if (check.failure_digest.length > 0) {
    // The lines `run` printed under this check: failing tests with their failures, then the tail.
    parts.push(`<pre class="failure-digest">${check.failure_digest.map(t).join("\n")}</pre>`);
  } else if (check.failing_tests.length > 0) {
    parts.push(
      `<p class="failing-tests">failing tests: ${check.failing_tests.map((name) => `<code>${t(name)}</code>`).join(", ")}</p>`,
    );
  }
  if (check.failure_digest.length === 0 && check.output_tail.length > 0) {
    parts.push(
      `<p class="muted">last ${check.output_tail.length} of ${check.output_lines} output lines</p><pre class="output">${check.output_tail.map((line) => t(line.replace(/\r$/, ""))).join("\n")}</pre>`,
    );
  } else if (check.failure_digest.length === 0) {
    parts.push(`<p class="muted">no output recorded in this view</p>`);
  }
  if (check.log !== null) {
    const where = check.log.path ?? check.log.uri ?? "";
    parts.push(
      `<p class="log muted">log <code>${t(where)}</code>${check.log.sha256 ? ` sha256 <code>${t(check.log.sha256)}</code>` : ""}</p>`,
    );
  }
  const open = check.status === "passed" ? "" : " open";
  return `<details class="check ${check.status}"${open}><summary><span class="badge">${t(status)}</span><span class="name">${t(checkLabel(check))}</span>${check.command !== null && check.command !== checkLabel(check) ? `<code>${t(check.command)}</code>` : ""}${took}${check.required ? "" : '<span class="muted">optional</span>'}</summary><div class="body">${parts.join("")}</div></details>`;
}

function diffHtml(file: TurnViewFile): { stat: string; body: string } {
  const diff = file.diff;
  switch (diff.kind) {
    case "text": {
      const rows = diff.unified
        .replace(/\n$/, "")
        .split("\n")
        .map((raw) => {
          const line = t(raw.replace(/\r$/, ""));
          if (
            /^(?:diff --git|index |--- |\+\+\+ |new file|deleted file|old mode|new mode)/.test(raw)
          ) {
            return `<span class="meta">${line}</span>`;
          }
          if (raw.startsWith("@@")) return `<span class="hunk">${line}</span>`;
          if (raw.startsWith("+")) return `<span class="add">${line}</span>`;
          if (raw.startsWith("-")) return `<span class="del">${line}</span>`;
          return `${line}\n`;
        })
        .join("");
      const cut = diff.truncated ? `<p class="muted">diff cut at the view's limit</p>` : "";
      return {
        stat: `+${diff.additions} −${diff.deletions}`,
        body: `<pre class="diff">${rows}</pre>${cut}`,
      };
    }
    case "binary":
      return {
        stat: "binary",
        body: `<p class="muted">binary file, ${diff.old_bytes ?? 0} → ${diff.new_bytes ?? 0} bytes: not shown</p>`,
      };
    case "too_large":
      return {
        stat: "too large",
        body: `<p class="muted">too large to show (${diff.old_bytes ?? "?"} → ${diff.new_bytes ?? "?"} bytes; the limit is ${diff.limit_bytes} bytes)</p>`,
      };
    case "unavailable":
      return { stat: "no diff", body: `<p class="muted">no diff: ${t(diff.reason)}</p>` };
  }
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/**
 * The HTML page of `view` (issue 21), as a string: a complete document with its own CSP
 * (`VIEW_HTML_CSP`), the summary (verdict, digest, the gate's reason and message, counts of
 * checks, files and diff lines, trust, the clean room's copied outputs as file links,
 * waivers, attempts, affected targets, HUD), the checks (open when they did not pass; a
 * failing one shows the failure digest `run` printed) and the files with their diffs (open, unless there are more
 * than 30). Pure apart from hashing the inline style and script.
 */
export function renderViewHtml(view: TurnView, nowMs: number = Date.now()): string {
  const c = view.counts;
  const counts: string[] = [];
  if (c.checks.failed) counts.push(`${c.checks.failed} failed`);
  if (c.checks.needs_review) counts.push(`${c.checks.needs_review} need review`);
  if (c.checks.skipped) counts.push(`${c.checks.skipped} skipped`);
  if (c.checks.passed) counts.push(`${c.checks.passed} passed`);
  if (view.checks.length === 0) counts.push("no checks");
  counts.push(plural(view.files.length, "file"));
  if (c.files.added) counts.push(`${c.files.added} added`);
  if (c.files.modified) counts.push(`${c.files.modified} modified`);
  if (c.files.deleted) counts.push(`${c.files.deleted} deleted`);
  if (c.files.outside_scope) counts.push(`${c.files.outside_scope} outside the source scope`);
  if (c.files.environment) counts.push(`${c.files.environment} user-level`);
  if (view.diffs.available) counts.push(`+${c.additions} −${c.deletions} lines`);

  const summary: string[] = [];
  summary.push(`<h1 id="verdict">${t(view.verdict)}</h1>`);
  summary.push(
    `<p class="digest">effect digest <code id="digest">${view.effect_digest === "" ? '"" (nothing changed)' : t(view.effect_digest)}</code></p>`,
  );
  const why = plainReason(view);
  if (why !== null) summary.push(`<p class="reason" id="reason">${t(why)}</p>`);
  summary.push(
    `<ul class="counts" id="counts">${counts.map((x) => `<li>${t(x)}</li>`).join("")}</ul>`,
  );
  const facts: string[] = [];
  if (view.trust !== null) facts.push(`trust: ${t(view.trust)}`);
  if (view.finished_at !== null) {
    const age = ageText(view.finished_at, nowMs);
    facts.push(
      `decided <span id="age">${age !== null ? `${t(age)} (${t(view.finished_at)})` : t(view.finished_at)}</span>`,
    );
  }
  if (view.root !== null) facts.push(`workspace <code>${t(view.root)}</code>`);
  if (!view.diffs.available && view.files.length > 0) {
    facts.push(`diffs not available: ${t(view.diffs.reason ?? "unknown")}`);
  } else if (view.diffs.baseline_tree !== null && view.files.length > 0) {
    facts.push(`baseline tree <code>${t(view.diffs.baseline_tree)}</code>`);
  }
  if (view.outputs !== null && view.outputs.paths.length > 0) {
    const { dir, paths } = view.outputs;
    const links = paths.map(
      (path) => `<a href="${t(pathToFileURL(join(dir, path)).href)}"><code>${t(path)}</code></a>`,
    );
    facts.push(
      `outputs copied out of the clean room to <code>${t(dir)}</code>: ${links.join(", ")}`,
    );
  }
  for (const waiver of view.waivers) facts.push(`waiver: ${t(waiver.reason)}`);
  if (view.attempts !== null) facts.push(`attempts: ${view.attempts}`);
  if (view.affected_targets !== null) {
    facts.push(
      `affected targets: ${view.affected_targets.length === 0 ? "none" : view.affected_targets.map((x) => `<code>${t(x.target)}</code>${x.reason ? ` (${t(plainTargetReason(x.reason))})` : ""}`).join(", ")}`,
    );
  }
  if (facts.length > 0) summary.push(`<p class="muted facts">${facts.join(" · ")}</p>`);

  const sections: string[] = [];
  sections.push(
    `<section id="checks"><h2>Checks</h2>${view.checks.length === 0 ? '<p class="muted">no checks ran</p>' : view.checks.map(checkHtml).join("")}</section>`,
  );
  const openFiles = view.files.length <= 30 ? " open" : "";
  sections.push(
    `<section id="files"><h2>Files</h2>${
      view.files.length === 0
        ? '<p class="muted">the turn changed no files</p>'
        : view.files
            .map((file) => {
              const { stat, body } = diffHtml(file);
              return `<details class="file ${file.change}"${openFiles}><summary><span class="change">${CHANGE_LABEL[file.change]}</span><span class="name path">${t(file.path)}</span><span class="muted">${t(stat)}</span></summary><div class="body">${body}</div></details>`;
            })
            .join("")
    }</section>`,
  );
  const title = `turngate: ${view.verdict}${view.effect_digest ? ` ${view.effect_digest.slice(0, 12)}` : ""}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(VIEW_HTML_CSP)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${t(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<header class="summary ${VERDICT_CLASS[view.verdict]}" id="summary">${summary.join("\n")}</header>
<div class="tools" id="tools"></div>
${sections.join("\n")}
<footer class="muted">turngate ${escapeHtml(CLI_VERSION)} · ${t(view.schema)} · from the turn's ${t(view.source)}</footer>
</main>
<script>${SCRIPT}</script>
</body>
</html>
`;
}
