/**
 * The ConsoleBoardPort of a FRU in a running emulator: identity and state from the Shelf (its
 * configuration and readonly snapshot), sessions, the RS table and weights from the DataPlane
 * (processor boards), HA roles from the Shelf plus the HA part's live figures when it is wired,
 * and `reboot` as a FRU Control cold reset (PICMG 3.0 §3.2.4.3.2, Shelf.payload.control) — so a
 * `reboot` typed on a processor board's console takes it out of service for one hot-swap step,
 * exactly as `ipmitool picmg frucontrol … 0` does.
 *
 * Pure: reads the core objects it is given; no I/O.
 */
import { CommandError } from '../../board/common/errors.ts';
import { SITE_TYPE, type FruConfig } from '../config/types.ts';
import type { DataPlane } from '../dataplane/data-plane.ts';
import type { Shelf } from '../model/shelf.ts';
import type { FruSnapshot } from '../model/snapshot.ts';
import type { BoardIdentity, ConsoleBoardKind, ConsoleBoardPort, HaLine } from './board-port.ts';

/** Live HA figures of a member; the shape of runtime/ha-seam.ts HaMemberView (structurally). */
export interface HaLiveView {
  share: string;
  node: string;
  role: string;
  epoch: number;
  heartbeatAgeMs: number;
  watchdogMs?: number;
  syncLagMs?: number;
  alarms: readonly string[];
}

/** What the adapter reads. */
export interface ShelfPortDeps {
  shelf: Shelf;
  /** The data plane (sessions, RS tables, weights); absent = no traffic figures. */
  dataPlane?: DataPlane;
  /** Live HA figures (empty or absent until the HA part is wired). */
  haStatus?: () => readonly HaLiveView[];
}

const SITE_NAMES: Record<number, string> = {
  [SITE_TYPE.board]: 'Front Board',
  [SITE_TYPE.pem]: 'Power Entry Module',
  [SITE_TYPE.shelfFru]: 'Shelf FRU',
  [SITE_TYPE.shmc]: 'Dedicated Shelf Manager',
  [SITE_TYPE.fanTray]: 'Fan Tray',
};

/** True for FRU kinds that have a console UART (ShMCs, hubs, processor boards). */
export function hasConsole(cfg: FruConfig): boolean {
  return cfg.console !== undefined && (cfg.kind === 'shmc' || cfg.kind === 'hub' || cfg.kind === 'processor');
}

/** Firmware revision text of a FRU (`1.05`), as Get Device ID reports major and BCD minor. */
export function firmwareText(cfg: FruConfig): string {
  return `${cfg.device.firmwareMajor}.${String(cfg.device.firmwareMinor).padStart(2, '0')}`;
}

/**
 * Builds the port of FRU `name`.
 * @throws CommandError('unknown_fru') for a name the shelf does not know; TypeError for a FRU without a console
 */
export function shelfBoardPort(deps: ShelfPortDeps, name: string): ConsoleBoardPort {
  const { shelf, dataPlane } = deps;
  const cfg = shelf.fruConfig(name);
  if (!hasConsole(cfg)) throw new TypeError(`${name} has no console`);
  const kind = cfg.kind as ConsoleBoardKind;
  const snap = (): FruSnapshot => {
    const f = shelf.snapshot().frus.find((x) => x.name === name);
    if (!f) throw new CommandError('unknown_fru', `${name} is not in the shelf`);
    return f;
  };
  const board = kind === 'processor' && dataPlane && cfg.slot !== undefined && dataPlane.boardSlots.includes(cfg.slot) ? cfg.slot : undefined;
  const identity = (): BoardIdentity => {
    const inv = snap().inventory;
    const b = 'error' in inv ? undefined : inv.board;
    return {
      name,
      kind,
      label: cfg.label,
      manufacturer: b?.manufacturer ?? cfg.inventory.board?.manufacturer ?? '',
      product: b?.product ?? cfg.inventory.board?.product ?? cfg.label,
      serial: b?.serial ?? cfg.inventory.board?.serial ?? '',
      partNumber: b?.partNumber ?? cfg.inventory.board?.partNumber ?? '',
      firmware: firmwareText(cfg),
      ...(cfg.slot !== undefined ? { slot: cfg.slot, physicalSlot: cfg.physicalSlot! } : {}),
      siteType: SITE_NAMES[cfg.siteType] ?? `site type ${cfg.siteType}`,
      siteNumber: cfg.siteNumber,
      hardwareAddress: cfg.hardwareAddress,
      ipmbAddress: cfg.ipmbAddress,
      line: { baud: cfg.console!.baud, framing: cfg.console!.framing },
    };
  };
  const port: ConsoleBoardPort = {
    identity,
    status: () => {
      const f = snap();
      return {
        state: f.state,
        handleClosed: f.handleClosed,
        ...(kind !== 'shmc' ? { inService: f.inService } : { activeShmc: shelf.activeShmc() === name }),
        powerLevel: f.powerLevel,
        powerW: f.powerW,
        faults: f.faults,
        ...(board !== undefined ? { sessions: dataPlane!.board(board).stats().sessions.active } : {}),
      };
    },
    sensors: () => snap().sensors,
    ha: () => {
      const mine = (deps.haStatus?.() ?? []).filter((m) => m.node === name);
      const used = new Set<HaLiveView>();
      const withLive = (key: string, role: string, epoch: number, l: HaLiveView | undefined): HaLine => {
        if (l) used.add(l);
        return {
          key,
          role,
          epoch,
          ...(l ? { heartbeatAgeMs: l.heartbeatAgeMs, alarms: l.alarms } : {}),
          ...(l?.watchdogMs !== undefined ? { watchdogMs: l.watchdogMs } : {}),
          ...(l?.syncLagMs !== undefined ? { syncLagMs: l.syncLagMs } : {}),
        };
      };
      const lines = shelf.roles.of(name).map((r) => withLive(r.key, r.role, r.epoch, mine.find((m) => m.share === r.key) ?? (r.key === name && mine.length === 1 ? mine[0] : undefined)));
      // live members the shelf holds no role record for yet
      for (const m of mine) if (!used.has(m)) lines.push(withLive(m.share, m.role, m.epoch, m));
      return lines;
    },
    sel: (n) => {
      const recent = shelf.snapshot().sel.recent;
      return n >= recent.length ? recent : recent.slice(recent.length - n);
    },
    reboot: () => shelf.payload.control(name, 'cold-reset'),
  };
  if (board !== undefined) {
    port.sessions = (n) => dataPlane!.sessions(board, n);
    port.rsTable = () => dataPlane!.rsTable(board);
    port.setWeight = (vip, rs, weight) => {
      // accept what `show rs` prints (VIP:port, RS address) as well as the configured names
      const svc = dataPlane!.rsTable(board).services.find((s) => s.name === vip || s.vip === vip || `${s.vip}:${s.port}` === vip);
      const r = svc?.realServers.find((x) => x.name === rs || x.address === rs || x.address.replace(/:\d+$/, '') === rs);
      dataPlane!.setWeight(svc?.name ?? vip, r?.name ?? rs, weight, board);
    };
  }
  return port;
}
