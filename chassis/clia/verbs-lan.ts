/**
 * clia `getlanconfig` / `setlanconfig` (Pigeon Point verbs): the shelf manager's LAN configuration
 * parameters of channel 1 (IPMI v2.0 §23.1–§23.2, Table 23-4) by name:
 *
 *   getlanconfig [CHANNEL] [PARAM]
 *   setlanconfig [CHANNEL] PARAM VALUE
 *
 * PARAM: auth_support, auth_enables, ip, ip_source, mac, subnet_mask, ip_header, dft_gw_ip,
 * dft_gw_mac, bk_gw_ip, bk_gw_mac, community, vlan_id, vlan_priority, cipher_suites (the
 * settable ones: ip, ip_source, mac, subnet_mask, dft_gw_ip, dft_gw_mac, bk_gw_ip, bk_gw_mac,
 * community, vlan_id, vlan_priority). The emulator keeps what is set for the run only (it goes on
 * listening where it is bound). CHANNEL, when given, must be 1 (the shelf manager's LAN channel).
 */
import { RefusedError, type ShelfApi } from './shelf-api.ts';
import { UsageError, type Verb } from './verb-kit.ts';

interface Param {
  number: number;
  label: string;
  show(d: Uint8Array): string;
  /** Bytes of a value as typed; absent for read-only parameters. @throws UsageError */
  parse?(text: string): number[];
}

const dotted = (d: Uint8Array) => [...d.subarray(0, 4)].join('.');
const colons = (d: Uint8Array) => [...d.subarray(0, 6)].map((b) => b.toString(16).padStart(2, '0')).join(':');
const AUTH_NAMES = ['None', 'MD2', 'MD5', '', 'Straight Password/Key', 'OEM'];
const auth = (b: number) => `0x${b.toString(16).padStart(2, '0')} (${AUTH_NAMES.filter((n, i) => n && b & (1 << i)).join(' ') || 'none'})`;

function ipv4(text: string): number[] {
  const p = text.split('.');
  if (p.length !== 4 || !p.every((x) => /^\d{1,3}$/.test(x) && Number(x) <= 255)) throw new UsageError(`setlanconfig: "${text}" is not an IPv4 address`);
  return p.map(Number);
}
function mac(text: string): number[] {
  const p = text.split(/[:-]/);
  if (p.length !== 6 || !p.every((x) => /^[0-9a-f]{1,2}$/i.test(x))) throw new UsageError(`setlanconfig: "${text}" is not a MAC address (aa:bb:cc:dd:ee:ff)`);
  return p.map((x) => parseInt(x, 16));
}
function int(text: string, max: number, what: string): number {
  if (!/^\d+$/.test(text) || Number(text) > max) throw new UsageError(`setlanconfig: ${what} must be an integer 0..${max}`);
  return Number(text);
}
const SOURCES = ['unspecified', 'static', 'dhcp', 'bios', 'other'];

