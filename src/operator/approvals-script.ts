// The approvals page's script (served as /runs/page.js): sign-in (the token is kept in
// this tab's sessionStorage and sent only in the Authorization header: never in a URL or
// a cookie, so no other site can make the browser send it), the decision buttons (a
// confirmation repeats each call and its arguments, then POST /runs/<runId>/decisions),
// whole-plan decisions (a confirmation repeats every write of the plan, then POST
// /plans/<planId>/decision), and live updates (it polls /runs.json and /plans.json and
// reloads the list when a run pauses or ends, or a plan comes or goes).
// Text from the server is set with textContent or comes as escaped server-rendered HTML.

/** How often the page asks whether a run paused or ended. */
export const POLL_MS = 2000;

export const APPROVALS_SCRIPT = `'use strict';
(() => {
  const KEY = 'ptc-operator-token';
  const $ = (id) => document.getElementById(id);
  const token = () => sessionStorage.getItem(KEY);
  const auth = () => ({ authorization: 'Bearer ' + token() });
  const say = (text, error) => {
    const p = document.createElement('p');
    if (error) p.className = 'error';
    p.textContent = text;
    $('outcomes').prepend(p);
  };
  const signOut = (why) => {
    sessionStorage.removeItem(KEY);
    $('signin').hidden = false;
    $('state').textContent = why;
  };
  const wire = () => {
    for (const section of document.querySelectorAll('section.run')) {
      const button = section.querySelector('button.send');
      const pending = [...section.querySelectorAll('li.pending')];
      const update = () => {
        button.disabled = pending.some((li) => !li.querySelector('input:checked'));
      };
      for (const input of section.querySelectorAll('input[type=radio]')) input.addEventListener('change', update);
      update();
      button.addEventListener('click', () => decide(section, pending));
    }
    for (const section of document.querySelectorAll('section.plan')) {
      for (const button of section.querySelectorAll('button.approve-plan, button.reject-plan'))
        button.addEventListener('click', () => decidePlan(section, button.classList.contains('approve-plan') ? 'approve' : 'reject'));
    }
    for (const section of document.querySelectorAll('section.undo'))
      section.querySelector('button.finish-undo').addEventListener('click', () => finishUndo(section));
  };
  const finishUndo = async (section) => {
    const planId = section.dataset.planId;
    const writes = [...section.querySelectorAll('h3 + ol li.write')].map((li) => li.textContent);
    const text = 'Finish the undo of plan ' + planId + '? These reverts run, last first:\\n\\n' + writes.join('\\n');
    if (!window.confirm(text.length > 4000 ? text.slice(0, 4000) + '\\n…' : text)) return;
    section.querySelector('button.finish-undo').disabled = true;
    const res = await fetch('/undos/' + encodeURIComponent(planId) + '/finish', {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/json' },
      body: '{}',
    });
    if (res.status === 401) return signOut('The token was refused: sign in again.');
    const body = await res.json().catch(() => null);
    if (!res.ok || body === null) {
      say('Undo of plan ' + planId + ': ' + (body && body.error ? body.error.code + ': ' + body.error.message : 'HTTP ' + res.status), true);
    } else {
      const list = (ws) => ws.map((w) => '#' + w.seq + ' ' + w.name).join(', ') || 'none';
      say('Undo of plan ' + planId + ' finished: undone ' + list(body.undone) + '; not undone ' + list(body.notUndone) + '.', body.notUndone.length > 0);
    }
    await load();
  };
  const decidePlan = async (section, decision) => {
    const planId = section.dataset.planId;
    const writes = [...section.querySelectorAll('li.write')].map(
      (li) => '#' + li.dataset.seq + ' ' + li.dataset.name + ' ' + li.querySelector('pre.args').textContent,
    );
    const text = (decision === 'approve' ? 'APPROVE the whole plan ' : 'REJECT the whole plan ') + planId + '?\\n\\n' + writes.join('\\n\\n');
    if (!window.confirm(text.length > 4000 ? text.slice(0, 4000) + '\\n…' : text)) return;
    for (const b of section.querySelectorAll('button')) b.disabled = true;
    const res = await fetch('/plans/' + encodeURIComponent(planId) + '/decision', {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/json' },
      body: JSON.stringify({ decision }),
    });
    if (res.status === 401) return signOut('The token was refused: sign in again.');
    const body = await res.json().catch(() => null);
    if (!res.ok || body === null) {
      say('Plan ' + planId + ': ' + (body && body.error ? body.error.code + ': ' + body.error.message : 'HTTP ' + res.status), true);
    } else if (decision === 'approve') {
      say('Plan ' + planId + ' approved: its commit can run now.');
    } else {
      say('Plan ' + planId + ' rejected: it can no longer be committed.');
    }
    await load();
  };
  const load = async () => {
    if (token() === null) return signOut('');
    const res = await fetch('/runs', { headers: auth(), cache: 'no-store' });
    if (res.status === 401) return signOut('The token was refused: sign in again.');
    if (!res.ok) return say('Could not load the runs: HTTP ' + res.status, true);
    const doc = new DOMParser().parseFromString(await res.text(), 'text/html');
    const fresh = doc.getElementById('runs');
    if (fresh === null) return say('Could not read the runs page', true);
    $('runs').replaceWith(document.adoptNode(fresh));
    $('signin').hidden = true;
    $('state').textContent = 'Signed in as the operator · updated ' + new Date().toLocaleTimeString();
    wire();
  };
  const decide = async (section, pending) => {
    const runId = section.dataset.runId;
    const decisions = {};
    const lines = [];
    for (const li of pending) {
      const choice = li.querySelector('input:checked').value;
      decisions[li.dataset.callId] = choice;
      lines.push((choice === 'approve' ? 'APPROVE ' : 'DENY ') + li.dataset.name + ' ' + li.querySelector('pre.args').textContent);
    }
    const text = pending.length === 0 ? 'Resume run ' + runId + '?' : 'Send these decisions for run ' + runId + '?\\n\\n' + lines.join('\\n\\n');
    if (!window.confirm(text.length > 4000 ? text.slice(0, 4000) + '\\n…' : text)) return;
    section.querySelector('button.send').disabled = true;
    const res = await fetch('/runs/' + encodeURIComponent(runId) + '/decisions', {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/json' },
      body: JSON.stringify(decisions),
    });
    if (res.status === 401) return signOut('The token was refused: sign in again.');
    const body = await res.json().catch(() => null);
    if (!res.ok || body === null) {
      say('Run ' + runId + ': ' + (body && body.error ? body.error.code + ': ' + body.error.message : 'HTTP ' + res.status), true);
    } else if (body.value && body.value.paused) {
      say('Run ' + runId + ' paused again: ' + body.value.paused.pending.length + ' call(s) wait for a decision.');
    } else if (body.isError) {
      say('Run ' + runId + ' ended with an error: ' + (body.error ? body.error.code + ': ' + body.error.message : ''), true);
    } else {
      say('Run ' + runId + ' finished: ' + JSON.stringify(body.value && 'result' in body.value ? body.value.result : body.value));
    }
    await load();
  };
  const poll = async () => {
    if (token() !== null) {
      try {
        const [res, planRes, undoRes] = await Promise.all([
          fetch('/runs.json', { headers: auth(), cache: 'no-store' }),
          fetch('/plans.json', { headers: auth(), cache: 'no-store' }),
          fetch('/undos.json', { headers: auth(), cache: 'no-store' }),
        ]);
        if (res.status === 401 || planRes.status === 401 || undoRes.status === 401) signOut('The token was refused: sign in again.');
        else if (res.ok && planRes.ok && undoRes.ok) {
          const { runs } = await res.json();
          const { plans } = await planRes.json();
          const { undos } = await undoRes.json();
          const key = JSON.stringify(runs.map((r) => [r.runId, r.status, r.pending.map((p) => p.callId)]));
          const plansKey = JSON.stringify([...undos, ...plans].map((p) => p.planId));
          if (key !== $('runs').dataset.key || plansKey !== $('runs').dataset.plansKey) await load();
        }
      } catch {
        $('state').textContent = 'Offline: retrying…';
      }
    }
    setTimeout(poll, ${POLL_MS});
  };
  $('signin-button').addEventListener('click', () => {
    const value = $('token').value.trim();
    $('token').value = '';
    if (value === '') return;
    sessionStorage.setItem(KEY, value);
    void load();
  });
  $('token').addEventListener('keydown', (e) => {
    if (e.key === 'Enter') $('signin-button').click();
  });
  if (token() === null) signOut($('state').textContent);
  else void load();
  setTimeout(poll, ${POLL_MS});
})();
`;
