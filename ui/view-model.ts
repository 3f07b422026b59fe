/**
 * The TUI's view model: a pure function from what the emulator shows (ChassisSnapshot, data-plane
 * stats, SEL feed, HA status — chassis/runtime/view.ts) and the UI's own state (selection, size,
 * last message) to laid-out lines of coloured text. No I/O, no blessed, no clock: the same input
 * gives the same screen, so it is tested as a function (test/unit/ui/view-model.test.ts) and the
 * panels (ui/panels/*) only turn `Line`s into blessed tags.
 *
 * Screen layout (rows, for height H ≥ 20; every part is clipped to the width W ≥ 40):
 *   0            title: shelf name, traffic source, SEL clock
 *   1 … 9        front view: one column per slot in PHYSICAL order (left to right as on the
 *                shelf), rows pos / slot (logical) / board / state (M0…M7) / HA / LED / pkt/s /
 *                sess / load (sparkline)
 *   10           management row: shelf managers, fan trays, PEMs with their M-states
 *   11 … H-3     detail pane (selected FRU: identity, M-state, LED, power, HA, traffic, session
 *                table, RS table à la `ipvsadm -Ln`, sensors with thresholds, FRU data, console)
 *                beside the event pane (newest SEL records at the bottom)
 *   H-2          message line (result of the last command)
 *   H-1          status line (shelf totals, addresses, key hints)
 * Slots are named by their logical number everywhere; the `pos` row gives physical positions.
 */
import type { ChassisSnapshot, FruSnapshot, SensorSnapshot } from '../chassis/model/snapshot.ts';
import type { BoardStats, HubStats, RsTable } from '../chassis/dataplane/types.ts';
import type { FeedEntry } from '../chassis/runtime/event-feed.ts';
import type { EmulatorView } from '../chassis/runtime/view.ts';
import { HOT_SWAP_CAUSE_TEXT, M_STATE_NAME, type MState } from '../chassis/model/hot-swap.ts';
import { plannedOutWord } from '../chassis/model/out-of-service.ts';
import { lostSplitForms, narrowEventText, shmcName, shmcNamesIn } from './lost-text.ts';
import { wrapGroups } from './wrap.ts';
import type { Color, Line, Seg } from './text.ts';
import { cell, compact, fit, grouped, sparkline, clockText, textLength } from './text.ts';

export type { Color, Line, Seg } from './text.ts';

/** What the UI itself holds: selection, terminal size, help overlay, last message, scroll. */
export interface UiState {
  /** Selected FRU name or `slotN` (an empty slot can be selected too). */
  selected: string;
  /** Terminal columns and rows. */
  width: number;
  height: number;
  help: boolean;
  message?: { text: string; level: 'info' | 'error' };
  /** First detail line shown (PgUp/PgDn). */
  detailScroll: number;
}

/** Everything the view model reads. */
export interface ViewInput {
  view: EmulatorView;
  /** RS table of the selected processor board, if any. */
  rsTable?: RsTable;
  ui: UiState;
}

/** Row and column geometry of the screen. */
export interface Layout {
  width: number;
  height: number;
  titleRow: number;
  frontTop: number;
  frontRows: number;
  mgmtRow: number;
  paneTop: number;
  paneHeight: number;
  detailWidth: number;
  eventsWidth: number;
  messageRow: number;
  statusRow: number;
  labelWidth: number;
  colWidth: number;
}

/** The laid-out screen. Every Line is at most `layout.width` (panes: their width) characters. */
export interface ViewModel {
  layout: Layout;
  title: Line;
  front: Line[];
  mgmt: Line;
  detailTitle: Line;
  /** All detail lines (the pane shows `paneHeight - 1` of them from `detailScroll`). */
  detail: Line[];
  eventsTitle: Line;
  /** The newest events that fit, oldest first. */
  events: Line[];
  message: Line;
  status: Line;
  /** Help overlay lines (present when `ui.help`). */
  help?: Line[];
}