/** LAN parameters by clia name. */
export const LAN_PARAMS: Readonly<Record<string, Param>> = {
  auth_support: { number: 1, label: 'Authentication Type Support', show: (d) => auth(d[0]!) },
  auth_enables: { number: 2, label: 'Authentication Type Enables', show: (d) => ['Callback', 'User', 'Operator', 'Admin', 'OEM'].map((n, i) => `${n} ${auth(d[i]!)}`).join(', ') },
  ip: { number: 3, label: 'IP Address', show: dotted, parse: ipv4 },
  ip_source: {
    number: 4,
    label: 'IP Address Source',
    show: (d) => `${d[0]! & 0x0f} (${SOURCES[d[0]! & 0x0f] ?? 'reserved'})`,
    parse: (t) => [SOURCES.includes(t) ? SOURCES.indexOf(t) : int(t, 4, 'ip_source (static, dhcp, … or 0..4)')],
  },
  mac: { number: 5, label: 'MAC Address', show: colons, parse: mac },
  subnet_mask: { number: 6, label: 'Subnet Mask', show: dotted, parse: ipv4 },
  ip_header: { number: 7, label: 'IPv4 Header Parameters', show: (d) => `TTL 0x${d[0]!.toString(16)}, flags 0x${d[1]!.toString(16)}, precedence/TOS 0x${d[2]!.toString(16)}` },
  dft_gw_ip: { number: 12, label: 'Default Gateway Address', show: dotted, parse: ipv4 },
  dft_gw_mac: { number: 13, label: 'Default Gateway MAC Address', show: colons, parse: mac },
  bk_gw_ip: { number: 14, label: 'Backup Gateway Address', show: dotted, parse: ipv4 },
  bk_gw_mac: { number: 15, label: 'Backup Gateway MAC Address', show: colons, parse: mac },
  community: {
    number: 16,
    label: 'Community String',
    show: (d) => Buffer.from(d.subarray(0, d.indexOf(0) < 0 ? 18 : d.indexOf(0))).toString('latin1'),
    parse: (t) => {
      if (t.length > 18 || !/^[\x20-\x7e]*$/.test(t)) throw new UsageError('setlanconfig: community must be at most 18 printable ASCII characters');
      return [...Buffer.from(t.padEnd(18, '\0'), 'latin1')];
    },
  },
  vlan_id: {
    number: 20,
    label: '802.1q VLAN ID',
    show: (d) => (d[1]! & 0x80 ? String(d[0]! | ((d[1]! & 0x0f) << 8)) : 'disabled'),
    parse: (t) => {
      const id = t === 'off' || t === 'disabled' ? 0 : int(t, 4094, 'vlan_id (0 or off disables)');
      return id ? [id & 0xff, 0x80 | (id >> 8)] : [0, 0];
    },
  },
  vlan_priority: { number: 21, label: '802.1q VLAN Priority', show: (d) => String(d[0]! & 0x07), parse: (t) => [int(t, 7, 'vlan_priority')] },
  cipher_suites: { number: 23, label: 'RMCP+ Cipher Suites', show: (d) => [...d.subarray(1)].join(',') },
};

function channelAndRest(args: string[], verb: string): string[] {
  if (args[0] !== undefined && /^\d+$/.test(args[0])) {
    if (Number(args[0]) !== 1) throw new RefusedError(0xcc, 'no_such_channel', `${verb}: channel ${args[0]} is not a LAN channel (the shelf manager's LAN channel is 1)`);
    return args.slice(1);
  }
  return args;
}

function param(name: string, verb: string): Param {
  const p = LAN_PARAMS[name.toLowerCase()];
  if (!p) throw new UsageError(`${verb}: unknown parameter "${name}" (${Object.keys(LAN_PARAMS).join(', ')})`);
  return p;
}

async function read(api: ShelfApi, name: string, p: Param): Promise<{ text: string; json: [string, string] } | undefined> {
  try {
    const d = await api.lanParameter(p.number);
    const v = p.show(d);
    return { text: `${p.label}: ${v}\n`, json: [name, v] };
  } catch (e) {
    if (e instanceof RefusedError && e.cc === 0x80) return undefined; // not supported: left out, as ipmitool does
    throw e;
  }
}

/** The verbs of this file. */
export const LAN_VERBS: Readonly<Record<string, Verb>> = {
  getlanconfig: {
    usage: 'getlanconfig [1] [PARAM]',
    summary: 'LAN configuration parameters of the shelf manager (Get LAN Configuration Parameters)',
    run: async (api, raw) => {
      const args = channelAndRest(raw, 'getlanconfig');
      if (args.length > 1) throw new UsageError(`getlanconfig: unexpected argument "${args[1]}"`);
      const names = args.length ? [args[0]!.toLowerCase()] : Object.keys(LAN_PARAMS);
      let text = '';
      const json: Record<string, string> = {};
      for (const n of names) {
        const r = await read(api, n, param(n, 'getlanconfig'));
        if (!r) continue;
        text += r.text;
        json[r.json[0]] = r.json[1];
      }
      return { text, json };
    },
  },
  setlanconfig: {
    usage: 'setlanconfig [1] PARAM VALUE',
    summary: 'set a LAN configuration parameter for this run (Set LAN Configuration Parameters)',
    run: async (api, raw) => {
      const args = channelAndRest(raw, 'setlanconfig');
      if (args.length !== 2) throw new UsageError('setlanconfig [1] PARAM VALUE');
      const name = args[0]!.toLowerCase();
      const p = param(name, 'setlanconfig');
      if (!p.parse) throw new UsageError(`setlanconfig: ${name} is read-only (settable: ${Object.entries(LAN_PARAMS).filter(([, x]) => x.parse).map(([k]) => k).join(', ')})`);
      await api.setLanParameter(p.number, p.parse(args[1]!));
      const after = (await read(api, name, p))!;
      return { text: `${p.label} set: ${after.json[1]}\n`, json: { [name]: after.json[1] } };
    },
  },
};
