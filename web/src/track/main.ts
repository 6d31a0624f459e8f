// The tracking page's script (DESIGN §15): the server renders the whole page; this adds the map,
// follows the delivery live (SSE, else polling) and sends the customer's forms, so the page never
// needs a reload. No framework: Leaflet is most of the budget (< 100 KB gzipped for the page).
import { follow, type LiveState } from './live';
import { TrackMap } from './map';

const main = document.getElementById('track');
if (main) start(main);

function start(root: HTMLElement): void {
  const code = root.dataset.code ?? '';
  const lang = root.dataset.lang ?? 'en';
  let status = root.dataset.status ?? '';
  let rev: number | null = null;
  let map = TrackMap.mount();
  const live = document.getElementById('live');
  // The thanks for the customer's last action, shown again after every re-read of the page: the
  // action's own event also reaches the stream, whose re-read would otherwise wipe it.
  let thanks: { action: string; text: string } | null = null;

  /** Re-reads the page and swaps its content in; the map (and its tiles) stays where it is. */
  async function reload(): Promise<void> {
    const res = await fetch(`/track/${encodeURIComponent(code)}?lang=${lang}`, { headers: { Accept: 'text/html' } });
    if (!res.ok) return;
    const doc = new DOMParser().parseFromString(await res.text(), 'text/html');
    const fresh = doc.getElementById('track');
    const current = document.getElementById('track');
    if (!fresh || !current) return;
    const oldMap = current.querySelector('#map-card');
    const newMap = fresh.querySelector('#map-card');
    if (oldMap && newMap) {
      map?.update(newMap.querySelector<HTMLElement>('#map')?.dataset.courier ?? '');
      newMap.replaceWith(oldMap);
    }
    status = fresh.dataset.status ?? status;
    // The line under the page says whether it is live: the fresh copy's is empty until the stream speaks again.
    const liveNow = current.querySelector('#live')?.textContent ?? '';
    const liveFresh = fresh.querySelector('#live');
    if (liveFresh && liveNow) liveFresh.textContent = liveNow;
    current.replaceWith(fresh);
    // A map the page did not have (none is drawn once an attempt is over; a new day brings it back).
    if (!oldMap && newMap) map = TrackMap.mount();
    document.title = doc.title;
    bindForms();
    showThanks();
  }

  function showThanks(): void {
    if (!thanks) return;
    const note =
      document.querySelector(`form[data-action="${thanks.action}"] .form-msg`) ?? document.getElementById('live');
    if (note) note.textContent = thanks.text;
  }

  function apply(s: LiveState): void {
    if (rev === null) rev = s.rev;
    if (s.status !== status || s.rev !== rev) {
      rev = s.rev;
      void reload().then(() => apply({ ...s, rev: s.rev }));
      return;
    }
    setText('eta', 'eta-text', s.eta);
    setText('stops', null, s.stops);
    // The window asked for stands in for an arrival estimate while there is none (page.ts, data-until-eta).
    const requested = document.getElementById('requested');
    if (requested?.hasAttribute('data-until-eta')) requested.hidden = s.eta !== null;
    map?.moveCourier(s.courier);
  }

  function onLine(up: boolean): void {
    const el = document.getElementById('live') ?? live;
    if (el) el.textContent = (up ? el.dataset.live : el.dataset.offline) ?? '';
    // A stream that connects after the customer's action (a rated delivery's page has no form
    // left, so its thanks lives in this same line) must not wipe the thanks.
    if (up) showThanks();
  }

  function bindForms(): void {
    for (const form of document.querySelectorAll<HTMLFormElement>('form[data-action]')) {
      form.addEventListener('submit', (e) => {
        e.preventDefault();
        if (ready(form)) void send(form);
      });
      // A form that waits for a choice (the rating's stars) is sent only once one is made: its
      // button is enabled, and the line saying what to choose hidden, from then on.
      if (form.dataset.wait) {
        form.addEventListener('change', () => sync(form));
        sync(form);
      }
    }
  }

  async function send(form: HTMLFormElement): Promise<void> {
    const msg = form.querySelector<HTMLElement>('.form-msg');
    const button = form.querySelector('button');
    const data = new FormData(form);
    const body: Record<string, unknown> = {};
    // `do` names the form for the page's own form post (no script); the JSON route is named by the path.
    for (const [k, v] of data) if (k !== 'do') body[k] = k === 'rating' ? Number(v) : String(v);
    if (button) button.disabled = true;
    try {
      const res = await fetch(`/track/${encodeURIComponent(code)}/${form.dataset.action ?? ''}?lang=${lang}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
        body: JSON.stringify(body),
      });
      if (!res.ok) throw new Error(String(res.status));
      // The thanks goes where the form was (the same form on the new page, else the page's status line).
      // "{day}": the day chosen, as the form wrote it.
      const day = form.querySelector('input[name="day"]:checked')?.parentElement?.textContent?.trim() ?? '';
      thanks = { action: form.dataset.action ?? '', text: (msg?.dataset.ok ?? '').replace('{day}', day) };
      await reload();
    } catch {
      if (msg) msg.textContent = msg.dataset.fail ?? '';
    } finally {
      if (button) button.disabled = !ready(form);
    }
  }

  bindForms();
  follow(code, lang, apply, onLine);
}

/** Whether the choice a form waits for (data-wait: the name of its radio group) is made. */
function ready(form: HTMLFormElement): boolean {
  const wait = form.dataset.wait;
  return !wait || form.querySelector(`input[name="${wait}"]:checked`) !== null;
}

function sync(form: HTMLFormElement): void {
  const ok = ready(form);
  const hint = form.querySelector<HTMLElement>('.form-hint');
  if (hint) hint.hidden = ok;
  const button = form.querySelector('button');
  if (!button) return;
  button.disabled = !ok;
  // The button is described by the line only while it says why the button is disabled.
  if (ok) button.removeAttribute('aria-describedby');
  else if (hint) button.setAttribute('aria-describedby', hint.id);
}

function setText(boxId: string, textId: string | null, text: string | null): void {
  const box = document.getElementById(boxId);
  if (!box) return;
  box.hidden = text === null;
  const target = textId ? document.getElementById(textId) : box;
  if (target && text !== null && target.textContent !== text) target.textContent = text;
}

export type { LiveState };
