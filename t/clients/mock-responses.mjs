// A stand-in for the OpenAI Responses API, so that the real Codex runs a
// scripted turn offline: Codex's config.toml points a model provider here
// (base_url, wire_api "responses").  A POST /v1/responses that offers the
// exec_command tool is answered, as a stream of server-sent events the way
// the API streams them, with a call of exec_command asking to run CMD
// outside the sandbox (sandbox_permissions "require_escalated", so that
// Codex must ask for approval); once its input holds that call's
// function_call_output, with an assistant message that ends the turn.
// Any other /v1/responses request (a title, a summary) gets "ok"; anything
// else a 404.  Writes the port it listens on (127.0.0.1) to PORTFILE, and
// every request, one a line, to LOG: {method, url, body} (body as JSON,
// or null).
//
// usage: node mock-responses.mjs CMD PORTFILE LOG
import http from "node:http";
import fs from "node:fs";

const [cmd, portFile, logFile] = process.argv.slice(2);
const callId = "call_arc_e2e_1";
let n = 0;

function stream(res, item) {
	const id = `resp_${++n}`;
	const events = [
		{ type: "response.created", response: { id } },
		{ type: "response.output_item.done", output_index: 0, item },
		{ type: "response.completed", response: { id, usage: {
		    input_tokens: 10, input_tokens_details: null,
		    output_tokens: 5, output_tokens_details: null,
		    total_tokens: 15 } } },
	];
	res.writeHead(200, { "content-type": "text/event-stream" });
	for (const e of events)
		res.write(`event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`);
	res.end();
}

const message = (text) => ({ type: "message", role: "assistant",
    id: `msg_${n + 1}`, status: "completed",
    content: [{ type: "output_text", text, annotations: [] }] });

http.createServer((req, res) => {
	let body = "";
	req.on("data", (d) => { body += d; });
	req.on("end", () => {
		let request = null;
		try { request = JSON.parse(body); } catch { /* not JSON */ }
		fs.appendFileSync(logFile, JSON.stringify({ method: req.method,
		    url: req.url, body: request }) + "\n");
		if (req.method !== "POST" || !req.url.startsWith("/v1/responses") ||
		    request === null) {
			res.writeHead(404, { "content-type": "application/json" });
			res.end('{"error":{"message":"not in the stand-in","type":"not_found"}}');
			return;
		}
		const tools = Array.isArray(request.tools) ? request.tools : [];
		const input = Array.isArray(request.input) ? request.input : [];
		if (!tools.some((t) => t.name === "exec_command"))
			stream(res, message("ok"));
		else if (input.some((i) => i.type === "function_call_output" &&
		    i.call_id === callId))
			stream(res, message("Deployed build 812."));
		else
			stream(res, { type: "function_call", id: "fc_arc_e2e_1",
			    status: "completed", call_id: callId,
			    name: "exec_command", arguments: JSON.stringify({
				cmd, sandbox_permissions: "require_escalated",
				justification: "Deploy the site" }) });
	});
}).listen(0, "127.0.0.1", function () {
	fs.writeFileSync(portFile, String(this.address().port));
});
