/**
 * The firmware-style shell every board's console runs (shelf managers, hubs, processor boards):
 * a boot banner (board type, firmware revision, slot, M-state) and a small command set in the
 * spirit of IPMC and load-balancer firmware consoles —
 *
 *   help                    show version            show slot             show sensors
 *   show sessions [N]       show rs                 show ha               show sel [N]
 *   set weight VIP RS W     reboot
 *
 * Words may be abbreviated to any unique prefix (`sh ver`). `show rs` prints the table the way
 * `ipvsadm -Ln` does (chassis/dataplane formatRsTable: ipvsadm's columns, then effective weights
 * and health apart). A bad command gets exactly one line starting with `% `; nothing a user types can
 * make the shell throw (an unexpected error from the board is reported as `% internal error: …`).
 *
 * Pure: text in, text out (lines end with `\n`; the console turns them into CR LF). The board is
 * reached only through its ConsoleBoardPort; time comes in as arguments.
 */
import { CommandError } from '../../board/common/errors.ts';
import { formatRsTable } from '../dataplane/data-plane.ts';
import type { SensorSnapshot } from '../model/snapshot.ts';
import type { BoardIdentity, ConsoleBoardPort } from './board-port.ts';

/** What executing one line produced. */
export interface ShellResult {
  /** Text to print (lines end with `\n`); empty for an empty line. */
  output: string;
  /** The line asked the board to restart (the console goes quiet, then prints the banner). */
  reboot?: boolean;
}

/** Names of the PICMG 3.0 hot-swap states (Table 3-? of §3.2.4, research/ipmi.md §D). */
export const M_STATE_NAMES: readonly string[] = [
  'Not Installed',
  'Inactive',
  'Activation Request',
  'Activation In Progress',
  'Active',
  'Deactivation Request',
  'Deactivation In Progress',
  'Communication Lost',
];

const KIND_TEXT: Record<BoardIdentity['kind'], string> = {
  shmc: 'shelf manager',
  hub: 'hub (switch) board',
  processor: 'processor board',
};

/** Default and largest count for `show sessions N` and `show sel N`. */
export const SHOW_DEFAULTS = { sessions: 10, sel: 20, max: 1000 } as const;

type Handler = (args: string[], ctx: { uptimeMs: number }) => ShellResult | string;

interface CommandSpec {
  words: readonly string[];
  /** Most arguments accepted [0]. */
  maxArgs?: number;
  usage: string;
  summary: string;
  /** Only on processor boards. */
  processor?: boolean;
  run: Handler;
}

/** `0x86`. */
function hex2(n: number): string {
  return `0x${n.toString(16).padStart(2, '0')}`;
}

/** `3d 04:05:06` from ms. */
export function formatUptime(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  const d = Math.floor(s / 86400);
  const hh = String(Math.floor((s % 86400) / 3600)).padStart(2, '0');
  const mm = String(Math.floor((s % 3600) / 60)).padStart(2, '0');
  const ss = String(s % 60).padStart(2, '0');
  return `${d}d ${hh}:${mm}:${ss}`;
}

/** Seconds with one decimal, for session ages. */
function secs(ms: number): string {
  return `${(ms / 1000).toFixed(1)}s`;
}

function num(v: number | undefined): string {
  return v === undefined ? 'na' : v.toFixed(3);
}

function table(rows: string[][]): string {
  const widths: number[] = [];
  for (const r of rows) r.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, c.length)));
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  ').trimEnd()).join('\n') + '\n';
}

/** Parses a non-negative decimal integer no larger than `max`; undefined when it is not one. */
function intArg(s: string | undefined, max: number): number | undefined {
  if (s === undefined || !/^\d{1,9}$/.test(s)) return undefined;
  const n = Number(s);
  return n <= max ? n : undefined;
}

/** The shell of one board (see the module comment). */
export class FirmwareShell {
  private readonly commands: CommandSpec[];

