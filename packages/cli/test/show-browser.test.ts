/**
 * The HTML view in a real browser (issue 21): Debian's chromium driven by playwright-core
 * with `executablePath` (playwright's own browser download cannot work here; `.ci/run`
 * installs chromium when it is absent). A real turn on a real git repository is written as
 * HTML with `turngate run --html` / `turngate show --html`, opened from `file://`, and:
 * - the summary, the check and the diff are in the DOM and visible, at a laptop and a phone
 *   size, light and dark; a screenshot at each size is not blank;
 * - file names, check output and file contents holding `<script>`, `"><img onerror=…>`,
 *   `javascript:` URLs and terminal escape sequences never execute (a `window` flag stays
 *   unset, no console errors, no CSP violation) and are shown literally.
 * With TURNGATE_UPDATE_SCREENSHOT=1 the laptop screenshot of the demo turn is written to
 * docs/images/turngate-show.png (the picture in docs/cli.md, "Reviewing a turn").
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { type Browser, chromium, type Locator, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { testTimeout } from "../../../test-time.js";
import { cli, cliWithAgent, gitProject } from "./helpers.js";

// Bounds for hung tests and hooks in this file (test-time.ts scales them under load).
vi.setConfig({ testTimeout: testTimeout(120_000), hookTimeout: testTimeout(120_000) });

const CHROMIUM = process.env.TURNGATE_CHROMIUM ?? "/usr/bin/chromium";
const DOCS_SCREENSHOT = join(import.meta.dirname, "../../../docs/images/turngate-show.png");

let browser: Browser;
const cleanups: Array<() => void> = [];

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `${CHROMIUM} not found: install Debian's chromium (apt-get install chromium; .ci/run does it) or set TURNGATE_CHROMIUM`,
    );
  }
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
    timeout: testTimeout(60_000),
  });
});

afterAll(async () => {
  await browser?.close();
  for (const c of cleanups.splice(0)) c();
});

/** Open `file` from file://, collecting console errors, page errors and CSP violations. */
async function open(
  file: string,
  viewport: { width: number; height: number },
  colorScheme: "light" | "dark",
): Promise<{ page: Page; problems: string[] }> {
  const page = await browser.newPage({ viewport, colorScheme, deviceScaleFactor: 1 });
  const problems: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error" || m.type() === "warning")
      problems.push(`console ${m.type()}: ${m.text()}`);
  });
  page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
  page.on("request", (r) => {
    if (!r.url().startsWith("file:")) problems.push(`request: ${r.url()}`);
  });
  await page.goto(pathToFileURL(file).href);
  await page.evaluate(() =>
    document.addEventListener("securitypolicyviolation", (e) =>
      console.error(`csp: ${e.violatedDirective}`),
    ),
  );
  return { page, problems };
}

/**
 * How much of a PNG is not the page background: decoded in a blank page (a canvas), the
 * count of distinct colours and the share of pixels that differ from the top-left one.
 */
async function inkOf(png: Buffer): Promise<{ colours: number; ink: number }> {
  const page = await browser.newPage();
  try {
    return await page.evaluate(async (b64) => {
      const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      const bitmap = await createImageBitmap(new Blob([bytes], { type: "image/png" }));
      const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
      const g = canvas.getContext("2d") as OffscreenCanvasRenderingContext2D;
      g.drawImage(bitmap, 0, 0);
      const data = g.getImageData(0, 0, bitmap.width, bitmap.height).data;
      const colours = new Set<number>();
      let ink = 0;
      const bg = (data[0] << 16) | (data[1] << 8) | data[2];
      for (let i = 0; i < data.length; i += 4) {
        const rgb = (data[i] << 16) | (data[i + 1] << 8) | data[i + 2];
        colours.add(rgb);
        if (rgb !== bg) ink++;
      }
      return { colours: colours.size, ink: ink / (data.length / 4) };
    }, png.toString("base64"));
  } finally {
    await page.close();
  }
}

/** The text as rendered (laid out, what a person sees), not the DOM's textContent. */
function rendered(locator: Locator): Promise<string> {
  // biome-ignore lint/performance/useDomNodeTextContent: playwright's rendered text is the point
  return locator.innerText();
}

const CALC = {
  "calc.py": "def add(a, b):\n    return a - b\n",
  "test_calc.py":
    'from calc import add\nassert add(2, 3) == 5, "add(2, 3) should be 5"\nprint("1 passed, 0 failed")\n',
};

