// A stand-in for the Anthropic Messages API, so that the real Claude Code
// runs a scripted session offline: each request that offers tools gets the
// next turn of SCRIPT (a JSON array of {content, stop}), streamed as the
// API streams it; any other request (titles, summaries) gets "ok".  Writes
// the port it listens on (127.0.0.1) to PORTFILE, and the body of every
// scripted request, one a line, to LOG.
//
// usage: node mock-messages.mjs SCRIPT PORTFILE LOG
import http from "node:http";
import fs from "node:fs";

const [scriptFile, portFile, logFile] = process.argv.slice(2);
const script = JSON.parse(fs.readFileSync(scriptFile, "utf8"));
let turn = 0;

function stream(res, content, stop) {
	const events = [["message_start", { type: "message_start", message: {
	    id: `msg_${turn}`, type: "message", role: "assistant",
	    model: "claude-mock", content: [], stop_reason: null,
	    stop_sequence: null, usage: { input_tokens: 10, output_tokens: 1 } } }]];
	content.forEach((c, index) => {
		const text = c.type === "text";
		events.push(["content_block_start", { type: "content_block_start", index,
		    content_block: text ? { type: "text", text: "" } :
		    { type: "tool_use", id: c.id, name: c.name, input: {} } }]);
		events.push(["content_block_delta", { type: "content_block_delta", index,
		    delta: text ? { type: "text_delta", text: c.text } :
		    { type: "input_json_delta", partial_json: JSON.stringify(c.input) } }]);
		events.push(["content_block_stop", { type: "content_block_stop", index }]);
	});
	events.push(["message_delta", { type: "message_delta",
	    delta: { stop_reason: stop, stop_sequence: null },
	    usage: { output_tokens: 5 } }]);
	events.push(["message_stop", { type: "message_stop" }]);
	res.writeHead(200, { "content-type": "text/event-stream" });
	for (const [name, data] of events)
		res.write(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
	res.end();
}

http.createServer((req, res) => {
	let body = "";
	req.on("data", (d) => { body += d; });
	req.on("end", () => {
		if (req.method !== "POST" || !req.url.startsWith("/v1/messages")) {
			res.writeHead(404, { "content-type": "application/json" });
			res.end('{"type":"error","error":{"type":"not_found_error","message":"mock"}}');
			return;
		}
		if (req.url.includes("count_tokens")) {
			res.writeHead(200, { "content-type": "application/json" });
			res.end('{"input_tokens":10}');
			return;
		}
		let request = {};
		try { request = JSON.parse(body); } catch { /* a side request */ }
		if (!Array.isArray(request.tools) || request.tools.length === 0) {
			stream(res, [{ type: "text", text: "ok" }], "end_turn");
			return;
		}
		fs.appendFileSync(logFile, JSON.stringify(request) + "\n");
		const step = script[Math.min(turn++, script.length - 1)];
		stream(res, step.content, step.stop);
	});
}).listen(0, "127.0.0.1", function () {
	fs.writeFileSync(portFile, String(this.address().port));
});
