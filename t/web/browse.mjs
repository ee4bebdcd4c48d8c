// browse.mjs URL USER:PASSWORD STEP...: a real Chromium (Debian's, headless,
// never downloaded) at a phone's viewport (390 x 844), driven over the
// DevTools protocol on a pipe (--remote-debugging-pipe): no port, no npm.
// Steps:  open URL | tap LABEL (a button's text; waits for the next page)
//         shot FILE | html (prints the page's HTML) | text (its text)
//         eval JS (prints the result) | wait MS
//         run COMMAND (sh -c, between two steps: the world changes)
// A first step nojs turns JavaScript off before the page is opened; a
// first step notifications grants the page's origin the Notification
// permission (Browser.grantPermissions) and prints "notification: [title,
// body]" for each one the page makes (window.Notification wrapped before
// any script of the page runs).
// Prints "dialog: ..." for any alert()/confirm() (a script ran), "csp: ..."
// for a Content-Security-Policy violation and "console: ..." for messages.
import { execSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const [url, cred, ...steps] = process.argv.slice(2);
const profile = mkdtempSync(join(tmpdir(), 'arc-chromium-'));
const chrome = spawn('/usr/bin/chromium', ['--headless', '--no-sandbox',
    '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update',
    '--disable-sync', '--remote-debugging-pipe',
    `--user-data-dir=${profile}`, 'about:blank'],
    { stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'] });
// The profile is removed once Chromium has exited: removed while it still
// wrote there, it was left behind, a folder in /tmp a run.
let ending = false;
const removed = (code) => { try { rmSync(profile, { recursive: true,
    force: true }); } catch {} process.exit(code); };
const done = (code) => {
	if (ending) return;
	ending = true;
	if (chrome.exitCode !== null || chrome.signalCode !== null) removed(code);
	chrome.once('exit', () => removed(code));
	setTimeout(() => removed(code), 5000);
	chrome.kill('SIGKILL');
};
setTimeout(() => { console.log('timeout'); done(3); },
    Number(process.env.ARC_BROWSE_TIMEOUT_MS || 120000));

// The protocol over --remote-debugging-pipe: JSON messages ended by NUL,
// ours on fd 3, Chromium's on fd 4; no port is opened.
let next = 1, session, inbuf = '';
const pending = new Map(), waiters = [];
chrome.stdio[4].on('data', (d) => {
	inbuf += d;
	let z;
	while ((z = inbuf.indexOf('\0')) >= 0) {
		const m = JSON.parse(inbuf.slice(0, z));
		inbuf = inbuf.slice(z + 1);
		received(m);
	}
});
chrome.on('exit', () => { if (!ending) { console.log('chromium exited'); done(3); } });
function received(m) {
	if (m.id && pending.has(m.id)) {
		const [ok, no] = pending.get(m.id);
		pending.delete(m.id);
		m.error ? no(new Error(JSON.stringify(m.error))) : ok(m.result);
		return;
	}
	if (m.method === 'Page.javascriptDialogOpening') {
		console.log('dialog: ' + m.params.message);
		send('Page.handleJavaScriptDialog', { accept: true });
	} else if (m.method === 'Log.entryAdded') {
		const t = m.params.entry.text;
		console.log((/Content Security Policy/.test(t) ? 'csp: ' :
		    'console: ') + t);
	} else if (m.method === 'Runtime.consoleAPICalled') {
		console.log('console: ' + m.params.args.map((a) => a.value).join(' '));
	}
	for (const w of waiters.splice(0))
		if (!w(m)) waiters.push(w);
}
function send(method, params = {}, top = false) {
	const id = next++;
	chrome.stdio[3].write(JSON.stringify(top ? { id, method, params } :
	    { id, method, params, sessionId: session }) + '\0');
	return new Promise((ok, no) => pending.set(id, [ok, no]));
}
function loaded() {
	return new Promise((ok) => waiters.push((m) =>
	    m.method === 'Page.loadEventFired' ? (ok(), true) : false));
}
async function evaluate(expr) {
	const r = await send('Runtime.evaluate', { expression: expr,
	    returnByValue: true });
	return r.result.value;
}

const { targetInfos } = await send('Target.getTargets', {}, true);
({ sessionId: session } = await send('Target.attachToTarget', { targetId:
    targetInfos.find((t) => t.type === 'page').targetId, flatten: true }, true));
await send('Page.enable');
await send('Runtime.enable');
await send('Log.enable');
await send('Network.enable');
await send('Network.setExtraHTTPHeaders', { headers: cred === '-' ? {} :
    { Authorization: 'Basic ' + Buffer.from(cred).toString('base64') } });
await send('Emulation.setDeviceMetricsOverride', { width: 390, height: 844,
    deviceScaleFactor: 2, mobile: true });
await send('Emulation.setTouchEmulationEnabled', { enabled: true });
if (steps[0] === 'nojs') {
	steps.shift();
	await send('Emulation.setScriptExecutionDisabled', { value: true });
}
if (steps[0] === 'notifications') {
	steps.shift();
	await send('Browser.grantPermissions', { origin: new URL(url).origin,
	    permissions: ['notifications'] }, true);
	await send('Page.addScriptToEvaluateOnNewDocument', { source: `(() => {
	    const N = window.Notification;
	    if (!N) return;
	    function W(title, options) {
		console.log('notification: ' + JSON.stringify([title,
		    (options || {}).body]));
		try { return new N(title, options); } catch (e) { return {}; }
	    }
	    Object.defineProperty(W, 'permission', { get: () => N.permission });
	    W.requestPermission = (...a) => N.requestPermission(...a);
	    window.Notification = W;
	})();` });
}
let l = loaded();
await send('Page.navigate', { url });
await l;
for (let i = 0; i < steps.length; i++) {
	const s = steps[i];
	if (s === 'open') {
		l = loaded();
		await send('Page.navigate', { url: steps[++i] });
		await l;
	} else if (s === 'tap') {
		const label = steps[++i];
		const r = await evaluate(`(() => { const b = [...document.
		    querySelectorAll('button')].find((b) => b.textContent ===
		    ${JSON.stringify(label)}); if (!b) return null;
		    b.scrollIntoView(); const r = b.getBoundingClientRect();
		    return [r.x + r.width / 2, r.y + r.height / 2]; })()`);
		if (!r) { console.log('no button ' + label); done(1); }
		l = loaded();
		const p = { x: r[0], y: r[1] };
		await send('Input.dispatchTouchEvent', { type: 'touchStart',
		    touchPoints: [p] });
		await send('Input.dispatchTouchEvent', { type: 'touchEnd',
		    touchPoints: [] });
		await l;
	} else if (s === 'shot') {
		const r = await send('Page.captureScreenshot', { format: 'png',
		    captureBeyondViewport: false });
		writeFileSync(steps[++i], Buffer.from(r.data, 'base64'));
	} else if (s === 'html') {
		console.log(await evaluate('document.documentElement.outerHTML'));
	} else if (s === 'text') {
		console.log(await evaluate('document.body.innerText'));
	} else if (s === 'eval') {
		console.log(String(await evaluate(steps[++i])));
	} else if (s === 'run') {
		execSync(steps[++i], { stdio: 'inherit', shell: '/bin/sh' });
	} else if (s === 'wait') {
		await new Promise((ok) => setTimeout(ok, Number(steps[++i])));
	} else {
		console.log('unknown step ' + s);
		done(2);
	}
}
done(0);