/** Width of the row labels of the front view. */
export const LABEL_WIDTH = 6;
/** Labels of the front-view rows, top to bottom. */
export const FRONT_ROWS = ['pos', 'slot', 'board', 'state', 'HA', 'LED', 'pkt/s', 'sess', 'load'] as const;

/** Colour of each M-state. */
export const M_STATE_COLOR: Readonly<Record<MState, Color>> = {
  0: 'gray',
  1: 'light-blue',
  2: 'yellow',
  3: 'cyan',
  4: 'green',
  5: 'magenta',
  6: 'light-magenta',
  7: 'red',
};

/** Short role names for the front view (the HA roles, docs/ha.md "Roles"); `failed` reads `off`/`out` for a planned absence (roleAbbr). */
export const ROLE_ABBR: Readonly<Record<string, string>> = {
  booting: 'boot',
  arbitrating: 'arb',
  active: 'act',
  'standby.ready': 'rdy',
  'standby.hot': 'hot',
  resetting: 'rst',
  failed: 'fail',
};

/** The front view's word for `role` of FRU `f`: `off`/`out` for a planned absence (out-of-service.ts), else ROLE_ABBR's. */
export function roleAbbr(f: FruSnapshot, role: string): string {
  return (role === 'failed' ? plannedOutWord(f.state, f.lastCause) : undefined) ?? ROLE_ABBR[role] ?? role;
}

/** Colour of a role (a planned absence is gray, not red). */
export function roleColor(role: string, f?: FruSnapshot): Color {
  if (role === 'failed' && f && plannedOutWord(f.state, f.lastCause)) return 'gray';
  if (role === 'active') return 'green';
  if (role.startsWith('standby')) return 'cyan';
  if (role === 'booting' || role === 'arbitrating') return 'yellow';
  return 'red';
}

/** The keys of the help overlay (kept here so the docs and the screen agree). */
export const HELP_LINES: readonly string[] = [
  'atcasim keys',
  '',
  '←/→, Tab/S-Tab  select a slot (↑/↓: front row ↔ ShMC/fan/PEM row)',
  'x   open the handle: deactivate (M4 → M5 → M6 → M1)',
  'i   close the handle: activate (M1 → M2 → M3 → M4)',
  'e   extract the board (M0); on an extracted board: insert it',
  'f   inject a payload fault        r   repair',
  's   switchover: on a ShMC the ShMC pair; on a processor board its share',
  'w   hang the selected node (it stops feeding its watchdog)',
  'PgUp/PgDn  scroll the detail pane    a   HA status (atcasim status)',
  '?   this help (any key closes)    q   quit (Ctrl-C too)',
];

// ------------------------------------------------------------------ text helpers
export { compact, grouped, sparkline, clockText, fit, lineText } from './text.ts';

// ------------------------------------------------------------------ layout

/** Computes the geometry for a terminal of `width` × `height` and `slots` front slots. */
export function computeLayout(width: number, height: number, slots: number): Layout {
  const w = Math.max(40, Math.floor(width));
  const h = Math.max(16, Math.floor(height));
  const colWidth = Math.max(4, Math.min(10, Math.floor((w - LABEL_WIDTH) / Math.max(1, slots))));
  const frontRows = FRONT_ROWS.length;
  const paneTop = 1 + frontRows + 1;
  const paneHeight = Math.max(3, h - paneTop - 2);
  const detailWidth = Math.max(20, Math.floor(w * 0.6));
  return {
    width: w,
    height: h,
    titleRow: 0,
    frontTop: 1,
    frontRows,
    mgmtRow: 1 + frontRows,
    paneTop,
    paneHeight,
    detailWidth,
    eventsWidth: w - detailWidth,
    messageRow: h - 2,
    statusRow: h - 1,
    labelWidth: LABEL_WIDTH,
    colWidth,
  };
}

// ------------------------------------------------------------------ selection

/**
 * The order in which arrows and Tab walk the FRUs: the front slots left to right (physical
 * order, named `slotN` by logical number, empty ones included), then the FRUs without a slot
 * (shelf managers, fan trays, PEMs) in configuration order.
 */
