// arc-web's page (arc-web(8)); compiled into arc-web (web/embed).
//
// The page follows the journal (?events).  When what it shows may have
// changed, it fetches itself and updates in place: a card whose question
// changed is replaced (what was typed in it is kept), a card that is gone
// leaves a note of the same height (nothing below it moves under the
// finger), and a new question is added after the questions, above the
// notices (a new notice at the end), and announced in a bar that covers
// nothing it moves.  Scroll, focus and typed text stay; the
// page is never reloaded.  While the page is open, a question it did not
// show before is told by the Notification API, as the page shows it
// (already within the off-device setting), and bounded; a button asks
// for the permission, as browsers want it asked, from a tap.
(function () {
	'use strict';
	var b = document.body, v = b.getAttribute('data-v'), seen = {};
	var N = window.Notification, busy = false, again = false;

	function cut(s, n) {
		s = (s || '').replace(/\s+/g, ' ').trim();
		return s.length > n ? s.slice(0, n - 1) + '\u2026' : s;
	}
	function txt(c, sel) {
		var e = c.querySelector(sel);
		return e ? e.textContent : '';
	}
	function cards(root) {
		return Array.prototype.slice.call(
		    root.querySelectorAll('#cards > [data-key]'));
	}
	function tell(c) {
		var id = c.getAttribute('data-id');
		if (!id || seen[id])
			return false;
		seen[id] = true;
		if (N && N.permission === 'granted') {
			try {
				new N(cut(txt(c, '.who') + ': ' + txt(c, '.title'),
				    120), { body: cut(txt(c, '.msg'), 200),
				    tag: cut(id, 200) });
			} catch (x) { /* not allowed here */ }
		}
		return true;
	}
	cards(document).forEach(function (c) {
		seen[c.getAttribute('data-id')] = true;
	});
	if (N && N.permission === 'default') {
		var nb = document.createElement('button');
		nb.id = 'notify';
		nb.type = 'button';
		nb.textContent = 'Notify me of new questions while this page is open';
		nb.onclick = function () {
			N.requestPermission().then(function () { nb.remove(); });
		};
		b.insertBefore(nb, b.firstChild);
	}

	function news(n) {
		var e = document.getElementById('news');
		if (!e || n === 0)
			return;
		e.textContent = n === 1 ? 'A new question, after the others.' :
		    n + ' new questions, after the others.';
		e.hidden = false;
	}
	function typedIn(c) {
		var i = c.querySelector('input[type=text]');
		return i && i.value ? i.value : null;
	}
	function update(html) {
		var doc = new DOMParser().parseFromString(html, 'text/html');
		var list = document.getElementById('cards');
		var fresh = doc.getElementById('cards');
		var h = doc.querySelector('h1'), mine = document.querySelector('h1');
		var now = {}, added = 0;
		if (!list || !fresh)
			return;
		if (h && mine)
			mine.textContent = h.textContent;
		var old = {}, anchor = null, top = 0;
		cards(document).forEach(function (c) {
			old[c.getAttribute('data-key')] = c;
		});
		// What the person looks at: the focused field, else the first
		// card in view; it stays where it is on the screen.
		anchor = document.activeElement && list.contains(
		    document.activeElement) ? document.activeElement : null;
		cards(document).forEach(function (c) {
			if (!anchor && c.getBoundingClientRect().bottom > 0)
				anchor = c;
		});
		if (anchor)
			top = anchor.getBoundingClientRect().top;
		cards(doc).forEach(function (n) {
			var k = n.getAttribute('data-key'), o = old[k], t, f;
			now[k] = true;
			if (o && o.getAttribute('data-id') === n.getAttribute('data-id'))
				return;
			n = document.importNode(n, true);
			if (o) {
				t = typedIn(o);
				f = o.contains(document.activeElement);
				o.replaceWith(n);
				if (t !== null && n.querySelector('input[type=text]'))
					n.querySelector('input[type=text]').value = t;
				if (f && n.querySelector('input,button'))
					n.querySelector('input,button').focus();
			} else if (n.classList.contains('q')) {
				// after the questions, above the notices
				list.insertBefore(n, document.getElementById('notices') ||
				    list.querySelector(':scope > .n'));
				added++;
			} else {
				if (!document.getElementById('notices') &&
				    doc.getElementById('notices'))
					list.appendChild(document.importNode(
					    doc.getElementById('notices'), true));
				list.appendChild(n);
			}
			tell(n);
		});
		cards(document).forEach(function (c) {
			var k = c.getAttribute('data-key'), g;
			if (now[k])
				return;
			g = document.createElement('div');
			g.className = 'gone';
			g.style.minHeight = (c.offsetHeight - 24) + 'px';
			g.textContent = 'Settled since the page showed it.';
			c.replaceWith(g);
		});
		if (anchor && anchor.isConnected)
			window.scrollBy(0, anchor.getBoundingClientRect().top - top);
		news(added);
	}
	function refresh() {
		if (busy) {
			again = true;
			return;
		}
		busy = true;
		fetch(location.pathname, { credentials: 'same-origin',
		    cache: 'no-store' }).then(function (r) {
			return r.ok ? r.text() : null;
		}).then(function (html) {
			if (html !== null)
				update(html);
		}).catch(function () {}).then(function () {
			busy = false;
			if (again) {
				again = false;
				refresh();
			}
		});
	}
	if (!window.EventSource)
		return;
	var es = new EventSource(b.getAttribute('data-events'));
	document.addEventListener('submit', function () { es.close(); });
	es.onmessage = function (e) {
		if (e.data === v)
			return;
		v = e.data;
		refresh();
	};
})();
