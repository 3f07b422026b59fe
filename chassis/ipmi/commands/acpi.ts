/**
 * Get ACPI Power State (App 06h/07h, IPMI v2.0 §20.7) at every controller: byte 1 the system power
 * state (b6:0, ACPI codes: 00h S0/G0 working, 05h S5/G2 soft off), byte 2 the device power state
 * (b6:0: 00h D0, 03h D3). The logical shelf manager (20h) reports the shelf: S0 while the chassis
 * power is on, S5/G2 after Chassis Control off; a board, fan tray or PEM controller reports its FRU's
 * payload: S0/D0 in M4 (active), S5/G2 and D3 otherwise. Set ACPI Power State (06h/06h) is not
 * implemented (C1h): nothing in the shelf has an operating system that would be told.
 */
import { expectLength, NetFn } from '../codes.ts';
import type { CommandDef } from '../controller.ts';
import type { ShelfTarget } from '../shelf-manager/target.ts';

/** ACPI system power state codes (IPMI v2.0 §20.6 Set ACPI Power State byte 1, as Get reports them). */
export const AcpiSystemState = { s0Working: 0x00, s5SoftOff: 0x05 } as const;
/** ACPI device power state codes (§20.7 byte 2). */
export const AcpiDeviceState = { d0: 0x00, d3: 0x03 } as const;

/** Get ACPI Power State bound to a controller. */
export function acpiCommands(t: ShelfTarget): CommandDef[] {
  return [
    {
      netFn: NetFn.App,
      cmd: 0x07,
      name: 'Get ACPI Power State',
      privilege: 2,
      handler: (req) => {
        expectLength(req.data, 0);
        const on = t.logical ? t.shelf.chassis.status().powerOn : t.shelf.state(t.fru) === 4;
        return Uint8Array.of(on ? AcpiSystemState.s0Working : AcpiSystemState.s5SoftOff, on ? AcpiDeviceState.d0 : AcpiDeviceState.d3);
      },
    },
  ];
}