export function selectionOrder(s: ChassisSnapshot): string[] {
  const byPhysical = [...s.slots].sort((a, b) => a.physical - b.physical).map((x) => `slot${x.logical}`);
  return [...byPhysical, ...s.frus.filter((f) => f.slot === undefined).map((f) => f.name)];
}

/** The FRU snapshot for a selection key, or undefined (empty slot / unknown). */
export function selectedFru(s: ChassisSnapshot, key: string): FruSnapshot | undefined {
  const m = /^slot(\d+)$/.exec(key);
  if (m) return s.frus.find((f) => f.slot === Number(m[1]));
  return s.frus.find((f) => f.name === key);
}

// ------------------------------------------------------------------ per-FRU facts

/** The role shown for a FRU: its own key, else its home share (`pair/name`), else the first. */
export function primaryRole(f: FruSnapshot): { key: string; role: string; epoch: number } | undefined {
  return f.roles.find((r) => r.key === f.name) ?? f.roles.find((r) => r.key.endsWith(`/${f.name}`)) ?? f.roles[0];
}

function blueLed(f: FruSnapshot): { symbol: string; text: string } {
  const led = f.leds.find((l) => l.name === 'blue') ?? f.leds[0];
  if (!led) return { symbol: ' ', text: 'none' };
  switch (led.fn.mode) {
    case 'on':
      return { symbol: '●', text: 'on' };
    case 'off':
      return { symbol: '○', text: 'off' };
    case 'lamp-test':
      return { symbol: '◆', text: 'lamp test' };
    default:
      return led.fn.onMs >= led.fn.offMs
        ? { symbol: '◐', text: `long blink (${led.fn.onMs}/${led.fn.offMs} ms)` }
        : { symbol: '◑', text: `short blink (${led.fn.onMs}/${led.fn.offMs} ms)` };
  }
}

function kindText(f: FruSnapshot): string {
  switch (f.kind) {
    case 'hub':
      return 'hub';
    case 'processor':
      return 'proc';
    case 'shmc':
      return 'ShMC';
    case 'fan':
      return 'fan';
    case 'pem':
      return 'PEM';
  }
}

const KIND_LONG: Readonly<Record<FruSnapshot['kind'], string>> = {
  hub: 'hub (switch) board',
  processor: 'processor board',
  shmc: 'shelf manager',
  fan: 'fan tray',
  pem: 'power entry module',
};

const UNIT_SHORT: Readonly<Record<string, string>> = { 'degrees C': 'C', Volts: 'V', Amps: 'A', Watts: 'W', RPM: 'RPM' };

function hex2(n: number): string {
  return `0x${n.toString(16).padStart(2, '0')}`;
}

// ------------------------------------------------------------------ builders

function buildTitle(v: EmulatorView, l: Layout): Line {
  const s = v.snapshot;
  const src = v.source ? `${v.source.file} @ ${v.source.rate === 'capture' ? 'capture pace' : `${compact(v.source.rate)} pkt/s`}` : 'no traffic source';
  return fit(
    [
      { text: ' atcasim ', bold: true, inverse: true },
      { text: ` ${s.shelf.name} `, bold: true },
      { text: `| ${src} | SEL clock ${clockText(s.selTime)} UTC` },
    ],
    l.width,
    true,
  );
}