describe("turngate show --html in chromium", () => {
  test("a verified turn: summary, check and diff are visible at a laptop and a phone size, light and dark; screenshots are not blank", async () => {
    const p = gitProject(CALC);
    cleanups.push(p.cleanup);
    const agent = p.agent(
      "fix.js",
      `require("node:fs").writeFileSync("calc.py", "def add(a, b):\\n    return a + b\\n"); require("node:fs").writeFileSync("NOTES.md", "# Notes\\nadd() adds now.\\n");`,
    );
    const html = join(p.agents, "turn.html");
    const run = await cli(
      ["run", "--html", html, "--check", "python3 test_calc.py", "--", "node", agent],
      p.root,
    );
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(`turngate: wrote the HTML view to ${html}\n`);
    const digest = /verified: effect digest ([0-9a-f]{64})/.exec(run.stdout)?.[1] as string;

    for (const [size, scheme] of [
      [{ width: 1000, height: 760 }, "light"],
      [{ width: 390, height: 844 }, "dark"],
    ] as const) {
      const { page, problems } = await open(html, size, scheme);
      expect(await page.locator("#verdict").textContent()).toBe("verified");
      expect(await page.locator("#verdict").isVisible()).toBe(true);
      expect(await page.locator("#digest").textContent()).toBe(digest);
      expect(await page.locator("#counts li").allTextContents()).toEqual([
        "1 passed",
        "2 files",
        "1 added",
        "1 modified",
        "+3 −1 lines",
      ]);
      if (size.width === 1000 && process.env.TURNGATE_UPDATE_SCREENSHOT === "1") {
        // docs/cli.md's picture: the page as it opens, whole
        mkdirSync(join(DOCS_SCREENSHOT, ".."), { recursive: true });
        writeFileSync(DOCS_SCREENSHOT, await page.screenshot({ fullPage: true }));
      }
      const check = page.locator("details.check");
      expect(await check.count()).toBe(1);
      expect(await check.locator("summary").isVisible()).toBe(true);
      expect(await rendered(check.locator("summary"))).toMatch(
        /^passed\s+python3 test_calc\.py\s+\d+\.\ds$/,
      );
      // a passed check is collapsed; opening it shows its output
      expect(await check.locator("pre.output").isVisible()).toBe(false);
      await check.locator("summary").click();
      expect(await rendered(check.locator("pre.output"))).toBe("1 passed, 0 failed");
      const calc = page.locator("details.file", { hasText: "calc.py" });
      expect(await calc.locator("pre.diff").isVisible()).toBe(true);
      expect(await rendered(calc.locator("pre.diff .del"))).toBe("-    return a - b");
      expect(await rendered(calc.locator("pre.diff .add"))).toBe("+    return a + b");
      // the page's own script: "Collapse all" closes every section
      await page.getByRole("button", { name: "Collapse all" }).click();
      expect(await calc.locator("pre.diff").isVisible()).toBe(false);
      await page.getByRole("button", { name: "Expand all" }).click();
      expect(await calc.locator("pre.diff").isVisible()).toBe(true);
      // phone: nothing wider than the screen but the diff's own scroll box
      const overflow = await page.evaluate(
        () => document.documentElement.scrollWidth - window.innerWidth,
      );
      expect(overflow).toBeLessThanOrEqual(0);
      const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      expect(background).toBe(scheme === "dark" ? "rgb(13, 17, 23)" : "rgb(255, 255, 255)");
      const shot = await page.screenshot();
      const { colours, ink } = await inkOf(shot);
      expect(colours).toBeGreaterThan(20);
      expect(ink).toBeGreaterThan(0.05);
      expect(problems).toEqual([]);
      await page.close();
    }
  });

  test("an incomplete turn on a 390 px screen: the digest and the reason wrap inside the page, in run's words (issue 34 item 8)", async () => {
    const p = gitProject(CALC);
    cleanups.push(p.cleanup);
    const agent = p.agent(
      "break.js",
      `require("node:fs").writeFileSync("calc.py", "def add(a, b):\\n    return a * b\\n");`,
    );
    const html = join(p.agents, "incomplete.html");
    const run = await cli(
      ["run", "--html", html, "--check", "python3 test_calc.py", "--", "node", agent],
      p.root,
    );
    expect(run.code).toBe(2);
    const digest = /effect digest ([0-9a-f]{64})/.exec(run.stdout)?.[1] as string;
    const { page, problems } = await open(html, { width: 390, height: 844 }, "light");
    expect(await page.locator("#verdict").textContent()).toBe("incomplete");
    expect(await page.locator("#reason").textContent()).toBe(
      `the change (effect digest ${digest}) is not verified: the required checks did not all pass. Fix it and run again, or, as the host, accept this exact change with --waive ${digest}:REASON`,
    );
    expect(await rendered(page.locator("#summary"))).not.toMatch(
      /completion gate|no bound Passed|check:1|R4|fallback/,
    );
    expect(await page.locator("#age").textContent()).toMatch(/^just now \(\d{4}-/);
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - window.innerWidth,
    );
    expect(overflow).toBeLessThanOrEqual(0);
    expect(problems).toEqual([]);
    await page.close();
  }, 120_000);

  test("hostile file names, check output and file contents never execute and are shown literally", async () => {
    const p = gitProject({ "page.html": "<p>old</p>\n" });
    cleanups.push(p.cleanup);
    // "<script>…<" is a folder: a file name cannot hold "/", a path can
    const names = [
      "<script>window.__pwned=1</script>.txt",
      '"><img src=x onerror="window.__pwned=2">.txt',
      "javascript:window.__pwned=3",
      "esc\u001b[31mred\u001b]0;title\u0007.txt",
    ];
    const output = [
      "<script>window.__pwned=4</script>",
      '"><img src=x onerror=window.__pwned=5>',
      '<a href="javascript:window.__pwned=6">click</a>',
      "\u001b[2J\u001b[31mred\u001b[0m",
      "</pre></details><style>body{display:none}</style>",
    ].join("\n");
    const content =
      "</pre><script>window.__pwned=7</script>\n<img src=x onerror=window.__pwned=8>\n";
    const agent = p.agent(
      "hostile.js",
      `const fs = require("node:fs");
for (const n of ${JSON.stringify(names)}) {
  fs.mkdirSync(require("node:path").dirname(n), { recursive: true });
  fs.writeFileSync(n, "x\\n");
}
fs.writeFileSync("page.html", ${JSON.stringify(content)});
fs.writeFileSync("out.txt", ${JSON.stringify(output)});`,
    );
    const run = await cliWithAgent(
      ["run", "--check", "cat out.txt && false", "--", "node", agent],
      p.root,
    );
    expect(run.agent).toBe("");
    expect(run.code).toBe(2);
    const html = join(p.agents, "hostile.html");
    const shown = await cli(["show", "--html", html], p.root);
    expect(shown.code).toBe(0);
    const source = readFileSync(html, "utf8");
    // Written as text: no markup from the workspace survives into the file.
    expect(source.match(/<script/g)?.length).toBe(1);
    expect(source).not.toContain("<img");
    expect(source).not.toContain("<a ");
    expect(source).not.toContain("\u001b");

    const { page, problems } = await open(html, { width: 1000, height: 760 }, "light");
    expect(await page.locator("#verdict").textContent()).toBe("incomplete");
    expect(
      await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned),
    ).toBeUndefined();
    expect(await page.locator("img").count()).toBe(0);
    expect(await page.locator("a").count()).toBe(0);
    expect(await page.locator("script").count()).toBe(1);
    expect(await page.locator("body").isVisible()).toBe(true);
    const paths = await page.locator("details.file .path").allTextContents();
    expect(paths).toEqual(
      expect.arrayContaining([
        "<script>window.__pwned=1</script>.txt",
        '"><img src=x onerror="window.__pwned=2">.txt',
        "javascript:window.__pwned=3",
        "esc\\x1b[31mred\\x1b]0;title\\x07.txt",
      ]),
    );
    const failed = page.locator("details.check.failed");
    // The failing check shows its failure digest (what `run` printed): here no test is named,
    // so the output's last lines, each quoted literally.
    expect(await failed.locator("pre.failure-digest").isVisible()).toBe(true);
    const digest = (await rendered(failed.locator("pre.failure-digest"))).split("\n");
    expect(digest[0]).toMatch(/^last 5 lines \(full log: .+\.log\):$/);
    expect(digest.slice(1)).toEqual([
      "| <script>window.__pwned=4</script>",
      '| "><img src=x onerror=window.__pwned=5>',
      '| <a href="javascript:window.__pwned=6">click</a>',
      // escape sequences are dropped, as in `run`'s text
      "| red",
      "| </pre></details><style>body{display:none}</style>",
    ]);
    const diff = page.locator("details.file", { hasText: "page.html" }).locator("pre.diff");
    expect(await diff.locator(".add").allInnerTexts()).toEqual([
      "+</pre><script>window.__pwned=7</script>",
      "+<img src=x onerror=window.__pwned=8>",
    ]);
    expect(
      await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned),
    ).toBeUndefined();
    expect(problems).toEqual([]);
    await page.close();
  });
});
