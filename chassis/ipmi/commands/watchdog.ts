/**
 * Watchdog timer commands (IPMI v2.0 §27.5–§27.7) against a `WatchdogPort`: Reset (06h/22h),
 * Set (06h/24h), Get (06h/25h, all 8 bytes — ipmi_sim's 6-byte answer made ipmitool print a
 * garbage countdown, research §S.2). While the HA machine owns the timer, Set and Reset from the
 * LAN are refused with D5h; Get works.
 */
import { CompletionCode, IpmiError, NetFn, expectLength } from '../codes.ts';
import type { CommandDef, CommandTable } from '../controller.ts';
import type { WatchdogPort, WatchdogSettings } from '../watchdog-port.ts';

/**
 * Decodes the 6 data bytes of Set Watchdog Timer.
 * @throws IpmiError(C7h) for a wrong length, IpmiError(CCh) for a reserved timer use, action or interrupt
 */
export function decodeWatchdogSet(data: Uint8Array): WatchdogSettings {
  expectLength(data, 6);
  const use = data[0]! & 0x07;
  const timeoutAction = data[1]! & 0x07;
  const pretimeoutInterrupt = (data[1]! >> 4) & 0x07;
  if (use < 1 || use > 5) throw new IpmiError(CompletionCode.InvalidDataField, `timer use ${use}`);
  if (timeoutAction > 3) throw new IpmiError(CompletionCode.InvalidDataField, `timeout action ${timeoutAction}`);
  if (pretimeoutInterrupt > 3) throw new IpmiError(CompletionCode.InvalidDataField, `pre-timeout interrupt ${pretimeoutInterrupt}`);
  return {
    use,
    dontLog: (data[0]! & 0x80) !== 0,
    dontStop: (data[0]! & 0x40) !== 0,
    pretimeoutInterrupt,
    timeoutAction,
    pretimeoutSec: data[2]!,
    clearFlags: data[3]!,
    countdown: data[4]! | (data[5]! << 8),
  };
}

/** The watchdog command definitions bound to `port`. */
export function watchdogCommands(port: WatchdogPort): CommandDef[] {
  return [
    {
      netFn: NetFn.App,
      cmd: 0x22,
      name: 'Reset Watchdog Timer',
      handler: (req) => {
        expectLength(req.data, 0);
        if (port.ownedByHa) throw new IpmiError(CompletionCode.NotSupportedInPresentState, 'watchdog owned by the HA machine');
        if (port.reset() === 'uninitialized') throw new IpmiError(0x80, 'watchdog not initialized (no Set yet)');
      },
    },
    {
      netFn: NetFn.App,
      cmd: 0x24,
      name: 'Set Watchdog Timer',
      handler: (req) => {
        const settings = decodeWatchdogSet(req.data);
        if (port.ownedByHa) throw new IpmiError(CompletionCode.NotSupportedInPresentState, 'watchdog owned by the HA machine');
        if (port.set(settings) === 'invalid') throw new IpmiError(CompletionCode.InvalidDataField, 'watchdog settings rejected');
      },
    },
    {
      netFn: NetFn.App,
      cmd: 0x25,
      name: 'Get Watchdog Timer',
      handler: (req) => {
        expectLength(req.data, 0);
        const s = port.get();
        const out = new Uint8Array(8);
        out[0] = (s.dontLog ? 0x80 : 0) | (s.running ? 0x40 : 0) | (s.use & 0x07);
        out[1] = ((s.pretimeoutInterrupt & 0x07) << 4) | (s.timeoutAction & 0x07);
        out[2] = s.pretimeoutSec & 0xff;
        out[3] = s.expirationFlags & 0x3e;
        out[4] = s.countdown & 0xff;
        out[5] = (s.countdown >> 8) & 0xff;
        out[6] = s.present & 0xff;
        out[7] = (s.present >> 8) & 0xff;
        return out;
      },
    },
  ];
}

/** Registers Reset/Set/Get Watchdog Timer against `port`. @throws TypeError on duplicates */
export function registerWatchdogCommands(table: CommandTable, port: WatchdogPort): void {
  table.registerAll(watchdogCommands(port));
}
