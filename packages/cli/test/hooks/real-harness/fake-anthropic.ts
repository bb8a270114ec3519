/**
 * A scripted fake of the Anthropic Messages API on 127.0.0.1 (issue 19 item 7), enough for
 * Claude Code's headless mode: `POST /v1/messages` answers with SSE events
 * (`message_start`, `content_block_*`, `message_delta`, `message_stop`); any other path
 * answers `{"input_tokens": 10}`. The script: the first turn writes `answer.js` exporting 43;
 * a tool result is answered "Done." (the model tries to stop); a message carrying
 * turngate's block reason is answered by writing 42 (`fix`) or by stopping again
 * (`stubborn`). Every request body is kept for the test to read. Requests without the
 * `Write` tool (Claude Code's side calls) get a plain "ok". Mode `probe` (issue 32 item 2):
 * the model first makes each of `probes` (tool calls, one per turn of the conversation), then
 * writes 42 and stops — how a confined agent's attempts on turngate's state are scripted.
 * In mode `fix`, `probes` (when given) replace the first turn's write of 43: the model makes
 * them, then stops; only turngate's block makes it write the fix (issue 32: an attack in one
 * shell command, then the honest fix). `fix` is the tool call that fixes the workspace, for
 * `fix` and `probe` alike (default: `Write` of `answer.js` exporting 42; Claude Code's `Write`
 * refuses a file that exists and was not read, so a fix of such a file is a shell command).
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface FakeModel {
  url: string;
  /** Request bodies of `POST /v1/messages`, parsed, in arrival order. */
  requests: { messages?: { role: string; content: unknown }[]; tools?: { name: string }[] }[];
  close(): Promise<void>;
}

type Block =
  | { type: "text"; text: string }
  | { type: "tool_use"; id: string; name: string; input: unknown };

/** The text of a message's content (text blocks and tool results), for the script to read. */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((c: { type?: string; text?: string; content?: unknown }) =>
      c.type === "text"
        ? (c.text ?? "")
        : c.type === "tool_result"
          ? `[tool_result] ${typeof c.content === "string" ? c.content : JSON.stringify(c.content)}`
          : "",
    )
    .join("\n");
}

/** A tool call the `probe` mode makes. */
export interface Probe {
  name: string;
  input: unknown;
}

/**
 * Start the fake for a workspace (`dir`: where `answer.js` is written). Modes, `probes` and
 * `fix` as above; `fix` defaults to the `Write` of `answer.js` = `module.exports = 42;`.
 */
export async function startFakeModel(
  dir: string,
  mode: "fix" | "stubborn" | "probe",
  probes: readonly Probe[] = [],
  fix: Probe = {
    name: "Write",
    input: { file_path: `${dir}/answer.js`, content: "module.exports = 42;\n" },
  },
): Promise<FakeModel> {
  const requests: FakeModel["requests"] = [];
  let seq = 0;
  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", () => {
      if (
        req.method !== "POST" ||
        !req.url?.startsWith("/v1/messages") ||
        req.url.includes("count_tokens")
      ) {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ input_tokens: 10 }));
        return;
      }
      const request = JSON.parse(body || "{}") as FakeModel["requests"][number] & {
        model?: string;
      };
      requests.push(request);
      const tools = (request.tools ?? []).map((t) => t.name);
      const last = contentText(request.messages?.at(-1)?.content);
      const probe = (p: Probe): Block => ({
        type: "tool_use",
        id: `toolu_${++seq}`,
        name: p.name,
        input: p.input,
      });
      let blocks: Block[];
      const made = (request.messages ?? []).filter((m) => m.role === "assistant").length;
      if (!tools.includes("Write")) blocks = [{ type: "text", text: "ok" }];
      else if (mode === "probe") {
        const next = probes[made];
        blocks =
          next !== undefined
            ? [probe(next)]
            : made === probes.length
              ? [probe(fix)]
              : [{ type: "text", text: "Done." }];
      } else if (!last.startsWith("[tool_result]") && last.includes("turngate blocked the stop")) {
        // A Stop hook's block, not a tool's output that quotes one (an agent's own hook call).
        blocks = mode === "fix" ? [probe(fix)] : [{ type: "text", text: "I am done." }];
      } else if (mode === "fix" && probes[made] !== undefined) {
        blocks = [probe(probes[made] as Probe)];
      } else if (last.includes("[tool_result]")) blocks = [{ type: "text", text: "Done." }];
      else {
        blocks = [
          probe({
            name: "Write",
            input: { file_path: `${dir}/answer.js`, content: "module.exports = 43;\n" },
          }),
        ];
      }
      const stop = blocks.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn";
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      const send = (event: string, data: unknown) =>
        res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
      send("message_start", {
        type: "message_start",
        message: {
          id: `msg_${++seq}`,
          type: "message",
          role: "assistant",
          model: request.model ?? "claude-sonnet-4-5",
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: 10, output_tokens: 1 },
        },
      });
      blocks.forEach((block, index) => {
        if (block.type === "text") {
          send("content_block_start", {
            type: "content_block_start",
            index,
            content_block: { type: "text", text: "" },
          });
          send("content_block_delta", {
            type: "content_block_delta",
            index,
            delta: { type: "text_delta", text: block.text },
          });
        } else {
          send("content_block_start", {
            type: "content_block_start",
            index,
            content_block: { type: "tool_use", id: block.id, name: block.name, input: {} },
          });
          send("content_block_delta", {
            type: "content_block_delta",
            index,
            delta: { type: "input_json_delta", partial_json: JSON.stringify(block.input) },
          });
        }
        send("content_block_stop", { type: "content_block_stop", index });
      });
      send("message_delta", {
        type: "message_delta",
        delta: { stop_reason: stop, stop_sequence: null },
        usage: { output_tokens: 5 },
      });
      send("message_stop", { type: "message_stop" });
      res.end();
    });
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((done) => server.close(() => done())),
  };
}
