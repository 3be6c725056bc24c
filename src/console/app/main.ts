// The web console: log in with a bearer token, browse resources by group from discovery,
// follow lists live, read and apply objects, and see their events, history and owners.
// Routing is in the URL fragment, so the server only ever serves the one page.
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { ApiFailure, collectionPath, discover, historyResource, metadataListAccept, objectPath, request, session, setUnauthorizedHandler, tableAccept, watch, type Discovered, type Json, type Resource } from './api.js';
import { diffLines, withContext } from './diff.js';
import { age, append, clear, h } from './dom.js';

const FIELD_MANAGER = 'orch-console';
const NAMESPACE_KEY = 'orch-console-namespace';

/** Discovery is read again after this long, so that new custom resources appear. */
const DISCOVERY_MAX_AGE_MS = 30_000;

interface State {
  discovered?: Discovered;
  discoveredAt?: number;
  /** '' = all namespaces. */
  namespace: string;
  /** Aborts the current view's requests and watches when the view changes. */
  view?: AbortController;
  loginMessage?: string;
}

const state: State = { namespace: sessionStorage.getItem(NAMESPACE_KEY) ?? 'default' };
const root = document.getElementById('app') as HTMLElement;

// ---- login ----

/** A token in the fragment (`#token=...`, as the server prints it) is taken and removed from the URL at once. */
function takeTokenFromFragment(): void {
  const m = /^#token=([^&]+)/.exec(location.hash);
  if (!m) return;
  session.setToken(decodeURIComponent(m[1]!));
  history.replaceState(null, '', `${location.pathname}#/`);
}

setUnauthorizedHandler((message) => {
  session.clear();
  state.discovered = undefined;
  state.loginMessage = `Not logged in: ${message}`;
  void render();
});

function loginView(): HTMLElement {
  const input = h('textarea', { id: 'token', rows: '4', placeholder: 'Bearer token (for example from kubectl create token <serviceaccount>)', spellcheck: 'false', autocomplete: 'off' });
  const form = h(
    'form',
    {
      id: 'login',
      onsubmit: (ev: Event) => {
        ev.preventDefault();
        const token = input.value.trim();
        if (!token) return;
        session.setToken(token);
        state.loginMessage = undefined;
        location.hash = '#/';
        void render();
      },
    },
    h('h1', {}, 'Log in'),
    h('p', {}, 'Open the console URL the server printed at start, or paste a bearer token. The token is kept in this tab only (session storage) and sent with each request.'),
    state.loginMessage ? h('p', { class: 'error', role: 'alert' }, state.loginMessage) : null,
    input,
    h('button', { type: 'submit' }, 'Log in'),
  );
  return h('main', { class: 'login' }, form);
}

// ---- layout ----

function resourceKey(r: Pick<Resource, 'group' | 'version' | 'name'>): string {
  return `${r.group || '_'}/${r.version}/${r.name}`;
}

function groupLabel(g: string): string {
  return g === '' ? 'core' : g;
}

function findResource(g: string, version: string, name: string): Resource | undefined {
  const group = g === '_' ? '' : g;
  return state.discovered?.resources.find((r) => r.group === group && r.version === version && r.name === name);
}

function findByKind(apiVersion: string, kind: string): Resource | undefined {
  const slash = apiVersion.indexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  return state.discovered?.resources.find((r) => r.group === group && r.kind === kind);
}

function sidebar(): HTMLElement {
  const nav = h('nav', { id: 'resources', 'aria-label': 'Resources' });
  const byGroup = new Map<string, Resource[]>();
  for (const r of state.discovered?.resources ?? []) {
    if (!r.verbs.includes('list')) continue;
    const list = byGroup.get(r.group) ?? [];
    list.push(r);
    byGroup.set(r.group, list);
  }
  const groups = [...byGroup.keys()].sort((a, b) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b)));
  // The core group is open, and the group of the resource on screen.
  const shown = /^#\/(?:list|obj)\/([^/]+)\//.exec(location.hash)?.[1];
  const current = shown === undefined ? undefined : shown === '_' ? '' : decodeURIComponent(shown);
  for (const g of groups) {
    const items = byGroup.get(g)!.sort((a, b) => a.kind.localeCompare(b.kind));
    const details = h('details', { open: g === '' || g === current || undefined, 'data-group': g }, h('summary', {}, groupLabel(g)));
    const ul = h('ul');
    for (const r of items) ul.append(h('li', {}, h('a', { href: `#/list/${resourceKey(r)}`, 'data-resource': `${r.name}${r.group ? `.${r.group}` : ''}` }, r.kind)));
    details.append(ul);
    nav.append(details);
  }
  return nav;
}