function buildFront(v: EmulatorView, ui: UiState, l: Layout): Line[] {
  const s = v.snapshot;
  const cw = l.colWidth;
  const phys = [...s.slots].sort((a, b) => a.physical - b.physical);
  const t = v.traffic;
  const hubs = new Map<number, HubStats>((t?.hubs ?? []).map((h) => [h.slot, h]));
  const boards = new Map<number, BoardStats>((t?.boards ?? []).map((b) => [b.slot, b]));
  let max = 0;
  for (const h of v.history.values()) for (const x of h) if (x > max) max = x;
  const rows: Seg[][] = FRONT_ROWS.map((label) => [{ text: label.padEnd(l.labelWidth), bold: true }]);
  for (const slot of phys) {
    const f = s.frus.find((x) => x.slot === slot.logical);
    const sel = ui.selected === `slot${slot.logical}`;
    rows[0]!.push(cell(String(slot.physical), cw, { fg: 'gray' }));
    rows[1]!.push(cell(String(slot.logical), cw, { bold: true, inverse: sel }));
    if (!f) {
      rows[2]!.push(cell('--', cw, { fg: 'gray', inverse: sel }));
      for (let r = 3; r < rows.length; r++) rows[r]!.push(cell('', cw));
      continue;
    }
    rows[2]!.push(cell(kindText(f), cw, { inverse: sel }));
    rows[3]!.push(cell(f.stateLabel, cw, { fg: M_STATE_COLOR[f.state], bold: true }));
    const role = primaryRole(f);
    let roleText = role ? roleAbbr(f, role.role) : '';
    if (role && cw >= 8) {
      const other = f.roles.find((r) => r !== role && r.key !== role.key);
      const both = other ? `${roleText}/${roleAbbr(f, other.role)}` : roleText;
      // both roles when they fit the column (one space kept), else the primary one alone
      if (both.length <= cw - 1) roleText = both;
    }
    rows[4]!.push(cell(roleText, cw, role ? { fg: roleColor(role.role, f) } : {}));
    rows[5]!.push(cell(blueLed(f).symbol, cw, { fg: 'light-blue' }));
    const hs = hubs.get(slot.logical);
    const bs = boards.get(slot.logical);
    const pps = hs?.pps ?? bs?.pps;
    rows[6]!.push(cell(pps === undefined ? '' : compact(pps), cw, pps && pps > 0 ? {} : { fg: 'gray' }));
    rows[7]!.push(cell(bs ? compact(bs.sessions.active) : hs ? '-' : '', cw, { fg: bs ? undefined : 'gray' }));
    rows[8]!.push(cell(sparkline(v.history.get(slot.logical) ?? [], cw - 1, max), cw, { fg: 'green' }));
  }
  return rows.map((r) => fit(r, l.width, true));
}

function buildMgmt(v: EmulatorView, ui: UiState, l: Layout): Line {
  const frus = v.snapshot.frus.filter((f) => f.slot === undefined);
  const build = (withRoles: boolean): Seg[] => {
    const segs: Seg[] = [{ text: 'mgmt'.padEnd(l.labelWidth), bold: true }];
    frus.forEach((f, i) => {
      if (i > 0) segs.push({ text: '  ' });
      segs.push({ text: f.kind === 'shmc' ? shmcName(f.name) : f.name, inverse: ui.selected === f.name, bold: f.name === v.snapshot.shelf.activeShmc });
      segs.push({ text: ' ' });
      segs.push({ text: f.stateLabel, fg: M_STATE_COLOR[f.state], bold: true });
      const r = primaryRole(f);
      if (withRoles && r) segs.push({ text: ` ${roleAbbr(f, r.role)}`, fg: roleColor(r.role, f) });
    });
    return segs;
  };
  const full = build(true);
  return fit(textLength(full) <= l.width ? full : build(false), l.width, true);
}

function sensorLine(x: SensorSnapshot, nameWidth: number): Line {
  if (x.kind === 'hotswap') {
    return [{ text: `${x.name.padEnd(nameWidth)} ` }, { text: `M${x.value}`, fg: M_STATE_COLOR[(x.value & 7) as MState] }];
  }
  const value = Number.isInteger(x.value) ? String(x.value) : x.value.toFixed(2);
  const unit = UNIT_SHORT[x.unit] ?? x.unit;
  const color: Color | undefined = x.status === 'ok' ? 'green' : x.status === 'nc' ? 'yellow' : x.status === 'ns' ? 'gray' : 'red';
  const th = x.thresholds
    ? (['lnr', 'lc', 'lnc', 'unc', 'uc', 'unr'] as const)
        .filter((k) => x.thresholds![k] !== undefined)
        .map((k) => `${k} ${x.thresholds![k]}`)
        .join(' ')
    : '';
  return [{ text: `${x.name.padEnd(nameWidth)} ${`${value} ${unit}`.padEnd(10)} ` }, { text: x.status.padEnd(3), fg: color }, { text: th, fg: 'gray' }];
}

