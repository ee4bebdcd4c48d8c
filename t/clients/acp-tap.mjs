// The agent's side of arc-acp, recorded: runs AGENT with its standard
// input and output on pipes, passes both through unchanged, and writes
// each line that crosses, in the order seen, to LOG as
// {"d":"in"|"out","m":LINE} (in: what arc-acp sent the agent).  Writes
// the agent's pid to PIDFILE, and when it exited (Date.now(), in ms) to
// PIDFILE.exit; exits as the agent did (128+N for a signal).
//
// usage: node acp-tap.mjs LOG PIDFILE -- AGENT [ARG...]
import { spawn } from "node:child_process";
import fs from "node:fs";

const [log, pidfile, dashes, ...agent] = process.argv.slice(2);
if (dashes !== "--" || agent.length === 0) {
	process.stderr.write("usage: acp-tap.mjs LOG PIDFILE -- AGENT [ARG...]\n");
	process.exit(2);
}
const fd = fs.openSync(log, "a");
const child = spawn(agent[0], agent.slice(1), { stdio: ["pipe", "pipe", "inherit"] });
fs.writeFileSync(pidfile, String(child.pid));

function lines(d) {
	let part = "";
	return (chunk) => {
		part += chunk.toString("utf8");
		let i;
		while ((i = part.indexOf("\n")) >= 0) {
			fs.writeSync(fd, JSON.stringify({ d, m: part.slice(0, i) }) + "\n");
			part = part.slice(i + 1);
		}
	};
}
const seenIn = lines("in"), seenOut = lines("out");
process.stdin.on("data", (c) => { seenIn(c); child.stdin.write(c); });
process.stdin.on("end", () => child.stdin.end());
child.stdin.on("error", () => {});
child.stdout.on("data", (c) => { seenOut(c); process.stdout.write(c); });
const ended = new Promise((r) => child.stdout.on("close", r));
child.on("exit", async (code, signal) => {
	fs.writeFileSync(pidfile + ".exit", String(Date.now()));
	await ended;
	const os = { SIGKILL: 9, SIGTERM: 15, SIGINT: 2, SIGHUP: 1 };
	process.exitCode = signal ? 128 + (os[signal] ?? 1) : code;
	process.stdout.end(() => process.exit());
});
