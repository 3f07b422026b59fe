/**
 * Transport NetFn (0Ch): Get and Set LAN Configuration Parameters (IPMI v2.0 §23.1–§23.2, Table
 * 23-4) — what `ipmitool lan print` shows and `ipmitool lan set` / `clia setlanconfig` change. Authentication types report what is really enabled (MD5 when IPMI
 * 1.5 is on, NONE only with the insecure option), and parameters 22–24 list only the RMCP+ cipher
 * suites actually offered with their real IDs and privilege limits (ipmi_sim numbered them 1..15
 * and claimed all of them, research §S.2). ARP control (10, 11) and the bad-password threshold
 * (26) answer 80h ("parameter not supported"), which ipmitool omits from its listing.
 *
 * Set LAN Configuration Parameters (§23.1) changes the values reported, in memory for this run (the
 * emulator keeps listening where it was bound; nothing is written to the database): IP address
 * (3), address source (4), MAC (5), subnet mask (6), default and backup gateway and their MACs
 * (12–15), community string (16), VLAN ID (20) and priority (21), and the alert destinations
 * (17–19: PET traps, chassis/ipmi/pef/); set-in-progress (0) is accepted. The others answer 82h
 * (read-only) when they are reported, 80h when not; a value of the wrong length C7h, a bad value CCh.
 */
import { AuthType, CompletionCode, IpmiError, NetFn, expectLength } from '../codes.ts';
import type { LanConfig } from '../lan-services.ts';
import type { CommandDef } from '../controller.ts';
import type { LanServices } from '../lan-services.ts';
import { lanChannel } from './session.ts';

const dotted = (d: Uint8Array) => [...d].join('.');
const colons = (d: Uint8Array) => [...d].map((b) => b.toString(16).padStart(2, '0')).join(':');

/**
 * The LanConfig change parameter `param` with data `d` asks for.
 * @returns the changes, or undefined when the parameter is not settable
 * @throws IpmiError C7h (wrong length), CCh (bad value)
 */
export function lanParameterChange(param: number, d: Uint8Array): Partial<LanConfig> | undefined {
  const need = (n: number) => {
    if (d.length !== n) throw new IpmiError(CompletionCode.RequestDataLengthInvalid, `LAN parameter ${param} takes ${n} byte(s), got ${d.length}`);
  };
  const bad = (what: string) => new IpmiError(CompletionCode.InvalidDataField, what);
  switch (param) {
    case 3: return (need(4), { ipAddress: dotted(d) });
    case 4:
      need(1);
      if ((d[0]! & 0x0f) > 4) throw bad(`IP address source ${d[0]! & 0x0f} (0..4)`);
      return { ipSource: d[0]! & 0x0f };
    case 5: return (need(6), { macAddress: colons(d) });
    case 6: return (need(4), { subnetMask: dotted(d) });
    case 12: return (need(4), { defaultGateway: dotted(d) });
    case 13: return (need(6), { defaultGatewayMac: colons(d) });
    case 14: return (need(4), { backupGateway: dotted(d) });
    case 15: return (need(6), { backupGatewayMac: colons(d) });
    case 16: {
      need(18);
      const end = d.indexOf(0);
      const text = d.subarray(0, end < 0 ? 18 : end);
      if (text.some((b) => b < 0x20 || b > 0x7e)) throw bad('community string must be printable ASCII');
      return { communityString: Buffer.from(text).toString('latin1') };
    }
    case 20: {
      need(2);
      const id = d[0]! | ((d[1]! & 0x0f) << 8);
      return { vlanId: d[1]! & 0x80 ? id : 0 };
    }
    case 21:
      need(1);
      return { vlanPriority: d[0]! & 0x07 };
    default:
      return undefined;
  }
}

/** Parameter revision byte (11h: IPMI 2.0 layout). */
export const LAN_PARAM_REVISION = 0x11;
/** Completion code for an unsupported parameter. */
export const CC_PARAM_NOT_SUPPORTED = 0x80;
/** Completion code for a write to a read-only parameter (§23.1). */
export const CC_PARAM_READ_ONLY = 0x82;

function ipv4(text: string): number[] {
  const parts = text.split('.').map(Number);
  return parts.length === 4 && parts.every((n) => Number.isInteger(n) && n >= 0 && n <= 255) ? parts : [0, 0, 0, 0];
}