function rsLines(t: RsTable): Line[] {
  const out: Line[] = [
    [{ text: 'Prot LocalAddress:Port Scheduler', bold: true }],
    [{ text: '  -> RemoteAddress Fwd Weight  Active InAct', bold: true }],
  ];
  for (const s of t.services) {
    const flags = s.persistenceMs > 0 ? ` persistent ${Math.round(s.persistenceMs / 1000)}` : '';
    out.push([
      { text: `${s.protocol.padEnd(4)} ${s.vip}:${s.port} ${s.scheduler}${flags}` },
      ...(s.alarm ? [{ text: '  ALARM', fg: 'red' as const, bold: true }] : []),
    ]);
    for (const r of s.realServers) {
      const w = r.effectiveWeight !== r.weight ? `${r.weight}(${r.effectiveWeight})` : String(r.weight);
      const addr = r.address.length > 13 ? `${r.address.slice(0, 12)}…` : r.address.padEnd(13);
      out.push([
        { text: `  -> ${addr} ${r.forward.padEnd(3)} ${w.padEnd(6)} ${String(r.active).padStart(7)} ${String(r.inactive).padStart(5)} ` },
        { text: r.health, fg: r.health === 'up' ? 'green' : 'red' },
      ]);
    }
  }
  return out;
}

function haLines(f: FruSnapshot, v: EmulatorView, width: number): Line[] {
  const out: Line[] = [];
  if (f.roles.length > 0) {
    const groups: Seg[][] = [[{ text: 'HA', bold: true }]];
    f.roles.forEach((r, i) => {
      const word = r.role === 'failed' ? plannedOutWord(f.state, f.lastCause) : undefined;
      groups.push([{ text: `${i > 0 ? ',' : ''} ${r.key} ` }, { text: word ? `${word} (planned)` : r.role, fg: roleColor(r.role, f) }, { text: ` epoch ${r.epoch}` }]);
    });
    out.push(...wrapGroups(groups, width));
  } else if (f.kind === 'shmc' || f.kind === 'processor') {
    out.push([{ text: 'HA ', bold: true }, { text: v.haAvailable ? 'no role reported yet' : 'off (started with --no-ha)', fg: 'gray' }]);
  }
  for (const m of v.ha.filter((x) => x.node === f.name)) {
    const hb = Number.isFinite(m.heartbeatAgeMs) ? `heartbeat ${Math.round(m.heartbeatAgeMs)} ms ago` : 'no heartbeat heard';
    const wd = m.watchdogMs === undefined ? 'stopped' : `${(m.watchdogMs / 1000).toFixed(1)} s`;
    // narrow panes (80 columns): hb / wd / lag, so each share keeps one line and the traffic lines stay in view
    const n = width < 60;
    const hbN = Number.isFinite(m.heartbeatAgeMs) ? `hb ${Math.round(m.heartbeatAgeMs)} ms` : 'no hb';
    const groups: Seg[][] = [[{ text: `  ${m.share}: ${n ? hbN : hb}` }], [{ text: `, ${n ? 'wd' : 'watchdog'} ${wd}` }]];
    if (m.syncLagMs !== undefined) groups.push([{ text: `, ${n ? 'lag' : 'sync lag'} ${Math.round(m.syncLagMs)} ms` }]);
    for (const a of m.alarms) groups.push([{ text: ` ${a}`, fg: 'red' }]);
    out.push(...wrapGroups(groups, width));
  }
  return out;
}

/** The detail pane's lost lines: the shelf's split by age (LostByAge) and the board's data-plane total, labelled as such. */
function lostLines(v: EmulatorView, b: BoardStats, width: number): Line[] {
  const dp = `data plane lost ${grouped(b.sessions.lost)}`;
  const forms = lostSplitForms(v.lostByAge).map((f) => `shelf ${f}`);
  const red = v.lostByAge && v.lostByAge.established > 0 ? ('red' as const) : undefined;
  const one = forms.map((f) => `${f}  ${dp}`).find((x) => x.length <= width);
  if (one !== undefined) return [[{ text: one.slice(0, one.length - dp.length - 2), fg: red }, { text: `  ${dp}`, fg: 'gray' }]];
  return [[{ text: forms.find((f) => f.length <= width) ?? forms[forms.length - 1]!, fg: red }], [{ text: dp, fg: 'gray' }]];
}