async function namespaceSwitcher(): Promise<HTMLElement> {
  const select = h('select', {
    id: 'namespace',
    'aria-label': 'Namespace',
    onchange: (ev: Event) => {
      state.namespace = (ev.target as HTMLSelectElement).value;
      sessionStorage.setItem(NAMESPACE_KEY, state.namespace);
      void render();
    },
  });
  const names = new Set<string>([state.namespace].filter((n) => n !== ''));
  try {
    const list = await request<{ items?: Json[] }>('/api/v1/namespaces');
    for (const ns of list.items ?? []) names.add(String((ns.metadata as Json | undefined)?.name ?? ''));
  } catch {
    // A user who may not list namespaces still works in the one chosen (typed below).
  }
  select.append(h('option', { value: '', selected: state.namespace === '' || undefined }, 'all namespaces'));
  for (const n of [...names].sort()) select.append(h('option', { value: n, selected: n === state.namespace || undefined }, n));
  const other = h('input', {
    id: 'namespace-input',
    placeholder: 'namespace',
    'aria-label': 'Namespace name',
    onchange: (ev: Event) => {
      state.namespace = (ev.target as HTMLInputElement).value.trim();
      sessionStorage.setItem(NAMESPACE_KEY, state.namespace);
      void render();
    },
  });
  return h('span', { class: 'namespace' }, h('label', { for: 'namespace' }, 'Namespace '), select, other);
}

function errorBox(e: unknown): HTMLElement {
  const message = e instanceof Error ? e.message : String(e);
  const box = h('div', { class: 'error', role: 'alert' }, message);
  if (e instanceof ApiFailure && e.causes.length > 0) box.append(h('ul', {}, ...e.causes.map((c) => h('li', {}, c))));
  return box;
}

// ---- views ----

function homeView(main: HTMLElement): void {
  const d = state.discovered!;
  append(
    main,
    h('h1', {}, 'Resources'),
    h('p', {}, `${d.resources.length} resources served (${d.source} discovery). Choose one on the left.`),
    historyResource(d) ? h('p', {}, 'Object history is available: open an object and its History tab.') : h('p', { class: 'muted' }, 'history is not available on this server'),
  );
}

interface TableColumn {
  name: string;
  type: string;
  format?: string;
  priority?: number;
}
interface TableRow {
  cells: unknown[];
  object?: { metadata?: { name?: string; namespace?: string; uid?: string } };
}
interface Table {
  columnDefinitions?: TableColumn[];
  rows?: TableRow[];
  metadata?: { resourceVersion?: string };
}