  constructor(private readonly port: ConsoleBoardPort) {
    this.commands = [
      { words: ['help'], usage: 'help', summary: 'this list', run: () => this.help() },
      { words: ['show', 'version'], usage: 'show version', summary: 'board type, firmware, FRU data, uptime', run: (_a, c) => this.showVersion(c.uptimeMs) },
      { words: ['show', 'slot'], usage: 'show slot', summary: 'slot, addresses, hot-swap state, power, service', run: () => this.showSlot() },
      { words: ['show', 'sensors'], usage: 'show sensors', summary: 'sensor readings and thresholds', run: () => this.showSensors() },
      { words: ['show', 'sessions'], usage: 'show sessions [N]', summary: `the first N live sessions (default ${SHOW_DEFAULTS.sessions})`, processor: true, maxArgs: 1, run: (a) => this.showSessions(a) },
      { words: ['show', 'rs'], usage: 'show rs', summary: 'virtual services and real servers (as ipvsadm -Ln)', processor: true, run: () => this.showRs() },
      { words: ['show', 'ha'], usage: 'show ha', summary: 'HA roles, heartbeat, watchdog', run: () => this.showHa() },
      { words: ['show', 'sel'], usage: 'show sel [N]', summary: `the newest N SEL records of the shelf (default ${SHOW_DEFAULTS.sel})`, maxArgs: 1, run: (a) => this.showSel(a) },
      { words: ['set', 'weight'], usage: 'set weight VIP RS W', summary: 'weight W (0..65535, 0 drains) for real server RS of service VIP', processor: true, maxArgs: 3, run: (a) => this.setWeight(a) },
      { words: ['reboot'], usage: 'reboot', summary: 'restart the board (FRU Control cold reset)', run: () => this.reboot() },
    ];
  }

  /** The prompt, e.g. `slot3> `. */
  prompt(): string {
    return `${this.safeName()}> `;
  }

  /** The boot banner (several lines, ending with `\n`; the console prints the prompt after it). */
  banner(): string {
    try {
      const id = this.port.identity();
      const st = this.port.status();
      const where =
        id.slot !== undefined
          ? `logical slot ${id.slot} (physical ${id.physicalSlot})`
          : `${id.siteType} ${id.siteNumber}`;
      return [
        '',
        `atcasim ${KIND_TEXT[id.kind]} firmware ${id.firmware} - ${id.product} (${id.label})`,
        `  ${id.manufacturer} ${id.partNumber}, serial ${id.serial}`,
        `  ${where}, hardware address ${hex2(id.hardwareAddress)}, IPMB-0 ${hex2(id.ipmbAddress)}`,
        `  hot-swap state M${st.state} (${M_STATE_NAMES[st.state] ?? '?'}), console ${id.line.baud} ${id.line.framing}`,
        `Type 'help' for the list of commands.`,
        '',
      ].join('\n');
    } catch (e) {
      return `\n${this.safeName()}: firmware started (${e instanceof Error ? e.message : String(e)})\n`;
    }
  }

  /**
   * Runs one line. Never throws.
   * @param uptimeMs time since the board last booted (for `show version`)
   */
  execute(line: string, uptimeMs = 0): ShellResult {
    const words = line.trim().split(/\s+/).filter((w) => w !== '');
    if (words.length === 0) return { output: '' };
    let spec: CommandSpec;
    let args: string[];
    try {
      ({ spec, args } = this.resolve(words));
    } catch (e) {
      return { output: `% ${(e as Error).message}\n` };
    }
    if (args.length > (spec.maxArgs ?? 0)) return { output: `% too many arguments; usage: ${spec.usage}\n` };
    try {
      const kind = this.port.identity().kind;
      if (spec.processor && kind !== 'processor') {
        return { output: `% "${spec.words.join(' ')}": not available on a ${KIND_TEXT[kind]} (processor boards only)\n` };
      }
      const r = spec.run(args, { uptimeMs });
      return typeof r === 'string' ? { output: r } : r;
    } catch (e) {
      if (e instanceof CommandError) return { output: `% ${e.message}\n` };
      return { output: `% internal error: ${e instanceof Error ? e.message : String(e)}\n` };
    }
  }