function mac(text: string): number[] {
  const parts = text.split(':').map((h) => parseInt(h, 16));
  return parts.length === 6 && parts.every((n) => Number.isInteger(n) && n >= 0 && n <= 255) ? parts : [0, 0, 0, 0, 0, 0];
}

/**
 * Data of one LAN parameter (without the revision byte), or undefined when not supported.
 * @param param parameter selector 0..255
 */
export function lanParameter(lan: LanServices, param: number): number[] | undefined {
  const c = lan.lanConfig;
  const authBits = (lan.ipmi15 ? 1 << AuthType.Md5 : 0) | (lan.ipmi15 && lan.authNone ? 1 << AuthType.None : 0);
  const suites = lan.cipherSuites;
  switch (param) {
    case 0:
      return [0x00]; // set complete
    case 1:
      return [authBits];
    case 2:
      return [authBits, authBits, authBits, authBits, 0x00]; // callback, user, operator, admin, OEM
    case 3:
      return ipv4(c.ipAddress);
    case 4:
      return [c.ipSource & 0x0f];
    case 5:
      return mac(c.macAddress);
    case 6:
      return ipv4(c.subnetMask);
    case 7:
      return [...c.ipHeader];
    case 12:
      return ipv4(c.defaultGateway);
    case 13:
      return mac(c.defaultGatewayMac);
    case 14:
      return ipv4(c.backupGateway);
    case 15:
      return mac(c.backupGatewayMac);
    case 16: {
      const out = new Array<number>(18).fill(0);
      Buffer.from(c.communityString, 'latin1').subarray(0, 18).forEach((b, i) => (out[i] = b));
      return out;
    }
    case 17:
      return [(c.alertDestinations.length - 1) & 0x0f];
    case 18:
    case 19:
      return undefined; // need a set selector: alertDestinationParameter
    case 20:
      return c.vlanId ? [c.vlanId & 0xff, 0x80 | ((c.vlanId >> 8) & 0x0f)] : [0, 0];
    case 21:
      return [c.vlanPriority & 0x07];
    case 22:
      return [suites.length & 0x1f];
    case 23:
      return [0x00, ...suites.map((s) => s.id)];
    case 24: {
      const out = new Array<number>(9).fill(0);
      suites.forEach((_, i) => {
        if (i < 16) out[1 + (i >> 1)]! |= (lan.channelPrivilegeLimit & 0x0f) << ((i & 1) * 4);
      });
      return out;
    }
    default:
      return undefined;
  }
}

/** Parameters 18 (destination type) and 19 (destination addresses) of destination `set`. @throws IpmiError(C9h) */
export function alertDestinationParameter(lan: LanServices, param: 18 | 19, set: number): number[] {
  const d = lan.lanConfig.alertDestinations[set & 0x0f];
  if (!d || set & 0xf0) throw new IpmiError(CompletionCode.ParameterOutOfRange, `alert destination ${set} out of range 0..${lan.lanConfig.alertDestinations.length - 1}`);
  if (param === 18) return [set, (d.acknowledge ? 0x80 : 0) | (d.type & 0x07), d.ackTimeoutSec & 0xff, d.retries & 0x07];
  return [set, 0x00, d.gateway & 0x01, ...ipv4(d.ip), ...mac(d.mac)];
}

/**
 * Set LAN Configuration Parameters (IPMI v2.0 §23.1): the SNMP community string (16), the alert
 * destination type (18) and addresses (19) — what PET alerts use — and set in progress (0).
 * Others `ipmitool lan set` writes (addresses, gateways, VLAN, auth types, cipher privileges) are
 * refused with 82h (read only): the emulated LAN interface is the socket the shelf was started on.
 * Senseless alert destinations are refused with CCh: a reserved destination type (1–5), a retry
 * count above 7, an address format other than IPv4 (0), a gateway selector above 1, an address
 * 0.x.x.x other than 0.0.0.0 (unset), multicast or the limited broadcast 255.255.255.255.
 * @throws IpmiError 80h unknown parameter, 82h read only, C7h length, C9h selector, CCh value
 */
