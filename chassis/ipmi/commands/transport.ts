/**
 * Transport NetFn (0Ch): Get LAN Configuration Parameters (IPMI v2.0 §23.2, Table 23-4) — what
 * `ipmitool lan print` shows. Authentication types report what is really enabled (MD5 when IPMI
 * 1.5 is on, NONE only with the insecure option), and parameters 22–24 list only the RMCP+ cipher
 * suites actually offered with their real IDs and privilege limits (ipmi_sim numbered them 1..15
 * and claimed all of them, research §S.2). ARP control (10, 11) and the bad-password threshold
 * (26) answer 80h ("parameter not supported"), which ipmitool omits from its listing.
 */
import { AuthType, IpmiError, NetFn, expectLength } from '../codes.ts';
import type { CommandDef } from '../controller.ts';
import type { LanServices } from '../lan-services.ts';
import { lanChannel } from './session.ts';

/** Parameter revision byte (11h: IPMI 2.0 layout). */
export const LAN_PARAM_REVISION = 0x11;
/** Completion code for an unsupported parameter. */
export const CC_PARAM_NOT_SUPPORTED = 0x80;

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
        const data = lanParameter(lan, req.data[1]!);
        if (!data) throw new IpmiError(CC_PARAM_NOT_SUPPORTED, `LAN parameter ${req.data[1]} not supported`);
        return Uint8Array.from([LAN_PARAM_REVISION, ...data]);
      },
    },
  ];
}
