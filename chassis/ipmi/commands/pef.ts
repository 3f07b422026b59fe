/**
 * PEF and alerting commands of the logical shelf manager (IPMI v2.0 §30): Get PEF Capabilities
 * (04h/10h), Arm PEF Postpone Timer (11h), Set/Get PEF Configuration Parameters (12h/13h; the
 * parameters in chassis/ipmi/pef/pef-config.ts), Set/Get Last Processed Event ID (14h/15h).
 * What they drive is chassis/ipmi/pef/pef-engine.ts; the alert destinations are LAN parameters
 * 17–19 (commands/transport.ts).
 */
import { CompletionCode, IpmiError, NetFn, expectLength } from '../codes.ts';
import type { CommandDef } from '../controller.ts';
import { FILTER_COUNT, PEF_PARAM_REVISION, type PefConfig } from '../pef/pef-config.ts';
import type { PefEngine } from '../pef/pef-engine.ts';

/** PEF version byte of Get PEF Capabilities (51h = 1.5, the IPMI v2.0 PEF). */
export const PEF_VERSION = 0x51;

/** What the PEF commands work on. */
export interface PefTarget {
  config: PefConfig;
  engine: PefEngine;
  /** SEL clock now (Unix seconds) and the time of the most recent addition. */
  selTime(): number;
  lastAddTime(): number;
  /** Record ID of the newest SEL record (FFFFh when the SEL is empty). */
  lastRecordId(): number;
}

/** The PEF command definitions. */
export function pefCommands(p: PefTarget): CommandDef[] {
  return [
    {
      netFn: NetFn.SensorEvent,
      cmd: 0x10,
      name: 'Get PEF Capabilities',
      handler: (req) => {
        expectLength(req.data, 0);
        return Uint8Array.of(PEF_VERSION, 0x01, FILTER_COUNT); // actions: alert only
      },
    },
    {
      netFn: NetFn.SensorEvent,
      cmd: 0x11,
      name: 'Arm PEF Postpone Timer',
      privilege: 4,
      handler: (req) => {
        expectLength(req.data, 1);
        return Uint8Array.of(p.engine.postpone(req.data[0]!, () => p.selTime()));
      },
    },
    {
      netFn: NetFn.SensorEvent,
      cmd: 0x12,
      name: 'Set PEF Configuration Parameters',
      handler: (req) => {
        if (req.data.length < 2) throw new IpmiError(CompletionCode.RequestDataLengthInvalid, 'Set PEF Configuration Parameters: parameter and data');
        if (req.data[0]! & 0x80) throw new IpmiError(CompletionCode.InvalidDataField, 'parameter selector bit 7 is reserved');
        p.config.set(req.data[0]!, req.data.subarray(1));
      },
    },
    {
      netFn: NetFn.SensorEvent,
      cmd: 0x13,
      name: 'Get PEF Configuration Parameters',
      handler: (req) => {
        expectLength(req.data, 3);
        if (req.data[0]! & 0x80) return Uint8Array.of(PEF_PARAM_REVISION);
        return Uint8Array.from([PEF_PARAM_REVISION, ...p.config.get(req.data[0]! & 0x7f, req.data[1]!, req.data[2]!)]);
      },
    },
    {
      netFn: NetFn.SensorEvent,
      cmd: 0x14,
      name: 'Set Last Processed Event ID',
      privilege: 4,
      handler: (req) => {
        expectLength(req.data, 3);
        if (req.data[0]! & 0xfe) throw new IpmiError(CompletionCode.InvalidDataField, 'reserved bits in byte 1');
        const id = req.data[1]! | (req.data[2]! << 8);
        if (req.data[0]! & 1) p.engine.lastBmcProcessed = id;
        else p.engine.lastSwProcessed = id;
      },
    },
    {
      netFn: NetFn.SensorEvent,
      cmd: 0x15,
      name: 'Get Last Processed Event ID',
      privilege: 4,
      handler: (req) => {
        expectLength(req.data, 0);
        const t = p.lastAddTime() >>> 0;
        const last = p.lastRecordId();
        const sw = p.engine.lastSwProcessed;
        const bmc = p.engine.lastBmcProcessed;
        return Uint8Array.of(t & 0xff, (t >> 8) & 0xff, (t >> 16) & 0xff, t >>> 24, last & 0xff, last >> 8, sw & 0xff, sw >> 8, bmc & 0xff, bmc >> 8);
      },
    },
  ];
}
