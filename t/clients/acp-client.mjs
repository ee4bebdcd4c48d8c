// The editor's side: the pinned ACP SDK's own client, talking to
// `arc-acp -- AGENT` as an editor would, with a person answering through
// arc (arc-answer) or in the editor's own dialog.  Writes every line that
// crosses, in the order seen, to LOG as {"d":"sent"|"recv","m":LINE}, and
// what happened to RESULT as JSON.
//
// usage: node acp-client.mjs CASE LOG RESULT CWD -- ARC-ACP [ARG...]
//   CASE: allow (the person allows through arc-answer), reject (the
//   person rejects through arc-answer), deny (the person
//   rejects in the editor), cancel (the editor sends session/cancel while
//   the question waits), kill (the agent is killed while it waits;
//   ACP_TAP_PID names the file with its pid), wait (as allow, but the
//   person answers some other way: the picker), elicit (the editor offers
//   form elicitation; it notes each elicitation/create it gets, and the
//   questions then pending in arc, and answers the first choice), race
//   (the person answers both ways at once: arc-answer allows and the
//   editor's dialog rejects, 0 to 30 ms apart, in a random order), close
//   (once the question is pending the editor closes arc-acp's standard
//   input and goes on reading: the question must be withdrawn while the
//   agent still runs, and a later arc-answer refused)
import { spawn, execFileSync } from "node:child_process";
import fs from "node:fs";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";

const [kase, log, resultFile, cwd, dashes, ...proxy] = process.argv.slice(2);
if (dashes !== "--") {
	process.stderr.write("usage: acp-client.mjs CASE LOG RESULT CWD -- ARC-ACP [ARG...]\n");
	process.exit(2);
}
const fd = fs.openSync(log, "a");
const result = { case: kase, events: [] };
const note = (e) => result.events.push(e);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const child = spawn(proxy[0], proxy.slice(1), { stdio: ["pipe", "pipe", "inherit"] });
const exited = new Promise((r) => child.on("exit", (code, signal) => r({ code, signal })));

function recorder(d) {
	let part = "";
	return new TransformStream({
		transform(chunk, ctl) {
			part += Buffer.from(chunk).toString("utf8");
			let i;
			while ((i = part.indexOf("\n")) >= 0) {
				fs.writeSync(fd, JSON.stringify({ d, m: part.slice(0, i) }) + "\n");
				part = part.slice(i + 1);
			}
			ctl.enqueue(chunk);
		},
	});
}
const toAgent = recorder("sent");
toAgent.readable.pipeTo(Writable.toWeb(child.stdin)).catch(() => {});
const fromAgent = Readable.toWeb(child.stdout).pipeThrough(recorder("recv"));
const stream = acp.ndJsonStream(toAgent.writable, fromAgent);

// The question arc-acp opened, as arc-status lists it.
async function pendingKey() {
	for (let i = 0; i < 600; i++) {
		const list = execFileSync("arc-status", ["--list"], { encoding: "utf8" });
		for (const line of list.split("\n")) {
			const f = line.split("\t");
			if (f[0].startsWith("acp:") && f[2] === "pending") return f[0];
		}
		await sleep(50);
	}
	throw new Error("arc-acp opened no question");
}

