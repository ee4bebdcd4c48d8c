// A stand-in for an OpenAI-compatible chat completions API, so that the
// real Copilot CLI runs a scripted turn offline (COPILOT_PROVIDER_BASE_URL
// points here).  A POST /v1/chat/completions that offers tools and holds
// no tool result yet is answered, as server-sent events the way the API
// streams them, with a call of its shell tool (the one offered of bash,
// run_shell_command and shell: Copilot CLI's, Qwen Code's) asking to run
// CMD; once the
// conversation holds a tool result, with an assistant message that ends
// the turn.  A request without tools (a title) gets "ok"; GET /v1/models
// lists one model; anything else a 404.  Writes the port it listens on
// (127.0.0.1) to PORTFILE, and every request, one a line, to LOG:
// {method, url, body} (body as JSON, or null).
//
// usage: node mock-chat.mjs CMD PORTFILE LOG
import http from "node:http";
import fs from "node:fs";

const [cmd, portFile, logFile] = process.argv.slice(2);
let n = 0;

function reply(res, req, delta, finish) {
	const id = `chatcmpl_${++n}`, created = Math.floor(Date.now() / 1000);
	const model = req.model ?? "gpt-4.1";
	const chunks = [
		{ id, object: "chat.completion.chunk", created, model,
		    choices: [{ index: 0, delta, finish_reason: null }] },
		{ id, object: "chat.completion.chunk", created, model,
		    choices: [{ index: 0, delta: {}, finish_reason: finish }],
		    usage: { prompt_tokens: 10, completion_tokens: 5,
		    total_tokens: 15 } },
	];
	if (!req.stream) {
		const message = { role: "assistant", ...delta };
		res.writeHead(200, { "content-type": "application/json" });
		res.end(JSON.stringify({ id, object: "chat.completion", created,
		    model, choices: [{ index: 0, message, finish_reason: finish }],
		    usage: chunks[1].usage }));
		return;
	}
	res.writeHead(200, { "content-type": "text/event-stream" });
	for (const c of chunks)
		res.write(`data: ${JSON.stringify(c)}\n\n`);
	res.end("data: [DONE]\n\n");
}

const server = http.createServer((req, res) => {
	let data = "";
	req.on("data", (c) => { data += c; });
	req.on("end", () => {
		let body = null;
		try { body = JSON.parse(data); } catch { body = null; }
		fs.appendFileSync(logFile, JSON.stringify({ method: req.method,
		    url: req.url, body }) + "\n");
		if (req.method === "GET" && req.url.endsWith("/models")) {
			res.writeHead(200, { "content-type": "application/json" });
			res.end(JSON.stringify({ object: "list", data: [{ id: "gpt-4.1",
			    object: "model", owned_by: "arc-e2e" }] }));
			return;
		}
		if (req.method !== "POST" || !req.url.endsWith("/chat/completions") ||
		    body === null) {
			res.writeHead(404);
			res.end();
			return;
		}
		const msgs = body.messages ?? [];
		if (!body.tools || body.tools.length === 0)
			return reply(res, body, { role: "assistant", content: "ok" },
			    "stop");
		const names = body.tools.map((t) => t.function?.name ?? t.name);
		const shell = ["bash", "run_shell_command", "shell"].find((t) =>
		    names.includes(t)) ?? "bash";
		if (!msgs.some((m) => m.role === "tool"))
			return reply(res, body, { role: "assistant", content: null,
			    tool_calls: [{ index: 0, id: "call_arc_e2e_1",
			    type: "function", function: { name: shell,
			    arguments: JSON.stringify({ command: cmd,
			    description: "Deploy the site" }) } }] }, "tool_calls");
		return reply(res, body, { role: "assistant",
		    content: "The turn is over." }, "stop");
	});
});
server.listen(0, "127.0.0.1", () => {
	fs.writeFileSync(portFile, String(server.address().port));
});