export function setLanParameter(lan: LanServices, param: number, data: Uint8Array): void {
  const c = lan.lanConfig;
  const bad = (m: string) => new IpmiError(CompletionCode.InvalidDataField, m);
  const need = (n: number) => {
    if (data.length !== n) throw new IpmiError(CompletionCode.RequestDataLengthInvalid, `LAN parameter ${param}: ${data.length} data bytes, ${n} expected`);
  };
  switch (param) {
    case 0:
      need(1);
      if (data[0]! & 0xfc || (data[0]! & 3) === 3) throw bad(`set in progress value ${data[0]}`);
      return;
    case 16: {
      need(18);
      const end = data.indexOf(0);
      c.communityString = Buffer.from(data.subarray(0, end < 0 ? 18 : end)).toString('latin1');
      return;
    }
    case 18: {
      need(4);
      const d = destination(lan, data[0]!);
      const type = data[1]! & 0x07;
      if (data[1]! & 0x78) throw bad('alert destination type reserved bits');
      if (type >= 1 && type <= 5) throw bad(`alert destination type ${type} is reserved (0 PET trap, 6/7 OEM)`);
      if (data[3]! & 0xf8) throw bad(`alert retries ${data[3]} (0..7)`);
      Object.assign(d, { type, acknowledge: (data[1]! & 0x80) !== 0, ackTimeoutSec: data[2]!, retries: data[3]! & 0x07 });
      return;
    }
    case 19: {
      need(13);
      const d = destination(lan, data[0]!);
      if (data[1]! >> 4 !== 0) throw bad(`alert address format ${data[1]! >> 4}: only IPv4 (0) is supported`);
      if (data[1]! & 0x0f || data[2]! & 0xfe) throw bad('alert destination address reserved bits');
      const [a, b, x, y] = [data[3]!, data[4]!, data[5]!, data[6]!];
      const unset = a === 0 && b === 0 && x === 0 && y === 0;
      if (!unset && (a === 0 || a >= 224)) throw bad(`alert destination ${a}.${b}.${x}.${y} is not a unicast host address`);
      Object.assign(d, { gateway: data[2]! & 1, ip: `${a}.${b}.${x}.${y}`, mac: [...data.subarray(7, 13)].map((v) => v.toString(16).padStart(2, '0')).join(':') });
      return;
    }
    default: {
      const change = lanParameterChange(param, data);
      if (change) {
        Object.assign(c, change);
        return;
      }
      if (lanParameter(lan, param) !== undefined || param === 18 || param === 19) throw new IpmiError(CC_PARAM_READ_ONLY, `LAN parameter ${param} is read only here`);
      throw new IpmiError(CC_PARAM_NOT_SUPPORTED, `LAN parameter ${param} not supported`);
    }
  }
}

function destination(lan: LanServices, set: number) {
  const d = lan.lanConfig.alertDestinations[set & 0x0f];
  if (!d || set & 0xf0) throw new IpmiError(CompletionCode.ParameterOutOfRange, `alert destination ${set} out of range 0..${lan.lanConfig.alertDestinations.length - 1}`);
  return d;
}

/** The Transport command definitions bound to the LAN server. */
export function transportCommands(lan: LanServices): CommandDef[] {
  return [
    {
      netFn: NetFn.Transport,
      cmd: 0x02,
      name: 'Get LAN Configuration Parameters',
      handler: (req, ctx) => {
        expectLength(req.data, 4);
        lanChannel(lan, ctx, req.data[0]!);
        if (req.data[0]! & 0x80) return Uint8Array.of(LAN_PARAM_REVISION);
        const p = req.data[1]!;
        const data = p === 18 || p === 19 ? alertDestinationParameter(lan, p, req.data[2]!) : lanParameter(lan, p);
        if (!data) throw new IpmiError(CC_PARAM_NOT_SUPPORTED, `LAN parameter ${req.data[1]} not supported`);
        return Uint8Array.from([LAN_PARAM_REVISION, ...data]);
      },
    },
    {
      netFn: NetFn.Transport,
      cmd: 0x01,
      name: 'Set LAN Configuration Parameters',
      handler: (req, ctx) => {
        if (req.data.length < 3) throw new IpmiError(CompletionCode.RequestDataLengthInvalid, 'Set LAN Configuration Parameters: channel, parameter and data');
        lanChannel(lan, ctx, req.data[0]!);
        setLanParameter(lan, req.data[1]!, req.data.subarray(2));
        if (req.data[1]! !== 0) ctx.log.info({ category: 'lan-config', parameter: req.data[1]! }, `LAN parameter ${req.data[1]!} set`);
      },
    },
  ];
}
