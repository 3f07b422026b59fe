/**
 * What a board's firmware shell may read and do: a narrow port (STYLE §4.2, SP's hardware behind
 * an interface) so the shell stays pure and can be tested against a fake board, while the running
 * emulator backs it with the Shelf, the DataPlane and the HA part (./shelf-port.ts).
 *
 * Every method may throw CommandError (a refusal the shell prints as one line); nothing here does
 * I/O. Times are ms on the emulator's Clock.
 */
import type { RsTable, SessionListing } from '../dataplane/types.ts';
import type { SelEntrySnapshot, SensorSnapshot } from '../model/snapshot.ts';

/** Board kinds that have a console UART. */
export type ConsoleBoardKind = 'shmc' | 'hub' | 'processor';

/** Fixed facts about a board (what its FRU data and configuration say). */
export interface BoardIdentity {
  /** FRU name: `shmc-a`, `slot3`, … (also the console's prompt). */
  name: string;
  kind: ConsoleBoardKind;
  /** Device ID string, e.g. `Node3`, `ShMC-A`. */
  label: string;
  /** Board info area: manufacturer, product name, serial and part number. */
  manufacturer: string;
  product: string;
  serial: string;
  partNumber: string;
  /** Firmware revision as Get Device ID reports it, e.g. `1.05`. */
  firmware: string;
  /** Logical and physical slot (boards only). */
  slot?: number;
  physicalSlot?: number;
  /** PICMG site type name (`Front Board`, `Shelf Manager`) and number. */
  siteType: string;
  siteNumber: number;
  /** Hardware address and IPMB-0 address (2 × HA). */
  hardwareAddress: number;
  ipmbAddress: number;
  /** Console line settings: baud rate (bit/s) and framing (`8N1`). */
  line: { baud: number; framing: string };
}

/** The board's changing state. */
export interface BoardStatus {
  /** PICMG hot-swap state 0..7. */
  state: number;
  handleClosed: boolean;
  /** Carrying traffic (boards; undefined for ShMCs). */
  inService?: boolean;
  /** Power level granted (0 = off) and its draw in W. */
  powerLevel: number;
  powerW: number;
  /** Injected faults (`payload`, `comm`). */
  faults: readonly string[];
  /** ShMCs: this one answers the shelf-manager address (20h). */
  activeShmc?: boolean;
  /** Live sessions in the board's table (processor boards). */
  sessions?: number;
}

/** One HA role the shelf records for the board (Shelf.roles) with live figures when the HA part reports them. */
export interface HaLine {
  /** Role key: the node itself, or a share such as `lb1/slot3`. */
  key: string;
  role: string;
  epoch: number;
  /** Ms since the peer's last heartbeat (Infinity = never heard). */
  heartbeatAgeMs?: number;
  /** Ms left on the node's IPMI watchdog, when it runs. */
  watchdogMs?: number;
  /** Session-sync lag, ms. */
  syncLagMs?: number;
  alarms?: readonly string[];
}

/** What the shell reads and does (see the module comment). */
export interface ConsoleBoardPort {
  identity(): BoardIdentity;
  status(): BoardStatus;
  /** Sensors with readings and thresholds, in number order. */
  sensors(): readonly SensorSnapshot[];
  /** HA roles of the board (empty when none is reported). */
  ha(): readonly HaLine[];
  /** The newest `n` SEL records of the shelf, oldest first. */
  sel(n: number): readonly SelEntrySnapshot[];
  /** Processor boards: up to `n` live sessions. @throws CommandError */
  sessions?(n: number): readonly SessionListing[];
  /** Processor boards: the ipvsadm-style RS table. @throws CommandError */
  rsTable?(): RsTable;
  /** Processor boards: sets an RS weight on this board (0 drains). @throws CommandError('bad_request') */
  setWeight?(vip: string, rs: string, weight: number): void;
  /** Restarts the payload (cold reset, as FRU Control does). @throws CommandError when refused */
  reboot(): void;
}