function buildDetail(input: ViewInput, l: Layout): { title: Line; lines: Line[] } {
  const { view: v, ui } = input;
  const s = v.snapshot;
  const f = selectedFru(s, ui.selected);
  const m = /^slot(\d+)$/.exec(ui.selected);
  if (!f) {
    const n = m ? Number(m[1]) : 0;
    const slot = s.slots.find((x) => x.logical === n);
    return {
      title: [{ text: ` ${ui.selected} `, bold: true, inverse: true }, { text: ' empty slot' }],
      lines: slot
        ? [
            [{ text: `slot${n}: empty ${slot.role} slot at physical position ${slot.physical}` }],
            [{ text: `hardware address ${hex2(0x40 + n)}, IPMB-0 ${hex2(2 * (0x40 + n))}`, fg: 'gray' }],
          ]
        : [[{ text: 'nothing selected', fg: 'gray' }]],
    };
  }
  const lines: Line[] = [];
  const where = f.slot !== undefined ? `slot ${f.slot} pos ${f.physicalSlot}` : `site ${f.siteNumber}`;
  lines.push([{ text: `${f.label} ${KIND_LONG[f.kind]}, ${where}, IPMB ${hex2(f.ipmbAddress)}` }]);
  const cause = HOT_SWAP_CAUSE_TEXT[f.lastCause] ?? f.lastCause;
  const dw = l.detailWidth - 1;
  lines.push(
    ...wrapGroups(
      [
        [{ text: `${f.stateLabel} ${M_STATE_NAME[f.state]}`, fg: M_STATE_COLOR[f.state], bold: true }, { text: f.transitioning ? ' (step under way)' : '' }],
        [{ text: ` (from M${f.previous}: ${cause})`, fg: 'gray' }],
      ],
      dw,
    ),
  );
  const led = blueLed(f);
  const l3: Seg[] = [
    { text: `handle ${f.handleClosed ? 'closed' : 'open'}  ${l.detailWidth < 60 ? '' : 'blue '}LED ` },
    { text: led.text, fg: 'light-blue' },
    { text: `  L${f.powerLevel} ${f.powerW} W` },
  ];
  if (f.kind === 'hub' || f.kind === 'processor') l3.push({ text: f.inService ? '  in service' : '  out of service', fg: f.inService ? 'green' : 'yellow' });
  if (f.activationLocked || f.deactivationLocked) l3.push({ text: `  locked:${f.activationLocked ? ' activation' : ''}${f.deactivationLocked ? ' deactivation' : ''}` });
  for (const x of f.faults) l3.push({ text: `  FAULT ${x}`, fg: 'red', bold: true });
  lines.push(...wrapGroups(l3.map((x) => [x]), dw));
  lines.push(...haLines(f, v, l.detailWidth - 1));

  const t = v.traffic;
  if (f.kind === 'processor') {
    const b = t?.boards.find((x) => x.slot === f.slot);
    if (b) {
      lines.push([{ text: 'traffic ', bold: true }, { text: `${compact(b.pps)} pkt/s  ${((b.bps * 8) / 1e6).toFixed(1)} Mbit/s  ${compact(b.flows)} flows  ${b.buckets} buckets` }]);
      const cap = b.sessions.capacity;
      lines.push([
        { text: 'sessions ', bold: true },
        { text: `${grouped(b.sessions.active)}/${grouped(cap)} (${(b.sessions.fill * 100).toFixed(1)}%)  hot hit ${(b.hot.ratio * 100).toFixed(1)}%` },
      ]);
      lines.push(...lostLines(v, b, l.detailWidth - 1));
      if (b.alarms.length) lines.push([{ text: `pool alarm: ${b.alarms.join(', ')}`, fg: 'red', bold: true }]);
    } else {
      lines.push([{ text: 'traffic: no data plane', fg: 'gray' }]);
    }
  } else if (f.kind === 'hub') {
    const h = t?.hubs.find((x) => x.slot === f.slot);
    if (h) {
      const drops = h.drops.no_member_up + h.drops.no_link + h.drops.hub_down;
      lines.push([{ text: 'traffic ', bold: true }, { text: `${compact(h.pps)} pkt/s  ${compact(h.flows)} flows  ${grouped(drops)} dropped` }]);
      const ports: Seg[] = [{ text: 'ports ', bold: true }];
      for (const p of h.ports) ports.push({ text: `${p.port}:` }, { text: p.memberUp ? 'up ' : 'down ', fg: p.memberUp ? 'green' : 'red' });
      lines.push(ports);
    } else {
      lines.push([{ text: 'traffic: no data plane', fg: 'gray' }]);
    }
  }

  if (f.sensors.length) {
    const nw = Math.min(16, Math.max(...f.sensors.map((x) => x.name.length)));
    lines.push([{ text: 'sensors', bold: true }]);
    for (const x of f.sensors) lines.push(sensorLine(x, nw));
  }
  const inv = f.inventory;
  if ('error' in inv) {
    lines.push([{ text: `FRU data unreadable: ${inv.error}`, fg: 'red' }]);
  } else if (inv.board) {
    const b = inv.board;
    lines.push([{ text: 'FRU ', bold: true }, { text: `${b.manufacturer}, ${b.product}, serial ${b.serial}, part ${b.partNumber}` }]);
  }
  if (f.console) {
    const path = v.endpoints.consoles[f.name];
    lines.push([{ text: 'console ', bold: true }, { text: `${f.console.baud} ${f.console.framing}  ` }, path ? { text: path } : { text: 'PTY not available yet', fg: 'gray' }]);
  }
  if (f.kind === 'processor' && input.rsTable) lines.push([{ text: 'RS table (ipvsadm -Ln)', bold: true }], ...rsLines(input.rsTable));
  return {
    title: f.kind === 'shmc' ? [{ text: ` ${shmcName(f.name)} `, bold: true, inverse: true }, { text: ' shelf manager' }] : [{ text: ` ${f.name} `, bold: true, inverse: true }, { text: ` ${f.label}` }],
    lines: lines.map((x) => fit(x, l.detailWidth - 1)),
  };
}