  // ------------------------------------------------------------------ parsing

  private resolve(words: string[]): { spec: CommandSpec; args: string[] } {
    let cands = this.commands;
    for (let d = 0; ; d++) {
      const complete = cands.filter((c) => c.words.length === d);
      if (d >= words.length) {
        if (complete.length === 1) return { spec: complete[0]!, args: [] };
        throw new Error(`incomplete command "${words.join(' ')}"; try: ${cands.map((c) => c.usage).join(', ')}`);
      }
      const w = words[d]!.toLowerCase();
      let next = cands.filter((c) => c.words.length > d && c.words[d]!.startsWith(w));
      const exact = next.filter((c) => c.words[d] === w);
      if (exact.length > 0) next = exact;
      if (next.length === 0) {
        if (complete.length === 1) return { spec: complete[0]!, args: words.slice(d) };
        if (d === 0) throw new Error(`unknown command "${words[0]}"; type 'help' for the list of commands`);
        throw new Error(`unknown command "${words.slice(0, d + 1).join(' ')}"; try: ${cands.map((c) => c.usage).join(', ')}`);
      }
      const distinct = [...new Set(next.map((c) => c.words[d]!))];
      if (distinct.length > 1) {
        throw new Error(`ambiguous command "${words.slice(0, d + 1).join(' ')}": ${distinct.map((x) => [...words.slice(0, d), x].join(' ')).join(', ')}`);
      }
      cands = next;
    }
  }

  private safeName(): string {
    try {
      return this.port.identity().name;
    } catch {
      return 'ipmc';
    }
  }

  // ------------------------------------------------------------------ commands

  private help(): string {
    const kind = this.port.identity().kind;
    const rows = this.commands.filter((c) => !c.processor || kind === 'processor').map((c) => [`  ${c.usage}`, c.summary]);
    return 'Commands (words may be abbreviated, e.g. "sh ver"):\n' + table(rows);
  }

  private showVersion(uptimeMs: number): string {
    const id = this.port.identity();
    return table([
      ['Board:', `${id.product} (${KIND_TEXT[id.kind]}), ${id.label}`],
      ['Manufacturer:', id.manufacturer],
      ['Part number:', id.partNumber],
      ['Serial:', id.serial],
      ['Firmware:', `${id.firmware} (atcasim IPMC)`],
      ['IPMI:', '2.0, PICMG 3.0'],
      ['Uptime:', formatUptime(uptimeMs)],
      ['Console:', `${id.line.baud} ${id.line.framing}`],
    ]);
  }

  private showSlot(): string {
    const id = this.port.identity();
    const st = this.port.status();
    const rows = [
      ['FRU:', `${id.name} (${id.label})`],
      ['Site:', `${id.siteType} ${id.siteNumber}`],
      ...(id.slot !== undefined ? [['Slot:', `logical ${id.slot}, physical ${id.physicalSlot}`]] : []),
      ['Hardware address:', hex2(id.hardwareAddress)],
      ['IPMB-0 address:', hex2(id.ipmbAddress)],
      ['Hot-swap state:', `M${st.state} (${M_STATE_NAMES[st.state] ?? '?'})`],
      ['Handle:', st.handleClosed ? 'closed' : 'open'],
      ['Power:', `level ${st.powerLevel}, ${st.powerW} W`],
      ...(st.inService !== undefined ? [['In service:', st.inService ? 'yes' : 'no']] : []),
      ...(st.activeShmc !== undefined ? [['Shelf manager:', st.activeShmc ? 'active (answers 0x20)' : 'not active']] : []),
      ['Faults:', st.faults.length ? st.faults.join(', ') : 'none'],
      ...(st.sessions !== undefined ? [['Sessions:', String(st.sessions)]] : []),
    ];
    return table(rows);
  }