let sessionId = null, cancelSent = null;
const answers = [];
// arc-answer KEY CHOICE, as the person runs it; resolves to its exit status
function arcAnswer(key, choice) {
	return new Promise((res) => {
		const p = spawn("arc-answer", ["--source", "e2e", key, choice],
		    { stdio: ["ignore", "ignore", "inherit"] });
		p.on("exit", (code) => res(code));
	});
}
function status(key) {
	try {
		const s = JSON.parse(execFileSync("arc-status", ["--json", "--show", key],
		    { encoding: "utf8" }));
		return `${s.notification.outcome} ${s.interaction.status}`;
	} catch (e) {
		return "none";
	}
}
// When the question was last changed (its withdrawal), in ms; NaN: none.
function changedAt(key) {
	try {
		const s = JSON.parse(execFileSync("arc-status", ["--json", "--show", key],
		    { encoding: "utf8" }));
		return Date.parse(s.interaction.updated_at);
	} catch (e) {
		return NaN;
	}
}
const app = acp.client({ name: "arc-acp-e2e" })
	.onNotification("session/update", async () => {})
	.onRequest("session/request_permission", async (ctx) => {
		const opts = ctx.params.options;
		note({ permission: opts.map((o) => [o.optionId, o.kind]) });
		const key = await pendingKey();
		result.key = key;
		if (kase === "allow" || kase === "reject" || kase === "wait") {
			const pick = opts.find((o) => o.kind ===
			    (kase === "reject" ? "reject_once" : "allow_once"));
			if (kase !== "wait") {
				execFileSync("arc-answer", ["--source", "e2e", key, pick.optionId],
				    { stdio: ["ignore", "ignore", "inherit"] });
				note({ answered: "arc", optionId: pick.optionId });
			}
			// The editor's dialog waits until arc-acp cancels it.
			await new Promise((res, rej) => {
				if (ctx.signal.aborted) rej(ctx.signal.reason);
				ctx.signal.addEventListener("abort", () => {
					note({ editor: "cancelled by $/cancel_request" });
					rej(ctx.signal.reason);
				});
			});
		}
		if (kase.startsWith("race")) {
			const allow = opts.find((o) => o.kind === "allow_once");
			const reject = opts.find((o) => o.kind === "reject_once");
			const gap = Math.random() * 30, first = process.env.ACP_RACE_FIRST ??
			    (Math.random() < 0.5 ? "arc" : "editor");
			let answered;
			if (first === "arc") {
				answered = arcAnswer(key, allow.optionId);
				await sleep(gap);
			} else {
				answered = sleep(gap).then(() => arcAnswer(key, allow.optionId));
			}
			answers.push(answered.then((rc) => note({ race: { key, first,
			    gap: Math.round(gap * 10) / 10, answer: rc,
			    id: ctx.requestId ?? null } })));
			return { outcome: { outcome: "selected", optionId: reject.optionId } };
		}
		if (kase === "close") {
			// Kept among the answers the result waits for: the
			// connection's end (which closing the input brings) must
			// not write the result before the question's state is read.
			const done = (async () => {
				child.stdin.end();
				note({ editor: "closed arc-acp's input" });
				let st = status(key);
				for (let i = 0; i < 400 && st !== "cancelled cancelled"; i++) {
					await sleep(50);
					st = status(key);
				}
				// withdrawn while the agent still ran: recorded before
				// the agent exited (the tap's clock and arc's are this
				// machine's)
				let gone = NaN;
				for (let i = 0; i < 200 && Number.isNaN(gone); i++) {
					try {
						gone = Number(fs.readFileSync(process.env.ACP_TAP_PID + ".exit", "utf8"));
					} catch (e) {
						await sleep(50);
					}
				}
				const at = changedAt(key);
				note({ closed: { status: st, withdrawnWhileAgentRan:
				    at < gone, withdrawnAt: at, agentExited: gone,
				    answer: await arcAnswer(key, opts[0].optionId) } });
			})();
			answers.push(done);
			await done;
			await exited;
			throw new Error("the editor closed its end");
		}
		if (kase === "deny") {
			const reject = opts.find((o) => o.kind === "reject_once");
			note({ answered: "editor", optionId: reject.optionId });
			return { outcome: { outcome: "selected", optionId: reject.optionId } };
		}
		if (kase === "cancel") {
			await ctx.agent.notify("session/cancel", { sessionId });
			note({ editor: "session/cancel" });
			return { outcome: { outcome: "cancelled" } };
		}
		if (kase === "kill") {
			const pid = Number(fs.readFileSync(process.env.ACP_TAP_PID, "utf8"));
			process.kill(pid, "SIGKILL");
			note({ killed: pid });
			await exited;
			throw new Error("the agent is gone");
		}
		throw new Error("unknown case");
	})
	.onRequest("elicitation/create", async (ctx) => {
		const p = ctx.params, props = p.requestedSchema?.properties ?? {};
		const list = execFileSync("arc-status", ["--list"], { encoding: "utf8" });
		note({ elicitation: { mode: p.mode, fields: Object.keys(props),
		    types: Object.values(props).map((v) => v.type),
		    arcPending: list.split("\n").filter((l) => l.startsWith("acp:")).length } });
		const [name, field] = Object.entries(props).find(([, v]) => v.oneOf) ?? [];
		if (!field)
			return { action: "decline" };
		return { action: "accept", content: { [name]: field.oneOf[0].const } };
	});

try {
	await app.connectWith(stream, async (agent) => {
		const init = await agent.request("initialize", {
			protocolVersion: acp.PROTOCOL_VERSION,
			clientCapabilities: { fs: { readTextFile: false, writeTextFile: false },
			    ...(kase === "elicit" ? { elicitation: { form: {} } } : {}) },
			clientInfo: { name: "arc-acp-e2e", version: "1.0.0" },
		});
		note({ agentInfo: init.agentInfo });
		// As root (CI), Claude Code refuses a session that may bypass
		// permissions: this host opts the session out, as hosts may.
		const s = await agent.request("session/new", { cwd, mcpServers: [],
		    _meta: { claudeCode: { options: { allowDangerouslySkipPermissions: false } } } });
		sessionId = s.sessionId;
		// Manual: "Always ask before making changes", as a person picks it.
		// An agent with no such mode (OpenCode's are build and plan, in
		// its configOptions) asks by its own configuration instead.
		const modes = s.modes && s.modes.availableModes;
		if (modes && !modes.some((m) => m.id === "default"))
			note({ setMode: "no default mode" });
		else if (modes)
			await agent.request("session/set_mode", { sessionId, modeId: "default" });
		else
			await agent.request("session/set_mode", { sessionId, modeId: "default" })
			    .catch((e) => note({ setMode: String(e && e.message || e).slice(0, 80) }));
		const r = await agent.request("session/prompt", { sessionId,
		    prompt: [{ type: "text", text: "Deploy the site" }] });
		note({ stopReason: r.stopReason });
	});
} catch (e) {
	note({ error: String(e && e.message || e).slice(0, 200) });
}
await Promise.all(answers);
child.stdin.end();
const ex = await Promise.race([exited, sleep(20000).then(() => ({ code: "timeout" }))]);
result.proxyExit = ex;
fs.writeFileSync(resultFile, JSON.stringify(result, null, 1) + "\n");
process.exit(0);
