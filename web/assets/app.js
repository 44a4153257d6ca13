'use strict';
// The page of a chat session: a snapshot of the history (/api/state), then
// the run's normalized events over SSE from where the snapshot ends. Every
// text from the model, a tool or a file is set as textContent; only the
// server's sanitized Markdown HTML is inserted as markup.
(() => {
  const $ = (id) => document.getElementById(id);
  const log = $('log');
  let es = null;
  let running = false;
  let turnTokens = 0;
  let agents = new Map();   // agent id -> {box, live, text, thinking, calls}
  let calls = new Map();    // tool call id -> card
  const approvals = new Map();
  let pendingFlush = false;
  const dirty = new Set();

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }
  function atBottom() { return log.scrollHeight - log.scrollTop - log.clientHeight < 80; }
  function keepDown(f) { const down = atBottom(); f(); if (down) log.scrollTop = log.scrollHeight; }
  // Whatever takes the log's room (pending rows, the composer's buttons,
  // a phone's keyboard), a log that was at its newest stays there.
  let stuck = true;
  log.addEventListener('scroll', () => { stuck = atBottom(); });
  new ResizeObserver(() => { if (stuck) log.scrollTop = log.scrollHeight; }).observe(log);

  async function api(path, body) {
    const r = await fetch(path, body === undefined ? {} : {
      method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify(body),
    });
    if (!r.ok) { const t = await r.text(); throw new Error(t.trim() || r.statusText); }
    return r.status === 204 ? null : r.json();
  }
  function notice(text, cls, box) {
    keepDown(() => (box || log).appendChild(el('div', 'notice' + (cls ? ' ' + cls : ''), text)));
  }

  // --- agents and their live text ---
  function isSynth(id) { return id === 'synthesizer' || id.endsWith('_synthesizer'); }
  function parentOf(id) { return id === 'synthesizer' ? '' : id.slice(0, -'_synthesizer'.length); }
  function agent(id) {
    let a = agents.get(id);
    if (a) return a;
    let box = log;
    if (isSynth(id)) {
      box = agent(parentOf(id)).box;
    } else if (id !== '') {
      // A sub-agent runs inside its caller's "agent" call: the latest open one.
      const open = [...calls.values()].filter((c) => c.dataset.name === 'agent' && !c.querySelector(':scope > .sub'));
      const card = open[open.length - 1];
      box = el('div', 'sub');
      box.appendChild(el('div', 'who', id));
      (card || log).appendChild(box);
    }
    a = {box, live: null, node: null, thinking: null};
    agents.set(id, a);
    return a;
  }
  function liveAnswer(id) {
    const a = agent(id);
    if (!a.live) {
      a.live = el('div', 'msg assistant' + (isSynth(id) ? ' synth' : ''));
      if (isSynth(id)) a.live.appendChild(el('span', 'tag', 'synthesized answer'));
      a.body = el('div', 'live');
      a.live.appendChild(a.body);
      newPiece(a);
      a.buf = '';
      keepDown(() => a.box.appendChild(a.live));
    }
    return a;
  }
  // A streaming answer is drawn in pieces of a few thousand characters
  // (cut at a line's end when there is one): the browser lays out only
  // the last piece as text arrives, not the whole answer again.
  const PIECE = 3000;
  function newPiece(a) {
    const piece = el('div', 'piece');
    a.node = document.createTextNode('');
    piece.appendChild(a.node);
    a.body.appendChild(piece);
  }
  function appendLive(a) {
    let text = a.buf;
    a.buf = '';
    while (a.node.length + text.length > PIECE) {
      const room = Math.max(PIECE - a.node.length, 0);
      let cut = text.lastIndexOf('\n', room) + 1;
      if (cut === 0) cut = text.lastIndexOf(' ', room) + 1;
      if (cut === 0) cut = Math.min(room || PIECE, text.length);
      a.node.appendData(text.slice(0, cut));
      text = text.slice(cut);
      newPiece(a);
    }
    a.node.appendData(text);
  }
  // Deltas are gathered and drawn once a frame: a long answer never holds
  // the page's main thread.
  function flush() {
    pendingFlush = false;
    keepDown(() => {
      for (const a of dirty) {
        if (a.node && a.buf) appendLive(a);
        if (a.thinkNode && a.tbuf) { a.thinkNode.appendData(a.tbuf); a.tbuf = ''; }
      }
    });
    dirty.clear();
  }
  function later(a) {
    dirty.add(a);
    if (!pendingFlush) { pendingFlush = true; requestAnimationFrame(flush); }
  }

  // --- drawing history ---
  function userMsg(text, tag, id) {
    const m = el('div', 'msg user');
    if (tag) m.appendChild(el('span', 'tag', tag));
    m.appendChild(document.createTextNode(text));
    if (id) m.dataset.id = id;
    return m;
  }
  function answerMsg(v, synth) {
    const m = el('div', 'msg assistant' + (synth ? ' synth' : ''));
    if (synth) m.appendChild(el('span', 'tag', 'synthesized answer'));
    if (v.reasoning) m.appendChild(reasoning(v.reasoning));
    const md = el('div', 'md');
    md.innerHTML = v.html || '';   // rendered and sanitized by the server
    splitLong(md);
    m.appendChild(md);
    return m;
  }
  // A paragraph of many thousand characters is drawn as several blocks
  // (no gap between them): with content-visibility the browser lays out
  // only those on screen, so a huge answer never holds the page.
  function splitLong(md) {
    for (const p of [...md.children]) {
      if (p.tagName !== 'P' || p.textContent.length <= PIECE) continue;
      const parts = [el('p')];
      let n = 0;
      const next = () => { parts.push(el('p')); n = 0; };
      for (const child of [...p.childNodes]) {
        if (child.nodeType !== Node.TEXT_NODE) {
          parts[parts.length - 1].appendChild(child);
          n += child.textContent.length;
          if (n > PIECE) next();
          continue;
        }
        let text = child.data;
        while (n + text.length > PIECE) {
          const room = PIECE - n;
          let cut = text.lastIndexOf(' ', room) + 1;
          if (cut <= 0) cut = Math.max(room, 1);
          parts[parts.length - 1].appendChild(document.createTextNode(text.slice(0, cut)));
          text = text.slice(cut);
          next();
        }
        parts[parts.length - 1].appendChild(document.createTextNode(text));
        n += text.length;
      }
      parts.forEach((q, i) => {
        if (i > 0) q.classList.add('joined-before');
        if (i < parts.length - 1) q.classList.add('joined-after');
      });
      p.replaceWith(...parts);
    }
  }
  function reasoning(text) {
    const d = el('details', 'reasoning');
    d.appendChild(el('summary', null, 'reasoning'));
    d.appendChild(document.createTextNode(text));
    return d;
  }
  function toolCard(id, name, args) {
    const c = el('div', 'tool run');
    c.dataset.name = name;
    const head = el('div', 'head', name + ' ' + brief(args));
    c.appendChild(head);
    if (args && args.length > 80) {
      const d = el('details');
      d.appendChild(el('summary', null, 'arguments'));
      d.appendChild(el('pre', null, pretty(args)));
      c.appendChild(d);
    }
    c.out = null;
    calls.set(id, c);
    return c;
  }
  function brief(args) { const s = (args || '').replace(/\s+/g, ' '); return s.length > 100 ? s.slice(0, 99) + '…' : s; }
  function pretty(args) { try { return JSON.stringify(JSON.parse(args), null, 2); } catch (_) { return args; } }
  function output(c) {
    if (!c.out) { c.out = el('pre', 'out'); c.appendChild(c.out); }
    return c.out;
  }
  // A long result is folded past a few lines.
  function result(c, text, failed) {
    c.classList.remove('run');
    c.classList.add(failed ? 'err' : 'ok');
    if (c.out) c.out.remove();
    c.out = null;
    const lines = (text || '').split('\n');
    if (lines.length > 6) {
      const d = el('details', 'result');
      d.appendChild(el('summary', null, lines.slice(0, 3).join('\n').slice(0, 200) + ` … (${lines.length} lines)`));
      d.appendChild(el('pre', null, text));
      c.appendChild(d);
    } else if (text) {
      c.appendChild(el('pre', 'result', text));
    }
  }
  function drawHistory(msgs, before) {
    const frag = document.createDocumentFragment();
    for (const m of msgs) {
      switch (m.role) {
        case 'user':
          frag.appendChild(userMsg(m.text, m.unanswered ? 'unanswered' : '', m.id));
          break;
        case 'assistant': {
          if (m.text || m.reasoning || !m.tool_calls) frag.appendChild(answerMsg(m, m.synthesized));
          for (const t of m.tool_calls || []) frag.appendChild(toolCard(t.id, t.name, t.arguments));
          break;
        }
        case 'tool': {
          const c = calls.get(m.call_id);
          if (c) result(c, m.text, m.error);
          break;
        }
        case 'summary':
          frag.appendChild(el('div', 'notice', `── ${m.summarized || 'earlier'} messages summarized ──`));
          break;
      }
    }
    if (before) log.insertBefore(frag, before); else log.appendChild(frag);
  }

  // --- events ---
  function onEvent(e) {
    const id = e.agent || '';
    switch (e.type) {
      case 'user_turn':
        if (id === '') {
          keepDown(() => log.appendChild(userMsg(e.content || '', e.mid_loop ? 'joined the turn' : '')));
          if (!e.mid_loop) setRunning(true);
        } else {
          const a = agent(id);
          a.box.appendChild(el('div', 'notice', 'task: ' + brief(e.content || '')));
        }
        break;
      case 'thinking_delta': {
        const a = agent(id);
        if (!a.thinking) {
          a.thinking = reasoning('');
          a.thinkNode = a.thinking.lastChild;
          a.tbuf = '';
          keepDown(() => a.box.appendChild(a.thinking));
        }
        a.tbuf += e.text || '';
        later(a);
        break;
      }
      case 'assistant_delta': {
        const a = liveAnswer(id);
        a.buf += e.text || '';
        later(a);
        break;
      }
      case 'assistant': {
        const a = agent(id);
        flush();
        const m = answerMsg({html: e.html}, isSynth(id) || e.synthesized);
        keepDown(() => {
          if (a.live) a.live.replaceWith(m);
          else if (e.text) a.box.appendChild(m);
          // The reasoning goes with the answer it led to (else it stays
          // where it streamed, above the calls it led to).
          if (a.thinking && m.isConnected) m.prepend(a.thinking);
        });
        a.live = null; a.node = null; a.thinking = null;
        break;
      }
      case 'tool_call': {
        if (calls.has(e.id)) break;
        const c = toolCard(e.id, e.name, e.arguments);
        keepDown(() => agent(id).box.appendChild(c));
        break;
      }
      case 'tool_output': {
        const c = calls.get(e.id);
        if (c) keepDown(() => output(c).appendChild(document.createTextNode(e.text || '')));
        break;
      }
      case 'diagnostics': verdicts.set(e.id, e); break;
      case 'tool_result': {
        const c = calls.get(e.id);
        const v = verdicts.get(e.id);
        verdicts.delete(e.id);
        let text = e.content || e.error || '';
        // The card shows the tool's own words; the verdict goes under them.
        if (v && v.for_model && text.endsWith(v.for_model)) text = text.slice(0, -v.for_model.length).replace(/\n\n$/, '');
        if (c) keepDown(() => { result(c, text, !!e.error); if (v) diagnostics(c, v); });
        break;
      }
      case 'diagnostics_delta':
        notice('◇ diagnostics: ' + (e.text || ''), (e.errors_after || 0) > (e.errors_before || 0) ? 'err' : '');
        break;
      case 'usage':
        if (id === '' || isSynth(id)) { turnTokens += e.total_tokens || 0; status(); }
        break;
      case 'compacting': notice('compacting the conversation…'); break;
      case 'compacted': notice(`── ${e.messages} messages (~${e.tokens_folded} tokens) summarized (~${e.tokens_summary}) · the next request ~${e.tokens_after} ──`); break;
      case 'fallback_notice': notice('⚠ ' + (e.reason || 'the step budget ran out') + ' · a synthesized answer follows'); break;
      case 'cancelled': flush(); notice('⏹ cancelled' + (e.reason ? ': ' + e.reason : ''), '', agent(id).box); break;
      case 'retry': notice(`retrying (attempt ${e.attempt}) in ${Math.round((e.wait_ms || 0) / 1000)} s: ${e.error || ''}`); break;
      case 'notice': notice(e.text || ''); break;
      case 'title': setTitle(e.text || ''); break;
      case 'rescued': notice(`tool calls written as text (${e.format}) were run as calls`); break;
      case 'error': notice('✗ ' + (e.error || 'the turn failed'), 'err', agent(id).box); break;
      case 'plan': drawPlan(e.steps || []); break;
      case 'job': job(e); break;
      case 'network': network(e); break;
      case 'turn_done':
        if (id === '') {
          flush();
          if (running) tell('the turn ended: ' + lastAnswerText());
          setRunning(false);
          agents = new Map();
          hosts = new Map();
          refreshSide();
        }
        break;
      case 'approval': showApproval(e.data); break;
      case 'approval_closed': closeApproval(e.data); break;
      case 'pending': drawPending(e.data || []); break;
      case 'unsent': {
        const input = $('input');
        input.value = (e.data || []).join('\n\n') + (input.value ? '\n\n' + input.value : '');
        break;
      }
      case 'reset': reload(); break;
    }
  }

  // A language server's verdict on the files a call changed, under its card.
  const verdicts = new Map();
  function diagnostics(c, v) {
    const files = (v.diagnostics || []).filter(f => f.errors + f.warnings > 0);
    if (!files.length && !(v.pending || []).length) return;
    const d = el('div', 'diagnostics' + (files.some(f => f.errors > 0) ? ' err' : ''));
    for (const f of files) {
      const count = [f.errors ? `${f.errors} error${f.errors === 1 ? '' : 's'}` : '', f.warnings ? `${f.warnings} warning${f.warnings === 1 ? '' : 's'}` : ''].filter(Boolean).join(', ');
      d.appendChild(el('div', 'diagfile', `${f.path}: ${count} (${f.server})`));
      for (const line of f.lines || []) d.appendChild(el('div', 'diagline', line));
    }
    if (v.errors_elsewhere) d.appendChild(el('div', 'diagfile', `${v.errors_elsewhere} error${v.errors_elsewhere === 1 ? '' : 's'} in other files`));
    if (!files.length) d.appendChild(el('div', 'diagfile', `${v.pending.join(', ')}: no diagnostics yet`));
    c.appendChild(d);
  }

  // The box's connections in this turn: one line per host, counted; a
  // refusal on its own line.
  let hosts = new Map();
  function network(e) {
    const hp = `${e.host}:${e.port}`;
    if (e.allowed === false) {
      notice(`✗ the sandbox refused ${hp}${e.arguments ? ' (asked by: ' + brief(e.arguments) + ')' : ''}: ${e.reason || ''}`, 'err');
      return;
    }
    let h = hosts.get(hp);
    if (!h) {
      h = {n: 0, down: 0, up: 0, line: el('div', 'notice')};
      hosts.set(hp, h);
      keepDown(() => log.appendChild(h.line));
    }
    h.n++; h.down += e.bytes_down || 0; h.up += e.bytes_up || 0;
    h.line.textContent = `↔ ${hp} · ${h.n} connection${h.n === 1 ? '' : 's'} · ${kb(h.down)} ↓ ${kb(h.up)} ↑`;
  }
  function kb(n) { return n >= 10240 ? Math.round(n / 1024) + ' kB' : n + ' B'; }

  function job(e) {
    let c = document.querySelector(`[data-job="${Number(e.job)}"]`);
    if (!c) {
      c = el('div', 'tool run');
      c.dataset.job = String(Number(e.job));
      c.appendChild(el('div', 'head'));
      c.appendChild(el('pre', 'out'));
      keepDown(() => log.appendChild(c));
    }
    c.firstChild.textContent = `job ${e.job} · ${e.state || ''} · ${brief(e.arguments)}`;
    c.lastChild.textContent = e.text || '';
    if (e.ended) { c.classList.remove('run'); c.classList.add('ok'); }
  }

  function drawPlan(steps) {
    const p = $('plan');
    p.replaceChildren();
    p.hidden = steps.length === 0;
    const done = steps.filter((s) => s.status === 'completed').length;
    p.appendChild(el('div', null, `plan (${done} of ${steps.length} done)`));
    const ol = el('ol');
    for (const s of steps) {
      const mark = s.status === 'completed' ? '✔' : s.status === 'in_progress' ? '▸' : '○';
      ol.appendChild(el('li', s.status, mark + ' ' + s.step));
    }
    p.appendChild(ol);
  }

  // --- approvals: answered by a click, never by typing ---
  function showApproval(v) {
    if (!v || approvals.has(v.id)) return;
    tell('your answer is wanted: ' + (v.summary || ''));
    const card = el('div', 'approval');
    card.dataset.id = v.id;
    card.appendChild(el('div', 'summary', (v.agent ? v.agent + ': ' : '') + v.summary));
    if (v.warning) card.appendChild(el('div', 'why', '⚠ ' + v.warning));
    for (const w of v.why || []) card.appendChild(el('div', 'why', w));
    if (v.command && v.command !== v.summary) card.appendChild(el('pre', 'command', v.command));
    if (v.detail) card.appendChild(el('pre', 'detail', v.detail));
    const answers = el('div', 'answers');
    const ask = (answer, reason) => api('api/approval', {id: v.id, answer, reason}).catch((err) => notice('✗ ' + err.message, 'err'));
    const yes = el('button', 'primary', 'Yes'); yes.type = 'button'; yes.dataset.answer = 'yes'; yes.onclick = () => ask('yes');
    answers.appendChild(yes);
    if (v.always) { const b = el('button', null, 'Always' + (v.always_scope ? ' (' + v.always_scope + ')' : '')); b.type = 'button'; b.dataset.answer = 'always'; b.onclick = () => ask('always'); answers.appendChild(b); }
    const no = el('button', null, 'No'); no.type = 'button'; no.dataset.answer = 'no'; no.onclick = () => ask('no');
    answers.appendChild(no);
    if (!v.no_model) {
      const why = el('button', null, 'No, and tell why'); why.type = 'button'; why.dataset.answer = 'why';
      why.onclick = () => {
        why.hidden = true;
        const reason = el('input'); reason.placeholder = 'why not (the model reads it)'; reason.className = 'reason';
        const send = el('button', null, 'Send'); send.type = 'button'; send.dataset.answer = 'why-send';
        send.onclick = () => ask('why', reason.value);
        reason.onkeydown = (k) => { if (k.key === 'Enter') { k.preventDefault(); ask('why', reason.value); } };
        answers.appendChild(reason); answers.appendChild(send); reason.focus();
      };
      answers.appendChild(why);
    }
    card.appendChild(answers);
    approvals.set(v.id, card);
    $('approvals').appendChild(card);
  }
  function closeApproval(d) {
    const card = approvals.get(d.id);
    if (!card) return;
    approvals.delete(d.id);
    const where = d.by === 'browser' ? 'in a browser' : d.by === 'terminal' ? 'in the terminal' : '';
    const said = card.querySelector('.summary').textContent + ': ' + (d.said || d.by) + (where ? ' (' + where + ')' : '');
    card.remove();
    notice(said);
  }

  // --- pending: what was sent and not yet taken ---
  function drawPending(items) {
    // The list takes rows from the log: one that was at its newest stays there.
    keepDown(() => drawPendingRows(items));
  }
  function drawPendingRows(items) {
    const ol = $('pending');
    ol.replaceChildren();
    for (const p of items) {
      const li = el('li');
      li.dataset.id = p.id;
      li.appendChild(el('span', 'kind', p.inject ? 'joins the turn' : 'after the turn'));
      const text = el('span', 'text', p.text);
      li.appendChild(text);
      const edit = el('button', null, 'Edit'); edit.type = 'button';
      edit.onclick = () => {
        const next = window.prompt('Edit the message', p.text);
        if (next !== null) api('api/pending', {id: p.id, text: next}).catch((err) => notice('✗ ' + err.message, 'err'));
      };
      const del = el('button', null, 'Remove'); del.type = 'button'; del.dataset.action = 'remove';
      del.onclick = () => api('api/pending', {id: p.id, remove: true}).catch((err) => notice('✗ ' + err.message, 'err'));
      li.appendChild(edit); li.appendChild(del);
      ol.appendChild(li);
    }
  }

  // --- status, context, side panel ---
  // While the tab is hidden, the browser tells the person it is their
  // turn (a turn ended, an approval waits); its permission is asked once,
  // on a click (browsers ask only then).
  let askedToTell = false;
  document.addEventListener('click', () => {
    if (askedToTell || !('Notification' in window) || Notification.permission !== 'default') return;
    askedToTell = true;
    Notification.requestPermission();
  });
  function tell(body) {
    if (!document.hidden || !('Notification' in window) || Notification.permission !== 'granted') return;
    try { new Notification('chat', {body: body.slice(0, 200), tag: 'chat'}); } catch (e) { /* a browser without it */ }
  }
  function lastAnswerText() {
    const all = document.querySelectorAll('#log .md');
    const t = all.length ? all[all.length - 1].textContent.trim() : '';
    return t.split('\n')[0] || 'done';
  }
  function setRunning(on) {
    running = on;
    if (on) turnTokens = 0;
    $('stop').disabled = !on;
    status();
  }
  function status() {
    const s = $('status');
    s.className = running ? 'running' : '';
    s.textContent = running ? `working · ${turnTokens} tokens` : (turnTokens ? `idle · last turn ${turnTokens} tokens` : 'idle');
  }
  function drawContext(c) {
    const bar = $('ctx-bar');
    bar.replaceChildren();
    const total = c.Window || Math.max(c.Used, 1);
    for (const [name, n] of [['system', c.System], ['project', c.Project], ['tools', c.Tools], ['summary', c.Summary], ['history', c.History]]) {
      if (!n) continue;
      const seg = el('span', 'seg-' + name);
      seg.style.width = Math.min(100, 100 * n / total) + '%';
      seg.title = `${name}: ${n} tokens`;
      bar.appendChild(seg);
    }
    $('ctx-text').textContent = c.Window ? `${c.Used} / ${c.Window}` : `${c.Used} tokens`;
    $('ctx').title = `context: system ${c.System}, project ${c.Project}, tools ${c.Tools}, summary ${c.Summary}, history ${c.History}` + (c.Window ? ` of ${c.Window}` : '');
  }
  async function refreshSide() {
    try {
      const t = await api('api/turns');
      drawContext(t.context);
      setTitle(t.title);
      const ol = $('turns');
      ol.replaceChildren();
      for (const turn of t.turns) {
        const li = el('li');
        const q = el('div', 'turn-q', `${turn.n}. ${turn.question}`);
        q.onclick = () => { const m = log.querySelector(`[data-id="${CSS.escape(turn.id)}"]`); if (m) m.scrollIntoView(); };
        li.appendChild(q);
        for (const c of turn.changes || []) {
          const cls = c.kind === '+' ? 'plus' : c.kind === '-' ? 'minus' : 'tilde';
          li.appendChild(el('div', 'chg chg-' + cls, c.kind + ' ' + c.path));
        }
        const cost = turn.cost_usd !== undefined ? ` · $${turn.cost_usd.toFixed(4)}` : '';
        li.appendChild(el('div', 'turn-meta', `${turn.usage.total_tokens} tokens${cost}` + (turn.interrupted ? ' · interrupted' : '')));
        const acts = el('div', 'turn-acts');
        const box = el('div', 'turn-box');
        if ((turn.changes || []).length) {
          const diff = el('button', null, 'diff'); diff.type = 'button'; diff.dataset.action = 'diff';
          diff.onclick = () => showDiff(turn.n, box);
          acts.appendChild(diff);
        }
        const back = el('button', null, 'rewind…'); back.type = 'button'; back.dataset.action = 'rewind';
        back.onclick = () => previewRewind(turn.n, box);
        acts.appendChild(back);
        li.appendChild(acts);
        li.appendChild(box);
        ol.appendChild(li);
      }
    } catch (err) { /* the panel is a view; the log says what failed */ }
  }
  // A turn's diff: each file it changed, its lines coloured by kind.
  async function showDiff(n, box) {
    box.replaceChildren();
    try {
      for (const f of await api(`api/turns/${n}/diff`)) {
        box.appendChild(el('div', 'chg', `${f.kind} ${f.path}`));
        if (f.too_big || f.binary) { box.appendChild(el('div', 'turn-meta', f.too_big ? '(too big to keep)' : '(not text)')); continue; }
        const pre = el('pre', 'diff');
        for (const line of f.diff.split('\n')) {
          const cls = line.startsWith('+') ? 'add' : line.startsWith('-') ? 'del' : line.startsWith('@@') ? 'hunk' : '';
          pre.appendChild(el('span', cls, line + '\n'));
        }
        box.appendChild(pre);
      }
    } catch (err) { box.appendChild(el('div', 'notice err', err.message)); }
  }
  // Rewind: first what it would do (the three-way rule: what you changed
  // since is left alone), then the person chooses.
  async function previewRewind(n, box) {
    box.replaceChildren();
    try {
      const p = await api('api/rewind', {n, preview: true});
      const card = el('div', 'rewind');
      card.appendChild(el('div', null, `Rewind to before turn ${n}:`));
      if (!p.checkpointed) card.appendChild(el('div', 'turn-meta', 'no file was changed from this turn on'));
      for (const c of p.restored) card.appendChild(el('div', 'chg', `puts back ${c.kind} ${c.path}`));
      for (const c of p.conflicts) card.appendChild(el('div', 'chg chg-minus', `leaves alone (changed since): ${c}`));
      for (const c of p.unrestorable) card.appendChild(el('div', 'chg chg-minus', `cannot restore (not stored): ${c}`));
      for (const c of p.refused) card.appendChild(el('div', 'chg chg-minus', `never written: ${c}`));
      const go = (files, conversation) => async () => {
        try {
          const r = await api('api/rewind', {n, files, conversation});
          if (r.question) { const input = $('input'); input.value = r.question + (input.value ? '\n\n' + input.value : ''); }
          notice(r.report.trim());
          box.replaceChildren();
          refreshSide();
        } catch (err) { notice('✗ ' + err.message, 'err'); }
      };
      const both = el('button', 'primary', 'files and conversation'); both.type = 'button'; both.dataset.action = 'rewind-both'; both.onclick = go(true, true);
      const files = el('button', null, 'files only'); files.type = 'button'; files.dataset.action = 'rewind-files'; files.onclick = go(true, false);
      const talk = el('button', null, 'conversation only'); talk.type = 'button'; talk.dataset.action = 'rewind-conversation'; talk.onclick = go(false, true);
      const cancel = el('button', null, 'cancel'); cancel.type = 'button'; cancel.onclick = () => box.replaceChildren();
      const row = el('div', 'answers'); row.append(both, files, talk, cancel);
      card.appendChild(row);
      box.appendChild(card);
    } catch (err) { box.appendChild(el('div', 'notice err', err.message)); }
  }
  function setTitle(title) {
    $('title').textContent = title || 'new session';
    document.title = (title || 'new session') + ' · chat';
  }
  async function refreshSessions() {
    const list = await api('api/sessions');
    const ol = $('sessions');
    ol.replaceChildren();
    for (const s of list) {
      const li = el('li', s.current ? 'current' : '', `${s.title || '(untitled)'} · ${s.messages} messages`);
      li.dataset.id = s.id;
      li.onclick = () => api('api/sessions', {id: s.id}).catch((err) => notice('✗ ' + err.message, 'err'));
      ol.appendChild(li);
    }
  }

  // The repository's worktrees (chat --worktree NAME), each with its
  // latest session: where parallel work stands.
  async function refreshWorktrees() {
    const list = await api('api/worktrees');
    const ol = $('worktrees');
    ol.replaceChildren();
    $('worktrees-section').hidden = list.length === 0;
    for (const w of list) {
      const changed = w.changed.length ? `${w.changed.length} uncommitted` : 'clean';
      const li = el('li', w.current ? 'current' : '', `${w.name} · ${w.branch} · ${changed}${w.ahead ? ` · ${w.ahead} ahead` : ''}`);
      li.appendChild(el('div', 'turn-meta', `${w.title || 'no session'} · ${w.state}`));
      li.title = `${w.dir}\nchat --worktree ${w.name} works there; chat worktree merge ${w.name} brings its work in`;
      ol.appendChild(li);
    }
  }

  // --- loading and the stream ---
  async function reload() {
    if (es) { es.close(); es = null; }
    const st = await api('api/state');
    agents = new Map(); calls = new Map();
    log.replaceChildren();
    approvals.clear(); $('approvals').replaceChildren();
    if (st.earlier > 0) {
      const more = el('button', 'earlier', `show ${st.earlier} earlier messages`); more.type = 'button';
      let before = st.earlier;
      more.onclick = async () => {
        const r = await api('api/messages?before=' + before);
        before = r.earlier;
        drawHistory(r.messages, more.nextSibling);
        if (before === 0) more.remove(); else more.textContent = `show ${before} earlier messages`;
      };
      log.appendChild(more);
    }
    drawHistory(st.messages);
    log.scrollTop = log.scrollHeight;
    performance.mark('chat-history-drawn'); // make bench: a session page's first paint
    setTitle(st.session.title);
    $('model').textContent = st.model;
    drawContext(st.context);
    drawPending(st.pending);
    for (const a of st.approvals) showApproval(a);
    setRunning(st.running);
    refreshSide();
    es = new EventSource('api/events?after=' + st.seq);
    es.onmessage = (m) => { let e; try { e = JSON.parse(m.data); } catch (_) { return; } onEvent(e); };
  }

  // --- the composer ---
  async function send(queue) {
    const input = $('input');
    const text = input.value.trim();
    if (!text) return;
    // Cleared at once: what is typed while the request is on its way is
    // the next message, not erased when the answer comes.
    input.value = '';
    try {
      await api('api/send', {text, queue});
    } catch (err) {
      input.value = text + (input.value ? '\n\n' + input.value : '');
      notice('✗ ' + err.message, 'err');
    }
  }
  // The placeholder fits the screen: a phone gets the short one (the
  // buttons say the rest).
  const longHint = $('input').placeholder, narrow = window.matchMedia('(max-width: 600px)');
  const fitHint = () => { $('input').placeholder = narrow.matches ? 'Message · Enter sends' : longHint; };
  narrow.addEventListener('change', fitHint);
  fitHint();
  $('composer').onsubmit = (e) => { e.preventDefault(); send(false); };
  $('queue').onclick = () => send(true);
  $('stop').onclick = () => api('api/stop', {});
  $('input').onkeydown = (e) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) { e.preventDefault(); send(e.altKey); }
    if (e.key === 'Escape' && running) { e.preventDefault(); api('api/stop', {}); }
  };
  $('menu').onclick = () => { const s = $('side'); s.hidden = !s.hidden; if (!s.hidden) { refreshSessions(); refreshWorktrees().catch(() => {}); } };
  $('new-session').onclick = () => api('api/sessions', {new: true}).catch((err) => notice('✗ ' + err.message, 'err'));
  reload().catch((err) => notice('✗ ' + err.message, 'err'));
})();
