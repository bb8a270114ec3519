/**
 * A scripted fake of the OpenAI Responses API on 127.0.0.1 for Codex CLI's custom model
 * provider (issue 19 item 7): `POST /v1/responses` answers one output item as SSE
 * (`response.created`, `response.output_item.added` / `.done`, `response.completed`). The
 * script: the first turn runs `exec_command` writing `answer.js` exporting 43; a tool output
 * is answered "Done." (the model tries to stop); a message carrying turngate's block reason
 * is answered by writing 42 (`fix`) or by stopping again (`stubborn`). Mode `probe` (issue 32
 * item 2): the model first runs each of `probes` (shell commands, one per turn), then writes
 * 42 and stops. Request bodies are kept.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface FakeResponses {
  url: string;
  requests: { input: { type?: string; role?: string; content?: unknown; output?: unknown }[] }[];
  close(): Promise<void>;
}

/** The text of one input item (tool outputs as `[tool_result]`). */
export function itemText(item: { type?: string; content?: unknown } | undefined): string {
  if (!item) return "";
  if (item.type === "function_call_output") return "[tool_result]";
  if (Array.isArray(item.content))
    return item.content.map((c: { text?: string }) => c.text ?? "").join("\n");
  return typeof item.content === "string" ? item.content : "";
}

export async function startFakeResponses(
  mode: "fix" | "stubborn" | "probe",
  probes: readonly string[] = [],
): Promise<FakeResponses> {
  const requests: FakeResponses["requests"] = [];
  let seq = 0;
  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", () => {
      if (req.method !== "POST" || !req.url?.endsWith("/responses")) {
        res.writeHead(404, { "content-type": "application/json" });
        res.end("{}");
        return;
      }
      const request = JSON.parse(body) as FakeResponses["requests"][number];
      requests.push(request);
      const last = request.input.at(-1);
      const call = (value: number) => ({
        type: "function_call",
        id: `fc_${++seq}`,
        call_id: `call_${seq}`,
        name: "exec_command",
        arguments: JSON.stringify({ cmd: `printf 'module.exports = ${value};\\n' > answer.js` }),
      });
      const message = (text: string) => ({
        type: "message",
        role: "assistant",
        id: `msg_${++seq}`,
        content: [{ type: "output_text", text }],
      });
      const made = request.input.filter((i) => i.type === "function_call_output").length;
      const probe = (cmd: string) => ({ ...call(0), arguments: JSON.stringify({ cmd }) });
      const item =
        mode === "probe"
          ? probes[made] !== undefined
            ? probe(probes[made] as string)
            : made === probes.length
              ? call(42)
              : message("Done.")
          : itemText(last).includes("turngate blocked the stop")
            ? mode === "fix"
              ? call(42)
              : message("I am done.")
            : last?.type === "function_call_output"
              ? message("Done.")
              : call(43);
      res.writeHead(200, { "content-type": "text/event-stream" });
      const send = (data: { type: string }) =>
        res.write(`event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`);
      const id = `resp_${++seq}`;
      send({ type: "response.created", response: { id } } as never);
      send({ type: "response.output_item.added", output_index: 0, item } as never);
      send({ type: "response.output_item.done", output_index: 0, item } as never);
      send({
        type: "response.completed",
        response: {
          id,
          usage: {
            input_tokens: 10,
            input_tokens_details: null,
            output_tokens: 5,
            output_tokens_details: null,
            total_tokens: 15,
          },
        },
      } as never);
      res.end();
    });
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () => new Promise((done) => server.close(() => done())),
  };
}