function cellText(col: TableColumn, value: unknown): string {
  // Ages come rendered by the server ("5m"); a `date` column may hold a timestamp instead.
  if (col.format === 'date' && typeof value === 'string' && !Number.isNaN(Date.parse(value))) return age(value);
  if (value === null || value === undefined) return '<none>';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

async function listView(main: HTMLElement, r: Resource, signal: AbortSignal): Promise<void> {
  const ns = r.namespaced ? state.namespace : '';
  const title = h('h1', {}, r.kind, r.namespaced ? h('small', {}, ns === '' ? ' in all namespaces' : ` in ${ns}`) : null);
  const status = h('p', { class: 'muted', id: 'watch-status' }, 'loading…');
  const table = h('table', { id: 'list', class: 'list' });
  append(main, title, status, table);
  const path = collectionPath(r, ns);
  let list: Table;
  try {
    list = await request<Table>(path, { accept: tableAccept(), signal });
  } catch (e) {
    status.remove();
    main.append(errorBox(e));
    return;
  }
  const columns = (list.columnDefinitions ?? []).map((c, i) => ({ c, i })).filter(({ c }) => (c.priority ?? 0) === 0);
  const showNamespace = r.namespaced && ns === '';
  const rows = new Map<string, TableRow>();
  for (const row of list.rows ?? []) rows.set(row.object?.metadata?.uid ?? JSON.stringify(row.cells), row);
  const draw = (): void => {
    clear(table);
    table.append(h('thead', {}, h('tr', {}, showNamespace ? h('th', {}, 'Namespace') : null, ...columns.map(({ c }) => h('th', {}, c.name)))));
    const body = h('tbody');
    const sorted = [...rows.values()].sort((a, b) => `${a.object?.metadata?.namespace ?? ''}/${a.object?.metadata?.name ?? ''}`.localeCompare(`${b.object?.metadata?.namespace ?? ''}/${b.object?.metadata?.name ?? ''}`));
    for (const row of sorted) {
      const meta = row.object?.metadata ?? {};
      const tr = h('tr', { 'data-name': meta.name ?? '' });
      if (showNamespace) tr.append(h('td', {}, meta.namespace ?? ''));
      columns.forEach(({ c, i }, k) => {
        const text = cellText(c, row.cells[i]);
        tr.append(h('td', {}, k === 0 && meta.name ? h('a', { href: `#/obj/${resourceKey(r)}/${meta.namespace || '_'}/${encodeURIComponent(meta.name)}/yaml` }, text) : text));
      });
      body.append(tr);
    }
    table.append(body);
    if (rows.size === 0) table.append(h('caption', {}, 'No resources found.'));
  };
  draw();
  if (!r.verbs.includes('watch')) {
    status.textContent = `${rows.size} items`;
    return;
  }
  // Live updates: a watch from the list's resourceVersion, the rows of each event's Table merged in.
  let rv = list.metadata?.resourceVersion ?? '';
  const follow = async (): Promise<void> => {
    while (!signal.aborted) {
      status.textContent = 'watching for changes';
      status.className = 'muted live';
      try {
        const sep = path.includes('?') ? '&' : '?';
        await watch(`${path}${sep}watch=1&allowWatchBookmarks=true&resourceVersion=${encodeURIComponent(rv)}`, tableAccept(), signal, (type, object) => {
          const meta = (object as { metadata?: { resourceVersion?: string } }).metadata;
          if (type === 'BOOKMARK') {
            rv = meta?.resourceVersion ?? rv;
            return;
          }
          if (type === 'ERROR') throw new ApiFailure(Number(object.code ?? 500), String(object.message ?? 'watch failed'), object);
          const t = object as Table;
          rv = t.metadata?.resourceVersion ?? rv;
          for (const row of t.rows ?? []) {
            const key = row.object?.metadata?.uid ?? JSON.stringify(row.cells);
            if (type === 'DELETED') rows.delete(key);
            else rows.set(key, row);
          }
          draw();
        });
      } catch (e) {
        if (signal.aborted) return;
        if (e instanceof ApiFailure && e.code === 410) {
          // Too old: start over from a fresh list.
          const fresh = await request<Table>(path, { accept: tableAccept(), signal });
          rows.clear();
          for (const row of fresh.rows ?? []) rows.set(row.object?.metadata?.uid ?? JSON.stringify(row.cells), row);
          rv = fresh.metadata?.resourceVersion ?? '';
          draw();
          continue;
        }
        status.textContent = `watch stopped: ${e instanceof Error ? e.message : String(e)}`;
        status.className = 'error';
        return;
      }
    }
  };
  void follow();
}

const TABS = ['yaml', 'events', 'history', 'relations'] as const;
type Tab = (typeof TABS)[number];
const TAB_LABELS: Record<Tab, string> = { yaml: 'YAML', events: 'Events', history: 'History', relations: 'Owners and dependents' };

async function objectView(main: HTMLElement, r: Resource, namespace: string, name: string, tab: Tab, signal: AbortSignal): Promise<void> {
  const path = objectPath(r, namespace, name);
  const base = `#/obj/${resourceKey(r)}/${namespace || '_'}/${encodeURIComponent(name)}`;
  append(
    main,
    h('h1', {}, `${r.kind} `, h('span', { class: 'name' }, name), namespace ? h('small', {}, ` in ${namespace}`) : null),
    h('p', {}, h('a', { href: `#/list/${resourceKey(r)}` }, `← all ${r.kind}`)),
    h('div', { class: 'tabs', role: 'tablist' }, ...TABS.map((t) => h('a', { href: `${base}/${t}`, role: 'tab', id: `tab-${t}`, 'aria-selected': t === tab ? 'true' : 'false', class: t === tab ? 'active' : undefined }, TAB_LABELS[t]))),
  );
  const panel = h('section', { id: `panel-${tab}`, class: 'panel' });
  main.append(panel);
  // History outlives the object: a deleted object's revisions are still shown.
  if (tab === 'history') return historyTab(panel, r, namespace, name, signal);
  let obj: Json;
  try {
    obj = await request(path, { signal });
  } catch (e) {
    panel.append(errorBox(e));
    if (e instanceof ApiFailure && e.code === 404) panel.append(h('p', {}, h('a', { href: `${base}/history` }, 'Its history may still be there.')));
    return;
  }
  if (tab === 'yaml') return yamlTab(panel, r, namespace, name, obj);
  if (tab === 'events') return eventsTab(panel, obj, signal);
  return relationsTab(panel, r, obj, signal);
}

function forDisplay(obj: Json): Json {
  const copy = structuredClone(obj);
  const meta = copy.metadata as Json | undefined;
  if (meta) delete meta.managedFields;
  return copy;
}

function yamlTab(panel: HTMLElement, r: Resource, namespace: string, name: string, obj: Json): void {
  const editor = h('textarea', { id: 'yaml', class: 'yaml', spellcheck: 'false', rows: '28', 'aria-label': 'Object YAML' });
  editor.value = toYaml(forDisplay(obj));
  const result = h('div', { id: 'apply-result', 'aria-live': 'polite' });
  const apply = async (force: boolean): Promise<void> => {
    clear(result);
    let body: unknown;
    try {
      body = parseYaml(editor.value);
    } catch (e) {
      result.append(h('div', { class: 'error', role: 'alert' }, `invalid YAML: ${e instanceof Error ? e.message : String(e)}`));
      return;
    }
    if (!body || typeof body !== 'object' || Array.isArray(body)) {
      result.append(h('div', { class: 'error', role: 'alert' }, 'the YAML must be one object'));
      return;
    }
    const config = body as Json;
    const meta = config.metadata as Json | undefined;
    // The server owns managed fields; a status served as a subresource is not written through
    // the main resource, and an apply configuration that named it would only claim it.
    if (meta) delete meta.managedFields;
    if (r.subresources.includes('status')) delete config.status;
    try {
      const applied = await request(`${objectPath(r, namespace, name)}?fieldManager=${FIELD_MANAGER}${force ? '&force=true' : ''}`, {
        method: 'PATCH',
        body: JSON.stringify(config),
        contentType: 'application/apply-patch+yaml',
      });
      editor.value = toYaml(forDisplay(applied));
      result.append(h('div', { class: 'ok', role: 'status' }, `applied (resourceVersion ${String((applied.metadata as Json | undefined)?.resourceVersion ?? '')})`));
    } catch (e) {
      result.append(errorBox(e));
      if (e instanceof ApiFailure && e.code === 409 && e.causes.length > 0) {
        result.append(
          h('p', {}, 'Other field managers own these fields. Force the apply to take them over:'),
          h('button', { id: 'force-apply', type: 'button', onclick: () => void apply(true) }, 'Force apply'),
        );
      }
    }
  };
  const editable = r.verbs.includes('patch');
  append(
    panel,
    editor,
    h(
      'div',
      { class: 'actions' },
      editable ? h('button', { id: 'apply', type: 'button', onclick: () => void apply(false) }, 'Apply') : null,
      editable ? h('span', { class: 'muted' }, ` server-side apply as field manager ${FIELD_MANAGER}`) : h('span', { class: 'muted' }, 'this resource cannot be patched'),
    ),
    result,
  );
}

async function eventsTab(panel: HTMLElement, obj: Json, signal: AbortSignal): Promise<void> {
  const meta = (obj.metadata ?? {}) as { uid?: string; namespace?: string };
  const path = `/api/v1${meta.namespace ? `/namespaces/${encodeURIComponent(meta.namespace)}` : ''}/events?fieldSelector=${encodeURIComponent(`involvedObject.uid=${meta.uid ?? ''}`)}`;
  try {
    const list = await request<{ items?: Json[] }>(path, { signal });
    const items = (list.items ?? []).sort((a, b) => String(a.lastTimestamp ?? a.eventTime ?? '').localeCompare(String(b.lastTimestamp ?? b.eventTime ?? '')));
    if (items.length === 0) {
      panel.append(h('p', { class: 'muted' }, 'No events.'));
      return;
    }
    const rows = items.map((e) => {
      const source = e.source as { component?: string } | undefined;
      return h('tr', {}, h('td', {}, String(e.type ?? '')), h('td', {}, String(e.reason ?? '')), h('td', {}, age(e.lastTimestamp ?? e.eventTime)), h('td', {}, String(e.reportingComponent || source?.component || '')), h('td', {}, String(e.message ?? '')), h('td', {}, String(e.count ?? 1)));
    });
    panel.append(h('table', { class: 'list', id: 'events' }, h('thead', {}, h('tr', {}, ...['Type', 'Reason', 'Age', 'From', 'Message', 'Count'].map((c) => h('th', {}, c)))), h('tbody', {}, ...rows)));
  } catch (e) {
    panel.append(errorBox(e));
  }
}

interface Revision {
  metadata?: { name?: string };
  revision?: number;
  timestamp?: string;
  operation?: string;
  subresource?: string;
  user?: { username?: string };
  fieldManager?: string;
  object?: Json;
  patch?: Array<{ op: string; path: string; value?: unknown; from?: string }>;
}

async function historyTab(panel: HTMLElement, r: Resource, namespace: string, name: string, signal: AbortSignal): Promise<void> {
  const hr = state.discovered ? historyResource(state.discovered) : undefined;
  if (!hr) {
    panel.append(h('p', { class: 'muted', id: 'history-unavailable' }, 'history is not available on this server'));
    return;
  }
  const selector = `target.resource=${r.name},target.group=${r.group},target.name=${name}`;
  let revisions: Revision[] = [];
  try {
    // Every page: an object's revisions are bounded by the server's retention.
    let cont = '';
    do {
      const page = await request<{ items?: Revision[]; metadata?: { continue?: string } }>(
        `${collectionPath(hr, r.namespaced ? namespace : '')}?fieldSelector=${encodeURIComponent(selector)}&limit=500${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`,
        { signal },
      );
      revisions.push(...(page.items ?? []));
      cont = page.metadata?.continue ?? '';
    } while (cont);
  } catch (e) {
    panel.append(errorBox(e));
    return;
  }
  revisions = revisions.sort((a, b) => (a.revision ?? 0) - (b.revision ?? 0));
  if (revisions.length === 0) {
    panel.append(h('p', { class: 'muted' }, 'No revisions recorded (they may have passed the retention).'));
    return;
  }
  const timeline = h('ol', { class: 'timeline', id: 'timeline' });
  // Newest first; each entry's diff is from the revision before it.
  for (let i = revisions.length - 1; i >= 0; i--) {
    const rev = revisions[i]!;
    const prev = i > 0 ? revisions[i - 1] : undefined;
    const op = `${rev.operation ?? ''}${rev.subresource ? ` (${rev.subresource})` : ''}`;
    const summary = h(
      'summary',
      {},
      h('span', { class: 'rev' }, `#${rev.revision ?? '?'}`),
      ' ',
      h('span', { class: `op op-${(rev.operation ?? '').toLowerCase()}` }, op),
      ' by ',
      h('span', { class: 'user' }, rev.user?.username ?? 'unknown'),
      rev.fieldManager ? h('span', { class: 'manager' }, ` via ${rev.fieldManager}`) : null,
      ' ',
      h('time', { datetime: rev.timestamp ?? '', title: rev.timestamp ?? '' }, rev.timestamp ? `${age(rev.timestamp)} ago` : ''),
    );
    const details = h('details', { class: 'revision', open: i === revisions.length - 1 || undefined }, summary);
    const patchOps = rev.patch ?? [];
    if (patchOps.length > 0) {
      details.append(h('h3', {}, 'JSON patch from the previous revision'), h('pre', { class: 'patch' }, patchOps.map((p) => `${p.op} ${p.path}${p.from !== undefined ? ` from ${p.from}` : ''}${p.value !== undefined ? ` = ${JSON.stringify(p.value)}` : ''}`).join('\n')));
    } else if (!prev) {
      details.append(h('p', { class: 'muted' }, 'first recorded revision'));
    }
    const before = prev?.object ? toYaml(forDisplay(prev.object)) : '';
    const after = rev.object ? toYaml(forDisplay(rev.object)) : '';
    const pre = h('pre', { class: 'diff' });
    for (const line of withContext(diffLines(before, after))) {
      pre.append(h('span', { class: line.kind === '+' ? 'add' : line.kind === '-' ? 'del' : line.kind === '…' ? 'skip' : 'same' }, `${line.kind} ${line.text}\n`));
    }
    details.append(h('h3', {}, prev ? 'Diff' : 'Object'), pre);
    timeline.append(h('li', {}, details));
  }
  panel.append(timeline);
}

interface OwnerReference {
  apiVersion?: string;
  kind?: string;
  name?: string;
  uid?: string;
  controller?: boolean;
}

async function relationsTab(panel: HTMLElement, r: Resource, obj: Json, signal: AbortSignal): Promise<void> {
  const meta = (obj.metadata ?? {}) as { uid?: string; namespace?: string; ownerReferences?: OwnerReference[] };
  const link = (res: Resource | undefined, ns: string, name: string, label: string): HTMLElement =>
    res ? h('a', { href: `#/obj/${resourceKey(res)}/${res.namespaced ? ns || '_' : '_'}/${encodeURIComponent(name)}/relations` }, label) : h('span', {}, label);
  const owners = meta.ownerReferences ?? [];
  panel.append(h('h2', {}, 'Owners'));
  if (owners.length === 0) panel.append(h('p', { class: 'muted' }, 'No owners.'));
  else {
    panel.append(
      h('ul', { id: 'owners' }, ...owners.map((o) => h('li', {}, link(findByKind(o.apiVersion ?? '', o.kind ?? ''), meta.namespace ?? '', o.name ?? '', `${o.kind}/${o.name}`), o.controller ? ' (controller)' : ''))),
    );
  }
  panel.append(h('h2', {}, 'Dependents'));
  const found = h('ul', { id: 'dependents' });
  const status = h('p', { class: 'muted' }, 'searching…');
  panel.append(status, found);
  // Dependents name this uid in their ownerReferences: a namespaced owner's are in its
  // namespace; a cluster-scoped owner's may be anywhere. Metadata only, one list per resource.
  const candidates = (state.discovered?.resources ?? []).filter((c) => c.verbs.includes('list') && (r.namespaced ? c.namespaced : true));
  let count = 0;
  await Promise.all(
    candidates.map(async (c) => {
      try {
        const list = await request<{ items?: Array<{ metadata?: { name?: string; namespace?: string; ownerReferences?: OwnerReference[] } }> }>(collectionPath(c, r.namespaced ? (meta.namespace ?? '') : ''), { accept: metadataListAccept(), signal });
        for (const item of list.items ?? []) {
          if (!(item.metadata?.ownerReferences ?? []).some((o) => o.uid === meta.uid)) continue;
          count++;
          found.append(h('li', {}, link(c, item.metadata?.namespace ?? '', item.metadata?.name ?? '', `${c.kind}/${item.metadata?.name ?? ''}`)));
        }
      } catch {
        // Resources the user may not list are left out.
      }
    }),
  );
  status.textContent = count === 0 ? 'No dependents.' : `${count} dependent${count === 1 ? '' : 's'}`;
}

interface NodeInfo {
  metadata?: { name?: string };
  status?: { conditions?: Array<{ type?: string; status?: string }>; capacity?: Record<string, string> };
}
interface PodInfo {
  metadata?: { name?: string; namespace?: string };
  spec?: { nodeName?: string };
  status?: { phase?: string };
}

async function nodesView(main: HTMLElement, signal: AbortSignal): Promise<void> {
  main.append(h('h1', {}, 'Nodes and their pods'));
  try {
    const [nodes, pods] = await Promise.all([request<{ items?: NodeInfo[] }>('/api/v1/nodes', { signal }), request<{ items?: PodInfo[] }>('/api/v1/pods', { signal })]);
    const items = nodes.items ?? [];
    if (items.length === 0) {
      main.append(h('p', { class: 'muted' }, 'No nodes (start the server with --simulated-nodes 3 to simulate some).'));
      return;
    }
    const byNode = new Map<string, PodInfo[]>();
    const pending: PodInfo[] = [];
    for (const p of pods.items ?? []) {
      const n = p.spec?.nodeName;
      if (!n) pending.push(p);
      else byNode.set(n, [...(byNode.get(n) ?? []), p]);
    }
    const pod = (p: PodInfo): HTMLElement =>
      h('li', { class: `pod phase-${(p.status?.phase ?? 'unknown').toLowerCase()}`, title: `${p.metadata?.namespace}/${p.metadata?.name}: ${p.status?.phase ?? ''}` }, h('a', { href: `#/obj/_/v1/pods/${p.metadata?.namespace ?? '_'}/${encodeURIComponent(p.metadata?.name ?? '')}/yaml` }, `${p.metadata?.namespace}/${p.metadata?.name}`));
    const grid = h('div', { class: 'nodes', id: 'node-map' });
    for (const n of items) {
      const ready = n.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
      const podsOn = byNode.get(n.metadata?.name ?? '') ?? [];
      grid.append(
        h(
          'section',
          { class: `node ${ready ? 'ready' : 'not-ready'}` },
          h('h2', {}, h('a', { href: `#/obj/_/v1/nodes/_/${encodeURIComponent(n.metadata?.name ?? '')}/yaml` }, n.metadata?.name ?? ''), h('span', { class: 'badge' }, ready ? 'Ready' : 'NotReady')),
          h('p', { class: 'muted' }, `${podsOn.length} pod${podsOn.length === 1 ? '' : 's'}; capacity ${n.status?.capacity?.cpu ?? '?'} cpu, ${n.status?.capacity?.pods ?? '?'} pods`),
          h('ul', { class: 'pods' }, ...podsOn.map(pod)),
        ),
      );
    }
    main.append(grid);
    if (pending.length > 0) main.append(h('h2', {}, 'Not scheduled'), h('ul', { class: 'pods' }, ...pending.map(pod)));
  } catch (e) {
    main.append(errorBox(e));
  }
}

// ---- routing ----

async function render(): Promise<void> {
  state.view?.abort();
  const view = new AbortController();
  state.view = view;
  takeTokenFromFragment();
  clear(root);
  if (!session.token()) {
    root.append(loginView());
    return;
  }
  if (!state.discovered || Date.now() - (state.discoveredAt ?? 0) > DISCOVERY_MAX_AGE_MS) {
    if (!state.discovered) root.append(h('p', { class: 'muted' }, 'loading discovery…'));
    try {
      state.discovered = await discover(new URLSearchParams(location.search).has('legacy-discovery'));
      state.discoveredAt = Date.now();
    } catch (e) {
      if (view.signal.aborted) return;
      clear(root);
      if (!session.token()) {
        root.append(loginView());
        return;
      }
      root.append(errorBox(e));
      return;
    }
    if (view.signal.aborted) return;
  }
  const main = h('main', { id: 'main' });
  const header = h(
    'header',
    {},
    h('a', { href: '#/', class: 'brand' }, 'Orch console'),
    await namespaceSwitcher(),
    h('a', { href: '#/nodes', id: 'nodes-link' }, 'Node map'),
    h(
      'button',
      {
        type: 'button',
        id: 'logout',
        onclick: () => {
          session.clear();
          state.discovered = undefined;
          location.hash = '#/';
          void render();
        },
      },
      'Log out',
    ),
  );
  if (view.signal.aborted) return;
  clear(root);
  append(root, header, h('div', { class: 'layout' }, sidebar(), main));
  const parts = location.hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent);
  const signal = view.signal;
  if (parts[0] === 'list' && parts.length === 4) {
    const r = findResource(parts[1]!, parts[2]!, parts[3]!);
    if (r) return listView(main, r, signal);
  } else if (parts[0] === 'obj' && parts.length >= 6) {
    const r = findResource(parts[1]!, parts[2]!, parts[3]!);
    const tab = (TABS as readonly string[]).includes(parts[6] ?? '') ? (parts[6] as Tab) : 'yaml';
    if (r) return objectView(main, r, parts[4] === '_' ? '' : parts[4]!, parts[5]!, tab, signal);
  } else if (parts[0] === 'nodes') {
    return nodesView(main, signal);
  } else if (parts[0] === '' || parts.length === 0) {
    return homeView(main);
  }
  main.append(h('p', { class: 'error' }, 'Nothing here: the server does not serve this resource.'));
}

window.addEventListener('hashchange', () => void render());
void render();
