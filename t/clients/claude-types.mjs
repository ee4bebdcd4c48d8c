// Writes one TypeScript file per Claude Code fixture (and per README
// settings snippet), each stating what the pinned
// @anthropic-ai/claude-agent-sdk says that JSON must be; tsc then checks
// them all.  Object literals are checked for unknown members too, so a
// field the client never sends (or never reads) is an error.
//
// usage: node claude-types.mjs FIXTURES OUTDIR [SETTINGS.json ...]
import { readFileSync, readdirSync, writeFileSync, mkdirSync } from "node:fs";
import { basename, join } from "node:path";

const [fixtures, outdir, ...settings] = process.argv.slice(2);
mkdirSync(outdir, { recursive: true });

// The tool input types of sdk-tools.d.ts, by the tool names the hooks see.
const toolTypes = {
	Bash: "BashInput", Edit: "FileEditInput", Write: "FileWriteInput",
	Read: "FileReadInput", NotebookEdit: "NotebookEditInput",
	WebFetch: "WebFetchInput", WebSearch: "WebSearchInput",
	Glob: "GlobInput", Grep: "GrepInput",
	AskUserQuestion: "AskUserQuestionInput",
};
function toolType(name) {
	if (name.startsWith("mcp__"))
		return "McpInput";
	if (!(name in toolTypes))
		throw new Error(`no sdk-tools type known for tool ${name}`);
	return toolTypes[name];
}

const head = `import type { HookInput, SyncHookJSONOutput, Settings, HookEvent }
    from "@anthropic-ai/claude-agent-sdk";
import type * as Tools from "@anthropic-ai/claude-agent-sdk/sdk-tools";
type In<E> = Extract<HookInput, { hook_event_name: E }>;
type Specific<E> = Extract<NonNullable<SyncHookJSONOutput["hookSpecificOutput"]>,
    { hookEventName: E }>;
type Out<E> = Omit<SyncHookJSONOutput, "hookSpecificOutput">
    & { hookSpecificOutput: Specific<E> };
`;
const lit = (v) => JSON.stringify(v, null, 1);
let n = 0;
function emit(name, body) {
	writeFileSync(join(outdir, name + ".ts"), head + body);
	n++;
}

for (const f of readdirSync(fixtures).filter((f) => f.endsWith(".json")).sort()) {
	const v = JSON.parse(readFileSync(join(fixtures, f), "utf8"));
	const e = JSON.stringify(v.hook_event_name);
	let body = `export const input = ${lit(v)} satisfies In<${e}>;\n`;
	if (typeof v.tool_name === "string" && v.tool_input !== undefined)
		body += `export const tool = ${lit(v.tool_input)} satisfies ` +
		    `Tools.${toolType(v.tool_name)};\n`;
	emit("in-" + basename(f, ".json"), body);
}

// The adapters' outputs, and what they hand back as a tool's input.
const outs = join(fixtures, "out");
for (const f of readdirSync(outs).filter((f) => f.endsWith(".json")).sort()) {
	const v = JSON.parse(readFileSync(join(outs, f), "utf8"));
	const e = JSON.stringify(v.hookSpecificOutput.hookEventName);
	let body = `export const output = ${lit(v)} satisfies Out<${e}>;\n`;
	const updated = v.hookSpecificOutput.decision?.updatedInput;
	if (updated !== undefined)
		body += `export const updated = ${lit(updated)} satisfies ` +
		    `Tools.${toolType("AskUserQuestion")};\n`;
	emit("out-" + basename(f, ".json"), body);
}

// README's settings.json: the Settings type, and only real hook events.
for (const f of settings) {
	const v = JSON.parse(readFileSync(f, "utf8"));
	emit("settings-" + basename(f, ".json"),
	    `export const settings = ${lit(v)} satisfies Settings;\n` +
	    `export const events = ${lit(v.hooks)} satisfies ` +
	    `Partial<Record<HookEvent, unknown>>;\n`);
}
console.log(n);