const TYPE_PREFIXES = [
  'FRU Hot Swap ',
  'Temperature ',
  'Voltage ',
  'Current ',
  'Fan ',
  'Power Supply ',
  'Module/Board ',
  'Watchdog 2 ',
  'Management Subsystem Health ',
];

/**
 * Short text of a SEL entry for the event pane: `Node3 HotSwap → M5`, `Node3 Temp Upper Critical
 * going high`, `slot3 Module/Board → Critical from less severe`; deassertions say so.
 */
export function eventText(e: FeedEntry): string {
  const parts = e.text.split(' | ');
  let head = parts[0] ?? e.text;
  const what = (parts[1] ?? '').replace(/^Transition to /, '→ ');
  for (const p of TYPE_PREFIXES) {
    if (head.startsWith(p)) {
      const name = head.slice(p.length);
      head = name.startsWith('#0x') ? `${shmcName(e.source)} ${p.trim()}` : name;
      break;
    }
  }
  return `${head} ${what}${e.deasserted ? ' (deasserted)' : ''}`.trim();
}

function withoutSource(text: string, source: string): string {
  const name = shmcName(source);
  return text.startsWith(`${name} `) ? text.slice(name.length + 1) : text;
}

function eventColor(e: FeedEntry): Color | undefined {
  if (e.mState !== undefined) return M_STATE_COLOR[(e.mState & 7) as MState];
  if (e.deasserted) return 'gray';
  if (/Critical|Non-recoverable|Off Line|Power Off/.test(e.text)) return 'red';
  if (/Non-critical|going/.test(e.text)) return 'yellow';
  if (/Transition to OK|On Line/.test(e.text)) return 'green';
  return undefined;
}

