// A stand-in for the Gemini API (generativelanguage v1beta), so that the
// real Gemini CLI runs a scripted session offline: GOOGLE_GEMINI_BASE_URL
// points it here (its "gateway" authentication: no key is checked).  Each
// models/M:streamGenerateContent request that offers tools gets the next
// turn of SCRIPT (a JSON array of turns, each the parts of one model
// content), as one server-sent event of a GenerateContentResponse; any
// other streamed request gets "ok"; :generateContent (side requests: the
// next speaker) a JSON reply naming the user; :countTokens a count.
// Writes the port it listens on (127.0.0.1) to PORTFILE, and the method,
// path and whether tools were offered of every request to LOG.
//
// usage: node mock-gemini.mjs SCRIPT PORTFILE LOG
import http from "node:http";
import fs from "node:fs";

const [scriptFile, portFile, logFile] = process.argv.slice(2);
const script = JSON.parse(fs.readFileSync(scriptFile, "utf8"));
let turn = 0;

const response = (parts) => ({
	candidates: [{ content: { role: "model", parts }, finishReason: "STOP",
	    index: 0 }],
	usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5,
	    totalTokenCount: 15 },
	modelVersion: "gemini-mock",
});

http.createServer((req, res) => {
	let body = "";
	req.on("data", (d) => { body += d; });
	req.on("end", () => {
		let request = {};
		try { request = JSON.parse(body); } catch { /* not JSON */ }
		const tools = Array.isArray(request.tools) && request.tools.length > 0;
		fs.appendFileSync(logFile, JSON.stringify({ method: req.method,
		    url: req.url, tools }) + "\n");
		const json = (code, v) => {
			res.writeHead(code, { "content-type": "application/json" });
			res.end(JSON.stringify(v));
		};
		if (req.method !== "POST")
			json(404, { error: { code: 404, message: "mock", status: "NOT_FOUND" } });
		else if (req.url.includes(":streamGenerateContent")) {
			const parts = tools ?
			    script[Math.min(turn++, script.length - 1)] : [{ text: "ok" }];
			res.writeHead(200, { "content-type": "text/event-stream" });
			res.end(`data: ${JSON.stringify(response(parts))}\r\n\r\n`);
		} else if (req.url.includes(":generateContent"))
			json(200, response([{ text: '{"reasoning":"mock","next_speaker":"user"}' }]));
		else if (req.url.includes(":countTokens"))
			json(200, { totalTokens: 10 });
		else
			json(404, { error: { code: 404, message: "mock", status: "NOT_FOUND" } });
	});
}).listen(0, "127.0.0.1", function () {
	fs.writeFileSync(portFile, String(this.address().port));
});
