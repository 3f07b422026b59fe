/**
 * Chassis NetFn (00h) commands of the logical shelf manager against the Shelf (IPMI v2.0 §28):
 * Get Chassis Capabilities, Get Chassis Status, Chassis Control, Chassis Identify, Get System
 * Restart Cause, Get POH Counter. Chassis power acts on the whole shelf (docs/shelf.md): off
 * deactivates every board, on activates them again, cycle = off then on, reset restarts the boards'
 * payloads. Every response is built from explicit lengths (ipmi_sim leaked 35 uninitialised bytes in
 * Capabilities and Identify, research §S6; FreeIPMI timed out on them).
 */
import { CompletionCode, IpmiError, NetFn, expectLength } from '../codes.ts';
import type { CommandDef } from '../controller.ts';
import type { ChassisPowerAction } from '../../model/events.ts';
import { shelfCall } from '../shelf-manager/errors.ts';
import type { ShelfTarget } from '../shelf-manager/target.ts';

/** Chassis Control (00h/02h) request byte → shelf action (§28.3). */
export const CHASSIS_CONTROL_ACTIONS: Readonly<Record<number, ChassisPowerAction>> = {
  0x00: 'off',
  0x01: 'on',
  0x02: 'cycle',
  0x03: 'reset',
  0x04: 'diag',
  0x05: 'soft',
};

/**
 * Get Chassis Status response (3 bytes, §28.2): current power state, last power event, misc state.
 * Restore policy 01b ("previous"): the shelf restores its power state after a restart.
 */
export function chassisStatusData(t: ShelfTarget): Uint8Array {
  const s = t.shelf.chassis.status();
  const policy = s.restorePolicy === 'off' ? 0 : s.restorePolicy === 'previous' ? 1 : 2;
  const b1 =
    (s.powerOn ? 0x01 : 0) | (s.powerOverload ? 0x02 : 0) | (s.interlock ? 0x04 : 0) | (s.powerFault ? 0x08 : 0) | (s.powerControlFault ? 0x10 : 0) | (policy << 5);
  const b2 = (s.lastPowerByCommand ? 0x10 : 0) | (s.powerFault ? 0x08 : 0) | (s.interlock ? 0x04 : 0) | (s.powerOverload ? 0x02 : 0);
  // b6 clear: the identify state is not reported (as the reference shelf, so FreeIPMI prints the
  // same fields); Chassis Identify itself works and shows on the shelf (snapshot, TUI)
  const b3 = s.fanFault ? 0x08 : 0;
  return Uint8Array.of(b1, b2, b3);
}

/** The chassis command definitions for the logical shelf manager. */
export function chassisCommands(t: ShelfTarget): CommandDef[] {
  const sm = t.address;
  return [
    {
      netFn: NetFn.Chassis,
      cmd: 0x00,
      name: 'Get Chassis Capabilities',
      handler: (req) => {
        expectLength(req.data, 0);
        // flags (no intrusion sensor, no front-panel lockout), then the FRU info, SDR, SEL,
        // system management and bridge device addresses: all the shelf manager
        return Uint8Array.of(0x00, sm, sm, sm, sm, sm);
      },
    },
    {
      netFn: NetFn.Chassis,
      cmd: 0x01,
      name: 'Get Chassis Status',
      handler: (req) => {
        expectLength(req.data, 0);
        return chassisStatusData(t);
      },
    },
    {
      netFn: NetFn.Chassis,
      cmd: 0x02,
      name: 'Chassis Control',
      handler: (req) => {
        expectLength(req.data, 1);
        const action = CHASSIS_CONTROL_ACTIONS[req.data[0]! & 0x0f];
        if (!action || req.data[0]! & 0xf0) throw new IpmiError(CompletionCode.InvalidDataField, `chassis control ${req.data[0]}`);
        shelfCall(() => t.shelf.chassis.control(action));
      },
    },
    {
      netFn: NetFn.Chassis,
      cmd: 0x04,
      name: 'Chassis Identify',
      handler: (req) => {
        expectLength(req.data, 0, 2);
        const force = req.data.length === 2 && (req.data[1]! & 0x01) !== 0;
        if (req.data.length === 2 && req.data[1]! & 0xfe) throw new IpmiError(CompletionCode.InvalidDataField, 'reserved bits in the force byte');
        const seconds = req.data.length === 0 ? 15 : req.data[0]!;
        shelfCall(() => t.shelf.chassis.identify(force ? 'force' : seconds));
      },
    },
    {
      netFn: NetFn.Chassis,
      cmd: 0x07,
      name: 'Get System Restart Cause',
      handler: (req) => {
        expectLength(req.data, 0);
        const cause = t.shelf.chassis.restartCause() & 0x0f;
        // channel the restart command came in on: the LAN (1) for chassis control, 0 otherwise
        return Uint8Array.of(cause, cause === 0x01 ? 0x01 : 0x00);
      },
    },
    {
      netFn: NetFn.Chassis,
      cmd: 0x0f,
      name: 'Get POH Counter',
      handler: (req) => {
        expectLength(req.data, 0);
        const p = t.shelf.chassis.poh();
        const c = p.count >>> 0;
        return Uint8Array.of(p.minutesPerCount & 0xff, c & 0xff, (c >>> 8) & 0xff, (c >>> 16) & 0xff, (c >>> 24) & 0xff);
      },
    },
  ];
}