function buildEvents(v: EmulatorView, l: Layout): { title: Line; lines: Line[] } {
  const rows = l.paneHeight - 1;
  const w = l.eventsWidth - 1;
  const showSource = w >= 40;
  const showId = w >= 56;
  const items = v.events.slice(-rows);
  const s = v.snapshot.sel;
  return {
    title: [{ text: ' SEL ', bold: true, inverse: true }, { text: ` ${s.entries}/${s.capacity}${s.overflow ? ' overflow' : ''}` }],
    lines: items.map((e) =>
      fit(
        [
          { text: `${showId ? `${e.recordId.toString(16).padStart(4, '0')} ` : ''}${clockText(e.selTime)} `, fg: 'gray' },
          ...(showSource ? [{ text: `${shmcName(e.source).padEnd(6)} ` }] : []),
          { text: showSource ? withoutSource(eventText(e), e.source) : narrowEventText(eventText(e)), fg: eventColor(e) },
        ],
        w,
      ),
    ),
  };
}

function buildStatus(v: EmulatorView, l: Layout): Line {
  const s = v.snapshot;
  const t = v.traffic;
  const segs: Seg[] = [];
  if (t) {
    segs.push({ text: 'total ', bold: true }, { text: `${compact(t.totals.pps)} pkt/s`, fg: t.totals.pps > 0 ? 'green' : 'gray' });
    segs.push({ text: `  ${compact(t.totals.sessions.active)} sess` });
  } else {
    segs.push({ text: 'no data plane', fg: 'gray' });
  }
  if (s.sel.overflow) segs.push({ text: '  SEL FULL', fg: 'red' });
  const hint = '  ? help';
  const room = Math.max(0, l.width - hint.length);
  const shmc = s.shelf.activeShmc ? shmcName(s.shelf.activeShmc) : 'none';
  const ipmi = v.endpoints.ipmi ? [{ text: `  IPMI ${v.endpoints.ipmi}` }] : [];
  // the longest lost split and ShMC label that fit; the IPMI address goes first when nothing else does
  const forms = lostSplitForms(v.lostByAge);
  const tries: Seg[][] = [];
  for (const withIpmi of [true, false]) {
    for (const f of forms) {
      const lost: Seg = { text: `  ${f}`, fg: v.lostByAge && v.lostByAge.established > 0 ? 'red' : undefined };
      tries.push([...segs, ...(t ? [lost] : []), { text: `  active ${shmc}` }, ...(withIpmi ? ipmi : [])]);
      tries.push([...segs, ...(t ? [lost] : []), { text: `  ${shmc}` }, ...(withIpmi ? ipmi : [])]);
    }
  }
  const pick = tries.find((x) => textLength(x) <= room) ?? tries[tries.length - 1]!;
  return [...fit(pick, room, true), { text: hint, fg: 'gray' }];
}

function buildMessage(ui: UiState, l: Layout): Line {
  if (!ui.message) return fit([{ text: '' }], l.width, true);
  return fit([{ text: `» ${shmcNamesIn(ui.message.text)}`, fg: ui.message.level === 'error' ? 'red' : 'yellow' }], l.width, true);
}

/**
 * Builds the whole screen. Pure.
 * @param input the emulator view, the selected board's RS table and the UI state
 */
export function buildViewModel(input: ViewInput): ViewModel {
  const { view: v, ui } = input;
  const layout = computeLayout(ui.width, ui.height, v.snapshot.slots.length);
  const detail = buildDetail(input, layout);
  const events = buildEvents(v, layout);
  const vm: ViewModel = {
    layout,
    title: buildTitle(v, layout),
    front: buildFront(v, ui, layout),
    mgmt: buildMgmt(v, ui, layout),
    detailTitle: fit(detail.title, layout.detailWidth - 1),
    detail: detail.lines,
    eventsTitle: fit(events.title, layout.eventsWidth - 1),
    events: events.lines,
    message: buildMessage(ui, layout),
    status: buildStatus(v, layout),
  };
  if (ui.help) vm.help = HELP_LINES.map((t, i) => [{ text: t, bold: i === 0 }]);
  return vm;
}