  private showSensors(): string {
    const rows = [['Sensor', 'Reading', 'Unit', 'Status', 'LNR', 'LCR', 'LNC', 'UNC', 'UCR', 'UNR']];
    for (const s of this.port.sensors()) rows.push(sensorRow(s));
    return table(rows);
  }

  private showSessions(args: string[]): string {
    if (args.length > 1) throw new CommandError('usage', 'usage: show sessions [N]');
    const n = args.length === 0 ? SHOW_DEFAULTS.sessions : intArg(args[0], SHOW_DEFAULTS.max);
    if (n === undefined || n < 1) throw new CommandError('usage', `usage: show sessions [N] (N = 1..${SHOW_DEFAULTS.max})`);
    const list = this.port.sessions!(n);
    const total = this.port.status().sessions;
    const rows = [['Prot', 'Client', 'Virtual server', 'State', 'Service', 'RS', 'Age', 'Idle']];
    for (const s of list) rows.push([s.protocol, s.client, s.server, s.state, s.service, s.rs, secs(s.ageMs), secs(s.idleMs)]);
    return table(rows) + `${list.length} session${list.length === 1 ? '' : 's'} shown${total !== undefined ? ` of ${total} active` : ''}\n`;
  }

  private showRs(): string {
    return formatRsTable(this.port.rsTable!()) + '\n';
  }

  private showHa(): string {
    const lines = this.port.ha();
    if (lines.length === 0) return 'HA: no role reported for this board\n';
    const rows = [['Key', 'Role', 'Epoch', 'Heartbeat', 'Watchdog', 'Alarms']];
    for (const l of lines) {
      rows.push([
        l.key,
        l.role,
        String(l.epoch),
        l.heartbeatAgeMs === undefined ? '-' : Number.isFinite(l.heartbeatAgeMs) ? `${Math.round(l.heartbeatAgeMs)} ms ago` : 'never heard',
        l.watchdogMs === undefined ? '-' : `${Math.round(l.watchdogMs)} ms left`,
        l.alarms && l.alarms.length ? l.alarms.join(',') : '-',
      ]);
    }
    return table(rows);
  }

  private showSel(args: string[]): string {
    if (args.length > 1) throw new CommandError('usage', 'usage: show sel [N]');
    const n = args.length === 0 ? SHOW_DEFAULTS.sel : intArg(args[0], SHOW_DEFAULTS.max);
    if (n === undefined || n < 1) throw new CommandError('usage', `usage: show sel [N] (N = 1..${SHOW_DEFAULTS.max})`);
    const recs = this.port.sel(n);
    if (recs.length === 0) return 'SEL is empty\n';
    return recs.map((r) => `${r.recordId.toString(16).padStart(4, ' ')} | ${new Date(r.timestamp * 1000).toISOString().replace('T', ' ').slice(0, 19)} | ${r.text}`).join('\n') + '\n';
  }

  private setWeight(args: string[]): string {
    const w = intArg(args[2], 65535);
    if (args.length !== 3 || w === undefined) throw new CommandError('usage', 'usage: set weight VIP RS W (W = 0..65535)');
    this.port.setWeight!(args[0]!, args[1]!, w);
    return `weight of ${args[1]} in ${args[0]} set to ${w}${w === 0 ? ' (drained: existing sessions stay, new ones go elsewhere)' : ''}\n`;
  }

  private reboot(): ShellResult {
    this.port.reboot();
    return { output: 'Restarting system.\n', reboot: true };
  }
}

function sensorRow(s: SensorSnapshot): string[] {
  if (s.kind === 'hotswap') return [s.name, `M${s.value}`, 'hot swap', s.status, '', '', '', '', '', ''];
  const t = s.thresholds ?? {};
  return [s.name, num(s.value), s.unit, s.status, num(t.lnr), num(t.lc), num(t.lnc), num(t.unc), num(t.uc), num(t.unr)];
}
