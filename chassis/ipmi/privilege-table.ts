/**
 * Minimum session privilege per (NetFn, command), like OpenIPMI lanserv's priv_table.c. Sources:
 * IPMI v2.0 Appendix G (command assignments and privilege levels) for the standard NetFns; the
 * PICMG 3.0 entries follow the same pattern (read = User, changes = Operator, power/control and
 * inventory writes = Administrator) — the PICMG text itself was not available (research §I.4).
 *
 * 0 means "allowed outside a session" (the pre-session commands). A command handler may override
 * its entry at registration; a command in neither place cannot be registered.
 * Commands nobody registered are answered with C1h at every privilege (research §S9) — this table
 * alone never makes a command exist.
 */
import { NetFn } from './codes.ts';

const U = 2; // User
const O = 3; // Operator
const A = 4; // Administrator
const C = 1; // Callback
const ANY = 0; // outside a session

/** Key of a (NetFn, cmd) pair: request NetFn in bits 13:8, command in bits 7:0. */
export function commandKey(netFn: number, cmd: number): number {
  return ((netFn & 0x3f) << 8) | (cmd & 0xff);
}

const entries: Array<[number, number, number]> = [
  // Chassis (IPMI v2.0 §28)
  [NetFn.Chassis, 0x00, U], // Get Chassis Capabilities
  [NetFn.Chassis, 0x01, U], // Get Chassis Status
  [NetFn.Chassis, 0x02, O], // Chassis Control
  [NetFn.Chassis, 0x03, O], // Chassis Reset
  [NetFn.Chassis, 0x04, O], // Chassis Identify
  [NetFn.Chassis, 0x05, A], // Set Chassis Capabilities
  [NetFn.Chassis, 0x06, O], // Set Power Restore Policy
  [NetFn.Chassis, 0x07, U], // Get System Restart Cause
  [NetFn.Chassis, 0x08, O], // Set System Boot Options
  [NetFn.Chassis, 0x09, O], // Get System Boot Options
  [NetFn.Chassis, 0x0a, A], // Set Front Panel Enables
  [NetFn.Chassis, 0x0b, A], // Set Power Cycle Interval
  [NetFn.Chassis, 0x0f, U], // Get POH Counter
  // Sensor/Event (§29, §30, §35)
  [NetFn.SensorEvent, 0x00, A], // Set Event Receiver
  [NetFn.SensorEvent, 0x01, U], // Get Event Receiver
  [NetFn.SensorEvent, 0x02, O], // Platform Event
  [NetFn.SensorEvent, 0x10, U], // Get PEF Capabilities
  [NetFn.SensorEvent, 0x12, A], // Set PEF Configuration Parameters
  [NetFn.SensorEvent, 0x13, O], // Get PEF Configuration Parameters
  [NetFn.SensorEvent, 0x20, U], // Get Device SDR Info
  [NetFn.SensorEvent, 0x21, U], // Get Device SDR
  [NetFn.SensorEvent, 0x22, U], // Reserve Device SDR Repository
  [NetFn.SensorEvent, 0x23, U], // Get Sensor Reading Factors
  [NetFn.SensorEvent, 0x24, O], // Set Sensor Hysteresis
  [NetFn.SensorEvent, 0x25, U], // Get Sensor Hysteresis
  [NetFn.SensorEvent, 0x26, O], // Set Sensor Threshold
  [NetFn.SensorEvent, 0x27, U], // Get Sensor Threshold
  [NetFn.SensorEvent, 0x28, O], // Set Sensor Event Enable
  [NetFn.SensorEvent, 0x29, U], // Get Sensor Event Enable
  [NetFn.SensorEvent, 0x2a, O], // Re-arm Sensor Events
  [NetFn.SensorEvent, 0x2b, U], // Get Sensor Event Status
  [NetFn.SensorEvent, 0x2d, U], // Get Sensor Reading
  [NetFn.SensorEvent, 0x2e, O], // Set Sensor Type
  [NetFn.SensorEvent, 0x2f, U], // Get Sensor Type
  [NetFn.SensorEvent, 0x30, O], // Set Sensor Reading and Event Status
  // App (§20–§22, §27)
  [NetFn.App, 0x01, U], // Get Device ID
  [NetFn.App, 0x02, A], // Cold Reset
  [NetFn.App, 0x03, A], // Warm Reset
  [NetFn.App, 0x04, U], // Get Self Test Results
  [NetFn.App, 0x08, U], // Get Device GUID
  [NetFn.App, 0x22, O], // Reset Watchdog Timer
  [NetFn.App, 0x24, O], // Set Watchdog Timer
  [NetFn.App, 0x25, U], // Get Watchdog Timer
  [NetFn.App, 0x2e, A], // Set BMC Global Enables (local only in the spec; Administrator over LAN here)
  [NetFn.App, 0x2f, U], // Get BMC Global Enables
  [NetFn.App, 0x33, U], // Get Message
  [NetFn.App, 0x34, U], // Send Message (the bridged command is checked again at the target)
  [NetFn.App, 0x37, U], // Get System GUID
  [NetFn.App, 0x38, ANY], // Get Channel Authentication Capabilities
  [NetFn.App, 0x39, ANY], // Get Session Challenge
  [NetFn.App, 0x3a, ANY], // Activate Session
  [NetFn.App, 0x3b, U], // Set Session Privilege Level
  [NetFn.App, 0x3c, C], // Close Session
  [NetFn.App, 0x3d, U], // Get Session Info
  [NetFn.App, 0x40, A], // Set Channel Access
  [NetFn.App, 0x41, U], // Get Channel Access
  [NetFn.App, 0x42, U], // Get Channel Info
  [NetFn.App, 0x43, A], // Set User Access
  [NetFn.App, 0x44, O], // Get User Access
  [NetFn.App, 0x45, A], // Set User Name
  [NetFn.App, 0x46, O], // Get User Name
  [NetFn.App, 0x47, A], // Set User Password
  [NetFn.App, 0x54, ANY], // Get Channel Cipher Suites
  [NetFn.App, 0x58, A], // Set System Info Parameters
  [NetFn.App, 0x59, U], // Get System Info Parameters
  // Storage (§31–§34)
  [NetFn.Storage, 0x10, U], // Get FRU Inventory Area Info
  [NetFn.Storage, 0x11, U], // Read FRU Data
  [NetFn.Storage, 0x12, O], // Write FRU Data
  [NetFn.Storage, 0x20, U], // Get SDR Repository Info
  [NetFn.Storage, 0x21, U], // Get SDR Repository Allocation Info
  [NetFn.Storage, 0x22, U], // Reserve SDR Repository
  [NetFn.Storage, 0x23, U], // Get SDR
  [NetFn.Storage, 0x24, O], // Add SDR
  [NetFn.Storage, 0x25, O], // Partial Add SDR
  [NetFn.Storage, 0x26, O], // Delete SDR
  [NetFn.Storage, 0x27, O], // Clear SDR Repository
  [NetFn.Storage, 0x28, U], // Get SDR Repository Time
  [NetFn.Storage, 0x29, O], // Set SDR Repository Time
  [NetFn.Storage, 0x40, U], // Get SEL Info
  [NetFn.Storage, 0x41, U], // Get SEL Allocation Info
  [NetFn.Storage, 0x42, U], // Reserve SEL
  [NetFn.Storage, 0x43, U], // Get SEL Entry
  [NetFn.Storage, 0x44, O], // Add SEL Entry
  [NetFn.Storage, 0x45, O], // Partial Add SEL Entry
  [NetFn.Storage, 0x46, O], // Delete SEL Entry
  [NetFn.Storage, 0x47, O], // Clear SEL
  [NetFn.Storage, 0x48, U], // Get SEL Time
  [NetFn.Storage, 0x49, O], // Set SEL Time
  [NetFn.Storage, 0x5c, U], // Get SEL Time UTC Offset
  [NetFn.Storage, 0x5d, O], // Set SEL Time UTC Offset
  // Transport (§23)
  [NetFn.Transport, 0x01, A], // Set LAN Configuration Parameters
  [NetFn.Transport, 0x02, O], // Get LAN Configuration Parameters
  [NetFn.Transport, 0x04, U], // Get IP/UDP/RMCP Statistics
  // PICMG 3.0 (NetFn 2Ch, group extension 00h)
  [NetFn.GroupExtension, 0x00, U], // Get PICMG Properties
  [NetFn.GroupExtension, 0x01, U], // Get Address Info
  [NetFn.GroupExtension, 0x02, U], // Get Shelf Address Info
  [NetFn.GroupExtension, 0x03, A], // Set Shelf Address Info
  [NetFn.GroupExtension, 0x04, A], // FRU Control
  [NetFn.GroupExtension, 0x05, U], // Get FRU LED Properties
  [NetFn.GroupExtension, 0x06, U], // Get LED Color Capabilities
  [NetFn.GroupExtension, 0x07, O], // Set FRU LED State
  [NetFn.GroupExtension, 0x08, U], // Get FRU LED State
  [NetFn.GroupExtension, 0x09, A], // Set IPMB State
  [NetFn.GroupExtension, 0x0a, O], // Set FRU Activation Policy
  [NetFn.GroupExtension, 0x0b, U], // Get FRU Activation Policy
  [NetFn.GroupExtension, 0x0c, O], // Set FRU Activation
  [NetFn.GroupExtension, 0x0d, U], // Get Device Locator Record ID
  [NetFn.GroupExtension, 0x0e, A], // Set Port State
  [NetFn.GroupExtension, 0x0f, U], // Get Port State
  [NetFn.GroupExtension, 0x10, A], // Compute Power Properties
  [NetFn.GroupExtension, 0x11, A], // Set Power Level
  [NetFn.GroupExtension, 0x12, U], // Get Power Level
  [NetFn.GroupExtension, 0x13, A], // Renegotiate Power
  [NetFn.GroupExtension, 0x14, U], // Get Fan Speed Properties
  [NetFn.GroupExtension, 0x15, O], // Set Fan Level
  [NetFn.GroupExtension, 0x16, U], // Get Fan Level
  [NetFn.GroupExtension, 0x17, A], // Bused Resource
  [NetFn.GroupExtension, 0x18, U], // Get IPMB Link Info
  [NetFn.GroupExtension, 0x19, A], // Set AMC Port State
  [NetFn.GroupExtension, 0x1a, U], // Get AMC Port State
  [NetFn.GroupExtension, 0x1b, U], // Get Shelf Manager IPMB Address
  [NetFn.GroupExtension, 0x1c, A], // Set Fan Policy
  [NetFn.GroupExtension, 0x1d, U], // Get Fan Policy
  [NetFn.GroupExtension, 0x1e, U], // FRU Control Capabilities
  [NetFn.GroupExtension, 0x1f, A], // FRU Inventory Device Lock Control
  [NetFn.GroupExtension, 0x20, A], // FRU Inventory Device Write
  [NetFn.GroupExtension, 0x21, U], // Get Shelf Manager IP Addresses
  [NetFn.GroupExtension, 0x22, U], // Shelf Power Allocation
  [NetFn.GroupExtension, 0x2c, A], // Set Clock State
  [NetFn.GroupExtension, 0x2d, U], // Get Clock State
];

/** The table: commandKey(netFn, cmd) → minimum privilege (0 = no session needed, 1..4). */
export const PRIVILEGE_TABLE: ReadonlyMap<number, number> = new Map(entries.map(([n, c, p]) => [commandKey(n, c), p]));

/** Minimum privilege of a command, or undefined when the table has no entry. */
export function minimumPrivilege(netFn: number, cmd: number): number | undefined {
  return PRIVILEGE_TABLE.get(commandKey(netFn, cmd));
}
